/**
 * Feeds the timeline panel from the API: a list+watch of the one pod and of its Events, with the
 * times *we* observed each change (milliseconds, our clock). For a test pod the create request is
 * timed too, like `kubectl run`. No kubectl child process is involved.
 */
import * as vscode from 'vscode';
import type { KubeConnection } from '../adapters/kube';
import type { KubeTransport, WatchEvent } from '../core/live/watch';
import { buildTimeline, type ClientObservation, type PodEvent, type PodSnapshot } from '../core/timeline/model';
import type { TimelineFeed } from '../webviews/timelinePanel';

export interface PodTarget {
  namespace: string;
  name: string;
  /** Create the pod first, as `kubectl run NAME --image=IMAGE` does. */
  create?: { image: string };
}

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
  };
}

/** list then watch from its resourceVersion, re-opening when the server ends the watch. */
function follow(transport: KubeTransport, path: string, params: Record<string, string>, onObject: (type: WatchEvent['type'], obj: Obj) => void, fail: (m: string) => void): () => void {
  let stop: (() => void) | undefined;
  let disposed = false;
  let rv = '';
  const open = (): void => {
    if (disposed) return;
    stop = transport.watch(path, { ...params, resourceVersion: rv, allowWatchBookmarks: 'true' }, (e) => {
      const obj = e.object as Obj;
      if (obj?.metadata?.resourceVersion) rv = obj.metadata.resourceVersion;
      if (e.type !== 'BOOKMARK' && e.type !== 'ERROR') onObject(e.type, obj);
    }, (error) => {
      if (disposed) return;
      if (error && error.kind !== 'timeout') fail(error.message);
      setTimeout(start, error ? 1000 : 0);
    });
  };
  const start = (): void => {
    transport.list(path, params).then((list) => {
      rv = list.metadata.resourceVersion ?? '';
      for (const item of list.items) onObject('ADDED', item as Obj);
      open();
    }, (e: Error) => fail(e.message));
  };
  start();
  return () => {
    disposed = true;
    stop?.();
  };
}

export function podTimelineFeed(conn: KubeConnection, target: PodTarget): TimelineFeed {
  return {
    start(update, fail) {
      const client: ClientObservation = {};
      const events = new Map<string, PodEvent>();
      let pod: PodSnapshot | undefined;
      let pending: NodeJS.Timeout | undefined;
      const render = (): void => {
        clearTimeout(pending);
        pending = setTimeout(() => pod && update(buildTimeline(pod, [...events.values()], client)), 100);
      };
      const ns = encodeURIComponent(target.namespace);
      const stopPod = follow(conn.transport, `/api/v1/namespaces/${ns}/pods`, { fieldSelector: `metadata.name=${target.name}` }, (type, obj) => {
        if (type === 'DELETED') return;
        const now = Date.now();
        const snap = snapshot(obj);
        if (snap.nodeName && !client.bindingObservedAt) client.bindingObservedAt = now;
        const statuses = snap.containerStatuses ?? [];
        if (statuses.length && statuses.every((c) => c.state?.running) && !client.runningObservedAt) client.runningObservedAt = now;
        if (snap.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') && !client.readyObservedAt) client.readyObservedAt = now;
        pod = snap;
        render();
      }, fail);
      const stopEvents = follow(conn.transport, `/api/v1/namespaces/${ns}/events`, { fieldSelector: `involvedObject.kind=Pod,involvedObject.name=${target.name}` }, (type, obj) => {
        if (type === 'DELETED' || (pod?.uid && obj.involvedObject?.uid && obj.involvedObject.uid !== pod.uid)) return;
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
          if (status === 201) client.createdAt = Date.now();
          else fail(`creating pod ${target.namespace}/${target.name} failed (${status}): ${safeMessage(text)}`);
          render();
        }, (e: Error) => fail(e.message));
      }
      return new vscode.Disposable(() => {
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
