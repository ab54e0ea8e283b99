/**
 * The drain's cluster interface (src/core/drain/drainNode.ts DrainCluster) over our HTTPS transport — plain
 * REST, no @kubernetes/client-node API classes, so it works the same in the CLI (Node 20) and the editor:
 *
 *   cordon/uncordon  PATCH /api/v1/nodes/N   strategic merge patch {"spec":{"unschedulable":true|null}} (as kubectl)
 *   pods on a node   GET /api/v1/pods?fieldSelector=spec.nodeName=N (paginated)
 *   DaemonSet        GET /apis/apps/v1/namespaces/NS/daemonsets/NAME
 *   eviction         POST /api/v1/namespaces/NS/pods/NAME/eviction (policy/v1 Eviction)
 *                    201/200 accepted · 404 gone · 429 PDB (retry) · 403 NamespaceTerminating (retry) · other: failed
 *   pod by UID       GET /api/v1/namespaces/NS/pods/NAME
 *   guard            control-plane nodes + their Ready, etcd member health (the connection's readEtcd: exec in an
 *                    etcd pod, or over SSH when the API cannot), leader leases in kube-system
 */
import type { DrainPod } from '../../core/drain/classify';
import type { HeldLease } from '../../core/drain/controlPlaneGuard';
import { controlPlaneMembersFrom, type DaemonSetAnswer, type DrainCluster, type DrainNodeInfo } from '../../core/drain/drainNode';
import type { EvictionClient, EvictionResult } from '../../core/drain/evict';
import type { Inventory } from '../../core/inventory/types';
import { hostForNode, nodeReadiness } from '../../core/live/controlPlane';
import type { EtcdModel } from '../../core/live/etcd';
import { httpError } from '../../core/live/errors';
import type { Lease, Node } from '../../core/live/types';
import { t } from '../../core/l10n';

/** The two calls of HttpsTransport the drain uses. */
export interface DrainTransport {
  readonly server: string;
  get(path: string, params?: Record<string, string>): Promise<{ status: number; body: string }>;
  send(method: string, path: string, params?: Record<string, string>, body?: unknown, timeoutMs?: number, contentType?: string): Promise<{ status: number; body: string }>;
}

export interface DrainClusterOptions {
  /** etcd member health for the control-plane guard (KubeConnection.readEtcd). */
  readEtcd?: () => Promise<EtcdModel>;
  /** Maps nodes to inventory hosts when etcd member names differ from node names. */
  inventory?: Inventory | undefined;
}

interface ApiPod {
  metadata: { name: string; namespace: string; uid: string; annotations?: Record<string, string>; deletionTimestamp?: string; ownerReferences?: { apiVersion: string; kind: string; name: string; controller?: boolean }[] };
  spec?: { volumes?: { emptyDir?: unknown }[] };
  status?: { phase?: string };
}

interface Status {
  message?: string;
  reason?: string;
  details?: { causes?: { reason?: string; type?: string; message?: string }[] };
}

const enc = encodeURIComponent;
const CONTROL_PLANE_LABELS = ['node-role.kubernetes.io/control-plane', 'node-role.kubernetes.io/master'];

function parse<T>(body: string): T | undefined {
  try {
    return JSON.parse(body) as T;
  } catch {
    return undefined;
  }
}

/** The API's own message (`pods "x" not found`), else the HTTP status. */
function statusMessage(status: number, body: string): string {
  return parse<Status>(body)?.message ?? `HTTP ${status}${body ? `: ${body.trim().slice(0, 200)}` : ''}`;
}

export function toDrainPod(p: ApiPod): DrainPod {
  const owner = p.metadata.ownerReferences?.find((o) => o.controller);
  return {
    namespace: p.metadata.namespace,
    name: p.metadata.name,
    uid: p.metadata.uid,
    ...(p.status?.phase ? { phase: p.status.phase } : {}),
    ...(p.metadata.annotations ? { annotations: p.metadata.annotations } : {}),
    ...(owner ? { controller: { apiVersion: owner.apiVersion, kind: owner.kind, name: owner.name } } : {}),
    hasEmptyDir: (p.spec?.volumes ?? []).some((v) => v.emptyDir !== undefined),
    ...(p.metadata.deletionTimestamp ? { deletionTimestamp: p.metadata.deletionTimestamp } : {}),
  };
}

/** Maps an eviction answer the way kubectl judges it. */
export function evictionResult(status: number, body: string): EvictionResult {
  if (status === 200 || status === 201) return { kind: 'accepted' };
  const message = statusMessage(status, body);
  if (status === 404) return { kind: 'not-found' };
  const s = parse<Status>(body);
  if (status === 429) {
    // "The disruption budget web needs 1 healthy pods and has 1 currently" (policy/v1's eviction REST handler).
    const budget = s?.details?.causes?.map((c) => /^The disruption budget (\S+) needs /.exec(c.message ?? '')?.[1]).find(Boolean);
    return { kind: 'too-many-requests', message, ...(budget ? { budget } : {}) };
  }
  if (status === 403 && s?.details?.causes?.some((c) => c.reason === 'NamespaceTerminating' || c.type === 'NamespaceTerminating')) return { kind: 'namespace-terminating', message };
  return { kind: 'failed', message };
}

export function createDrainCluster(transport: DrainTransport, opts: DrainClusterOptions = {}): DrainCluster {
  const where = (path: string) => `${transport.server}${path}`;
  const getJson = async <T>(path: string, params: Record<string, string> = {}): Promise<T> => {
    const r = await transport.get(path, params);
    if (r.status !== 200) throw httpError(r.status, where(path), r.body);
    return JSON.parse(r.body) as T;
  };

  async function listAll<T>(path: string, params: Record<string, string>): Promise<T[]> {
    const items: T[] = [];
    let cont: string | undefined;
    do {
      const page = await getJson<{ items: T[]; metadata?: { continue?: string } }>(path, { ...params, limit: '500', ...(cont ? { continue: cont } : {}) });
      items.push(...page.items);
      cont = page.metadata?.continue || undefined;
    } while (cont);
    return items;
  }

  function nodeInfo(n: Node & { status?: { nodeInfo?: { bootID?: string } } }, lease: Lease | undefined): DrainNodeInfo {
    const labels = n.metadata.labels ?? {};
    const renew = lease?.spec?.renewTime ? Date.parse(lease.spec.renewTime) : NaN;
    return {
      name: n.metadata.name,
      unschedulable: n.spec?.unschedulable === true,
      ready: nodeReadiness(n).readiness === 'Ready',
      controlPlane: CONTROL_PLANE_LABELS.some((l) => l in labels),
      ...(n.status?.nodeInfo?.bootID ? { bootId: n.status.nodeInfo.bootID } : {}),
      ...(Number.isNaN(renew) ? {} : { heartbeatMs: renew }),
    };
  }

  return {
    async getNode(name) {
      const path = `/api/v1/nodes/${enc(name)}`;
      const leasePath = `/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/${enc(name)}`;
      const [r, l] = await Promise.all([transport.get(path), transport.get(leasePath).catch(() => undefined)]);
      if (r.status === 404) throw new Error(t('nodes "{0}" not found ({1})', name, transport.server));
      if (r.status !== 200) throw httpError(r.status, where(path), r.body);
      return nodeInfo(JSON.parse(r.body) as Node, l?.status === 200 ? parse<Lease>(l.body) : undefined);
    },

    async setUnschedulable(name, value, dryRun) {
      const path = `/api/v1/nodes/${enc(name)}`;
      // kubectl's patch: uncordon removes the field rather than writing false.
      const r = await transport.send('PATCH', path, dryRun ? { dryRun: 'All' } : {}, { spec: { unschedulable: value ? true : null } }, undefined, 'application/strategic-merge-patch+json');
      if (r.status !== 200) throw new Error(`PATCH ${where(path)}: ${statusMessage(r.status, r.body)}`);
    },

    async listPodsOnNode(name) {
      const pods = await listAll<ApiPod>('/api/v1/pods', { fieldSelector: `spec.nodeName=${name}` });
      return pods.map(toDrainPod);
    },

    async daemonSet(namespace, name): Promise<DaemonSetAnswer> {
      const r = await transport.get(`/apis/apps/v1/namespaces/${enc(namespace)}/daemonsets/${enc(name)}`).catch((e: Error) => ({ status: 0, body: e.message }));
      if (r.status === 200) return { exists: true };
      return { exists: false, notFound: r.status === 404, error: r.status === 0 ? r.body : statusMessage(r.status, r.body) };
    },

    eviction({ gracePeriodSeconds, dryRun }): EvictionClient {
      return {
        async evict(pod) {
          const deleteOptions = { ...(gracePeriodSeconds >= 0 ? { gracePeriodSeconds } : {}), ...(dryRun ? { dryRun: ['All'] } : {}) };
          const r = await transport.send('POST', `/api/v1/namespaces/${enc(pod.namespace)}/pods/${enc(pod.name)}/eviction`, {}, {
            apiVersion: 'policy/v1',
            kind: 'Eviction',
            metadata: { name: pod.name, namespace: pod.namespace },
            deleteOptions,
          });
          return evictionResult(r.status, r.body);
        },
        async getPod(namespace, name) {
          const path = `/api/v1/namespaces/${enc(namespace)}/pods/${enc(name)}`;
          const r = await transport.get(path);
          if (r.status === 404) return undefined;
          if (r.status !== 200) throw httpError(r.status, where(path), r.body);
          const p = JSON.parse(r.body) as ApiPod;
          return { uid: p.metadata.uid, ...(p.metadata.deletionTimestamp ? { deletionTimestamp: p.metadata.deletionTimestamp } : {}) };
        },
        async budgetAllows(namespace, budget) {
          if (dryRun) return undefined;
          const r = await transport.get(`/apis/policy/v1/namespaces/${enc(namespace)}/poddisruptionbudgets/${enc(budget)}`);
          if (r.status !== 200) return undefined;
          const allowed = parse<{ status?: { disruptionsAllowed?: number } }>(r.body)?.status?.disruptionsAllowed;
          return allowed === undefined ? undefined : allowed > 0;
        },
      };
    },

    async controlPlaneMembers() {
      if (!opts.readEtcd) throw new Error(t('etcd member health is not readable from here'));
      const [nodes, etcd] = await Promise.all([
        Promise.all(CONTROL_PLANE_LABELS.map((l) => listAll<Node>('/api/v1/nodes', { labelSelector: l }))).then((lists) => [...new Map(lists.flat().map((n) => [n.metadata.name, n])).values()]),
        opts.readEtcd(),
      ]);
      return controlPlaneMembersFrom(
        nodes.map((n) => ({ name: n.metadata.name, ready: nodeReadiness(n).readiness === 'Ready', host: hostForNode(opts.inventory, n.metadata.name, n)?.name })),
        etcd.members.map((m) => ({ name: m.name, host: m.host, healthy: m.healthy, isLearner: m.isLearner })),
      );
    },

    async leaderLeases(): Promise<HeldLease[]> {
      const leases = await listAll<Lease>('/apis/coordination.k8s.io/v1/namespaces/kube-system/leases', {});
      return leases.filter((l) => l.spec?.holderIdentity).map((l) => ({ namespace: 'kube-system', name: l.metadata.name, holder: l.spec!.holderIdentity! }));
    },
  };
}
