/**
 * The `kubectl run` timeline's feed, for the editor's panel and the CLI alike: a list+watch of the one pod and of
 * its Events with the times *we* observed each change (milliseconds, our clock), the create request timed like
 * `kubectl run` does for a test pod, and — when asked and when SSH to the inventory's hosts is there — the machines'
 * own logs (audit, journals, CNI leases). No kubectl child process is involved.
 */
import { Reflector, type KubeTransport } from '../core/live/watch';
import { buildTimeline, type ClientObservation, type MoreEvidence, type PodEvent, type PodSnapshot, type Timeline } from '../core/timeline/model';
import type { TimelineFeed } from '../core/timeline/feed';
import { errorMessage } from '../core/errors';
import { apiSource, notReadYet, readClusterSources, type TimelineHosts } from '../core/timeline/clusterSources';
import type { RemoteExec } from '../core/live/etcdSource';
import { hostsWithRole, sshFor, type Inventory } from '../core/inventory/types';
import { serverMatchesEndpoint } from '../core/live/kubeconfig';
import { t } from '../core/l10n';

export interface PodTarget {
  namespace: string;
  name: string;
  /** Create the pod first, as `kubectl run NAME --image=IMAGE` does; `node` pins it with a nodeSelector (the scheduler still binds it). */
  create?: { image: string; node?: string };
}

/** The machines' own logs (audit, journals), when SSH to the inventory's hosts is there. */
export interface TimelineSsh {
  remote: RemoteExec | undefined;
  hosts(nodeName: string | undefined): TimelineHosts | undefined;
}

/** What the feed needs of the API connection: lists, watches and single requests. */
export interface TimelineTransport extends KubeTransport {
  send(method: string, path: string, params: Record<string, string>, body?: unknown): Promise<{ status: number; body: string }>;
}

export interface FeedHooks {
  /** Something the user should know that does not stop the feed (the test pod was not deleted). */
  warn?(message: string): void;
  /** The pod is Ready and the logs read after it (when wanted) are in: this timeline is the complete one. */
  settled?(timeline: Timeline): void;
  /** The API refused to create the test pod (after `fail` has said why): nothing more will come. */
  createRefused?(): void;
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

/** The test pod `kubectl run NAME --image=IMAGE` creates, with a nodeSelector when a node is asked for. */
export function testPodBody(target: PodTarget): Record<string, unknown> {
  const node = target.create?.node;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: target.name, labels: { run: target.name } },
    spec: {
      containers: [{ name: target.name, image: target.create?.image }],
      ...(node ? { nodeSelector: { 'kubernetes.io/hostname': node } } : {}),
    },
  };
}

export function podTimelineFeed(transport: TimelineTransport, target: PodTarget, ssh?: TimelineSsh, hooks: FeedHooks = {}): TimelineFeed {
  let created = false;
  let cleaned = false;
  // SSH only when the user asks (the button in the view): connecting may prompt for host keys.
  let logsWanted = false;
  let requestLogs: (() => void) | undefined;
  const warn = hooks.warn ?? (() => undefined);
  return {
    readLogs() {
      logsWanted = true;
      requestLogs?.();
    },
    /** Deletes the test pod this feed created (like `kubectl delete pod NAME`); a failure is reported, not thrown. */
    async cleanup() {
      if (!target.create || !created || cleaned) return;
      cleaned = true;
      const path = `/api/v1/namespaces/${encodeURIComponent(target.namespace)}/pods/${encodeURIComponent(target.name)}`;
      try {
        const { status, body } = await transport.send('DELETE', path, {}, { apiVersion: 'v1', kind: 'DeleteOptions', gracePeriodSeconds: 0 });
        if (status !== 200 && status !== 202 && status !== 404) warn(t('The test pod {0}/{1} was not deleted ({2}): {3}. Delete it with kubectl delete pod -n {0} {1}.', target.namespace, target.name, status, safeMessage(body)));
      } catch (e) {
        warn(t('The test pod {0}/{1} was not deleted: {2}', target.namespace, target.name, errorMessage(e)));
      }
    },
    start(update, fail) {
      const client: ClientObservation = {};
      const events = new Map<string, PodEvent>();
      let pod: PodSnapshot | undefined;
      let pending: NodeJS.Timeout | undefined;
      let more: MoreEvidence = { sources: [apiSource(), ...notReadYet()] };
      let stopped = false;
      const now = (): Timeline | undefined => (pod ? buildTimeline(pod, [...events.values()], client, Date.now(), more) : undefined);
      const render = (): void => {
        clearTimeout(pending);
        pending = setTimeout(() => {
          const t = now();
          if (t) update(t);
        }, 100);
      };
      // The audit log and the node's journal, when asked; again once the pod is Ready (its last steps).
      let reading: NodeJS.Timeout | undefined;
      let readAfterReady = false;
      const settle = (): void => {
        const t = now();
        if (t && !stopped) hooks.settled?.(t);
      };
      const readLogs = (afterReady = false): void => {
        if (!pod || stopped) return;
        if (!logsWanted) {
          // The API's own evidence is all there is: let the last Events arrive, then it is complete.
          if (afterReady) setTimeout(settle, LOG_SETTLE_MS);
          return;
        }
        const p = pod;
        clearTimeout(reading);
        reading = setTimeout(() => {
          const since = client.createSentAt ?? (Date.parse(p.creationTimestamp ?? '') || Date.now() - 60_000);
          const images = (p.containerStatuses ?? []).map((c) => c.image).filter((i): i is string => Boolean(i));
          void readClusterSources(ssh?.remote, ssh?.hosts(p.nodeName), { namespace: p.namespace, name: p.name, ...(p.uid ? { uid: p.uid } : {}), images: [...images, ...(target.create ? [target.create.image] : [])], ...(p.nodeName ? { node: p.nodeName } : {}) }, since)
            .then((m) => {
              if (stopped) return;
              more = m;
              render();
              if (afterReady) settle();
            }, (e: Error) => fail(t('reading the machines\' logs: {0}', e.message)));
        }, LOG_SETTLE_MS);
      };
      requestLogs = () => readLogs(readAfterReady);
      const ns = encodeURIComponent(target.namespace);
      const stopPod = follow(transport, 'timeline-pod', `/api/v1/namespaces/${ns}/pods`, `metadata.name=${target.name}`, (deleted, obj) => {
        if (deleted) return;
        const at = Date.now();
        const snap = snapshot(obj);
        if (snap.nodeName && !client.bindingObservedAt) client.bindingObservedAt = at;
        const statuses = snap.containerStatuses ?? [];
        if (statuses.length && statuses.every((c) => c.state?.running) && !client.runningObservedAt) client.runningObservedAt = at;
        const ready = snap.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
        if (ready && !client.readyObservedAt) client.readyObservedAt = at;
        pod = snap;
        render();
        if (ready && !readAfterReady) {
          readAfterReady = true;
          readLogs(true);
        }
      }, fail);
      const stopEvents = follow(transport, 'timeline-events', `/api/v1/namespaces/${ns}/events`, `involvedObject.kind=Pod,involvedObject.name=${target.name}`, (deleted, obj) => {
        if (deleted || (pod?.uid && obj.involvedObject?.uid && obj.involvedObject.uid !== pod.uid)) return;
        events.set(obj.metadata.name, event(obj));
        render();
      }, fail);
      if (target.create) {
        client.createSentAt = Date.now();
        transport.send('POST', `/api/v1/namespaces/${ns}/pods`, {}, testPodBody(target)).then(({ status, body: text }) => {
          if (status === 201) {
            client.createdAt = Date.now();
            created = true;
          } else {
            fail(t('creating pod {0}/{1} failed ({2}): {3}', target.namespace, target.name, status, safeMessage(text)));
            hooks.createRefused?.();
          }
          render();
        }, (e: Error) => fail(e.message));
      }
      return {
        dispose: () => {
          stopped = true;
          clearTimeout(reading);
          clearTimeout(pending);
          stopPod();
          stopEvents();
        },
      };
    },
  };
}

/**
 * The inventory's hosts as the timeline's log sources — only when the connected cluster is the inventory's (its
 * server is the controlPlaneEndpoint): a context pointed at another cluster never dials the inventory's hosts.
 */
export function timelineHostsFor(inv: Inventory | undefined, server: string | undefined): ((nodeName: string | undefined) => TimelineHosts | undefined) {
  const own = inv && serverMatchesEndpoint(server, inv.cluster.controlPlaneEndpoint) ? inv : undefined;
  return (nodeName) => {
    if (!own) return undefined;
    const sudo = (h: Inventory['hosts'][number]): boolean => sshFor(own, h).user !== 'root';
    const node = own.hosts.find((h) => h.name === nodeName);
    return { ...(node ? { node: { host: node.name, sudo: sudo(node) } } : {}), controlPlanes: hostsWithRole(own, 'control-plane').map((h) => ({ host: h.name, sudo: sudo(h) })) };
  };
}

export interface CaptureResult {
  timeline: Timeline | undefined;
  /** The pod became Ready (and the logs were read after it) within the time allowed. */
  settled: boolean;
  failures: string[];
}

/**
 * One run, start to end: create the test pod, follow it to Ready, read the machines' logs when SSH is there,
 * and delete the pod (also after a failure or the timeout). What the CLI's `timeline` verb and the lab test use.
 */
/** `signal`: Ctrl-C on the CLI — the wait ends and the test pod is deleted like after a timeout. */
export async function capturePodTimeline(transport: TimelineTransport, target: PodTarget, ssh: TimelineSsh | undefined, opts: { timeoutMs: number; warn?: (m: string) => void; signal?: AbortSignal }): Promise<CaptureResult> {
  const failures: string[] = [];
  let latest: Timeline | undefined;
  let done: (settled: boolean) => void = () => undefined;
  const finished = new Promise<boolean>((resolve) => (done = resolve));
  const feed = podTimelineFeed(transport, target, ssh, {
    ...(opts.warn ? { warn: opts.warn } : {}),
    settled: (t) => {
      latest = t;
      done(true);
    },
    // The create was refused: nothing more will come.
    createRefused: () => done(false),
  });
  if (ssh?.remote) feed.readLogs?.();
  const handle = feed.start((t) => (latest = t), (m) => {
    failures.push(m);
  });
  const timer = setTimeout(() => done(false), opts.timeoutMs);
  if (opts.signal?.aborted) done(false);
  opts.signal?.addEventListener('abort', () => done(false), { once: true });
  try {
    const settled = await finished;
    return { timeline: latest, settled, failures };
  } finally {
    clearTimeout(timer);
    handle.dispose();
    await feed.cleanup?.();
  }
}

function safeMessage(body: string): string {
  try {
    return (JSON.parse(body) as { message?: string }).message ?? body.slice(0, 200);
  } catch {
    return body.slice(0, 200);
  }
}
