/**
 * Feeds the timeline panel from the API: a list+watch of the one pod and of its Events, with the
 * times *we* observed each change (milliseconds, our clock). For a test pod the create request is
 * timed too, like `kubectl run`. No kubectl child process is involved.
 */
import * as vscode from 'vscode';
import type { KubeConnection } from '../adapters/kube';
import { Reflector, type KubeTransport } from '../core/live/watch';
import { buildTimeline, type ClientObservation, type MoreEvidence, type PodEvent, type PodSnapshot } from '../core/timeline/model';
import type { TimelineFeed } from '../core/timeline/feed';
import { errorMessage } from '../core/errors';
import { API_SOURCE, NOT_READ_YET, readClusterSources, type TimelineHosts } from '../core/timeline/clusterSources';
import type { RemoteExec } from '../core/live/etcdSource';

export interface PodTarget {
  namespace: string;
  name: string;
  /** Create the pod first, as `kubectl run NAME --image=IMAGE` does. */
  create?: { image: string };
}

/** The machines' own logs (audit, journals), when SSH to the inventory's hosts is there. */
export interface TimelineSsh {
  remote: RemoteExec | undefined;
  hosts(nodeName: string | undefined): TimelineHosts | undefined;
}

/** How long after a change the machines' logs are read: journald and the audit backend flush within a second. */
const LOG_SETTLE_MS = 1500;

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

function snapshot(pod: Obj): PodSnapshot {
  return {
    name: pod.metadata.name,
    namespace: pod.metadata.namespace,
    uid: pod.metadata.uid,
    creationTimestamp: pod.metadata.creationTimestamp,
    nodeName: pod.spec?.nodeName,
    phase: pod.status?.phase,
    conditions: pod.status?.conditions ?? [],
    containerStatuses: pod.status?.containerStatuses ?? [],
  };
}

function event(e: Obj): PodEvent {
  return {
    reason: e.reason,
    message: e.message,
    type: e.type,
    eventTime: e.eventTime ?? undefined,
    firstTimestamp: e.firstTimestamp ?? undefined,
    lastTimestamp: e.lastTimestamp ?? undefined,
    count: e.count,
    source: e.source?.component ?? e.reportingComponent,
    fieldPath: e.involvedObject?.fieldPath,
  };
}

/** The shared watch engine (list, watch from the resourceVersion, 410 → one re-list, backoff, stalls). */
function follow(transport: KubeTransport, key: string, path: string, fieldSelector: string, onObject: (deleted: boolean, obj: Obj) => void, fail: (m: string) => void): () => void {
  const reflector = new Reflector(transport, { key, path, fieldSelector }, (changes) => {
    for (const c of changes) onObject(c.type === 'deleted', c.object as Obj);
  }, {}, (r) => {
    if (r.state === 'backoff' && r.lastError) fail(r.lastError.message);
  });
  reflector.start();
  return () => reflector.stop();
}

export function podTimelineFeed(conn: KubeConnection, target: PodTarget, ssh?: TimelineSsh): TimelineFeed {
  let created = false;
  let cleaned = false;
  // SSH only when the user asks (the button in the view): connecting may prompt for host keys.
  let logsWanted = false;
  let requestLogs: (() => void) | undefined;
  return {
    readLogs() {
      logsWanted = true;
      requestLogs?.();
    },
    /** Deletes the test pod this feed created (like `kubectl delete pod NAME`); a failure is shown, not thrown. */
    async cleanup() {
      if (!target.create || !created || cleaned) return;
      cleaned = true;
      const path = `/api/v1/namespaces/${encodeURIComponent(target.namespace)}/pods/${encodeURIComponent(target.name)}`;
      try {
        const { status, body } = await conn.transport.send('DELETE', path, {}, { apiVersion: 'v1', kind: 'DeleteOptions', gracePeriodSeconds: 0 });
        if (status !== 200 && status !== 202 && status !== 404) void vscode.window.showWarningMessage(`The test pod ${target.namespace}/${target.name} was not deleted (${status}): ${safeMessage(body)}. Delete it with kubectl delete pod -n ${target.namespace} ${target.name}.`);
      } catch (e) {
        void vscode.window.showWarningMessage(`The test pod ${target.namespace}/${target.name} was not deleted: ${errorMessage(e)}`);
      }
    },
    start(update, fail) {
      const client: ClientObservation = {};
      const events = new Map<string, PodEvent>();
      let pod: PodSnapshot | undefined;
      let pending: NodeJS.Timeout | undefined;
      let more: MoreEvidence = { sources: [API_SOURCE, ...NOT_READ_YET] };
      let stopped = false;
      const render = (): void => {
        clearTimeout(pending);
        pending = setTimeout(() => pod && update(buildTimeline(pod, [...events.values()], client, Date.now(), more)), 100);
      };
      // The audit log and the node's journal, when asked; again once the pod is Ready (its last steps).
      let reading: NodeJS.Timeout | undefined;
      let readAfterReady = false;
      const readLogs = (): void => {
        if (!pod || stopped || !logsWanted) return;
        const p = pod;
        clearTimeout(reading);
        reading = setTimeout(() => {
          const since = client.createSentAt ?? (Date.parse(p.creationTimestamp ?? '') || Date.now() - 60_000);
          const images = (p.containerStatuses ?? []).map((c) => c.image).filter((i): i is string => Boolean(i));
          void readClusterSources(ssh?.remote, ssh?.hosts(p.nodeName), { namespace: p.namespace, name: p.name, ...(p.uid ? { uid: p.uid } : {}), images: [...images, ...(target.create ? [target.create.image] : [])], ...(p.nodeName ? { node: p.nodeName } : {}) }, since)
            .then((m) => { if (!stopped) { more = m; render(); } }, (e: Error) => fail(`reading the machines' logs: ${e.message}`));
        }, LOG_SETTLE_MS);
      };
      requestLogs = readLogs;
      const ns = encodeURIComponent(target.namespace);
      const stopPod = follow(conn.transport, 'timeline-pod', `/api/v1/namespaces/${ns}/pods`, `metadata.name=${target.name}`, (deleted, obj) => {
        if (deleted) return;
        const now = Date.now();
        const snap = snapshot(obj);
        if (snap.nodeName && !client.bindingObservedAt) client.bindingObservedAt = now;
        const statuses = snap.containerStatuses ?? [];
        if (statuses.length && statuses.every((c) => c.state?.running) && !client.runningObservedAt) client.runningObservedAt = now;
        const ready = snap.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
        if (ready && !client.readyObservedAt) client.readyObservedAt = now;
        pod = snap;
        render();
        if (ready && !readAfterReady) {
          readAfterReady = true;
          readLogs();
        }
      }, fail);
      const stopEvents = follow(conn.transport, 'timeline-events', `/api/v1/namespaces/${ns}/events`, `involvedObject.kind=Pod,involvedObject.name=${target.name}`, (deleted, obj) => {
        if (deleted || (pod?.uid && obj.involvedObject?.uid && obj.involvedObject.uid !== pod.uid)) return;
        events.set(obj.metadata.name, event(obj));
        render();
      }, fail);
      if (target.create) {
        const body = {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: target.name, labels: { run: target.name } },
          spec: { containers: [{ name: target.name, image: target.create.image }] },
        };
        client.createSentAt = Date.now();
        conn.transport.send('POST', `/api/v1/namespaces/${ns}/pods`, {}, body).then(({ status, body: text }) => {
          if (status === 201) {
            client.createdAt = Date.now();
            created = true;
          }
          else fail(`creating pod ${target.namespace}/${target.name} failed (${status}): ${safeMessage(text)}`);
          render();
        }, (e: Error) => fail(e.message));
      }
      return new vscode.Disposable(() => {
        stopped = true;
        clearTimeout(reading);
        clearTimeout(pending);
        stopPod();
        stopEvents();
      });
    },
  };
}

function safeMessage(body: string): string {
  try {
    return (JSON.parse(body) as { message?: string }).message ?? body.slice(0, 200);
  } catch {
    return body.slice(0, 200);
  }
}
