/**
 * The kube adapter: KubeConfig loading (@kubernetes/client-node), the HTTPS watch transport, the live
 * cluster over it, etcd through the API (etcdctl exec'd in an etcd pod) or over SSH, and a health probe.
 * Bundled separately (dist/kube.js) and loaded on first connection, so activation never pays for it.
 */
import { homedir } from 'node:os';
import { existsSync } from 'node:fs';
import { Writable } from 'node:stream';
import type { Context, KubeConfig } from '@kubernetes/client-node' with { 'resolution-mode': 'import' };
import type { Inventory } from '../../core/inventory/types';
import { LiveCluster, type LiveClusterOptions } from '../../core/live/cluster';
import { ApiError, classifyError, httpError } from '../../core/live/errors';
import { buildEtcd, type EtcdModel, type MemberHistory } from '../../core/live/etcd';
import { etcdctlTlsArgs, readEtcd as readEtcdRaw, sshEtcdctl, type EtcdctlRunner, type ExecResult, type MemberCache, type RemoteExec } from '../../core/live/etcdSource';
import { contextForEndpoint, kubeconfigPaths, mergeKubeconfigs, serverMatchesEndpoint } from '../../core/live/kubeconfig';
import { componentOf, nodeReadiness } from '../../core/live/controlPlane';
import { ETCD_HEDGE_AFTER_MS, ETCD_RETRY_EVERY_MS, etcdReadOrder, readThroughFirst, type EtcdPodCandidate } from '../../core/live/etcdReader';
import type { Node, Pod } from '../../core/live/types';
import { HttpsTransport, type TlsOptions } from './transport';
import { checkAccess, whoAmI } from './access';
import type { AccessCheck, HealthInput, Identity } from '../../core/live/health';
import { errorMessage } from '../../core/errors';
import { t } from '../../core/l10n';

export { HttpsTransport } from './transport';
/**
 * This bundle's own copy of the core's message catalogue (the live model, its verdict and its errors are built here):
 * the loader (./load.ts) hands it the caller's language and messages, and again whenever they change.
 */
export { useMessages } from '../../core/l10n';

type K8s = typeof import('@kubernetes/client-node', { with: { 'resolution-mode': 'import' } });
let k8sModule: Promise<K8s> | undefined;
function k8s(): Promise<K8s> {
  k8sModule ??= import('@kubernetes/client-node');
  return k8sModule;
}

export interface KubeconfigChoice {
  paths: string[];
  contexts: { name: string; cluster: string; user: string; server: string | undefined }[];
  current: string | undefined;
}

/** Loads and merges the kubeconfig files like kubectl. `setting` is the extension's setting (may be empty). */
export async function loadKubeconfig(setting?: string, env = process.env.KUBECONFIG): Promise<{ kc: KubeConfig; choice: KubeconfigChoice }> {
  const { KubeConfig } = await k8s();
  const paths = kubeconfigPaths(setting, env, homedir());
  const existing = paths.filter((p) => existsSync(p));
  if (!existing.length) throw new ApiError('config', paths.join(':'), t('no kubeconfig file found (set kubeadmWorkbench.kubeconfig or KUBECONFIG)'));
  const parts = existing.map((p) => {
    const one = new KubeConfig();
    try {
      one.loadFromFile(p);
    } catch (e) {
      throw new ApiError('config', p, t('cannot load kubeconfig: {0}', errorMessage(e)));
    }
    return one;
  });
  const merged = mergeKubeconfigs(parts.map((p) => ({ clusters: p.clusters, users: p.users, contexts: p.contexts, currentContext: p.currentContext })));
  const kc = new KubeConfig();
  kc.loadFromOptions(merged);
  const contexts = kc.getContexts().map((c: Context) => ({ name: c.name, cluster: c.cluster, user: c.user, server: kc.getCluster(c.cluster)?.server }));
  return { kc, choice: { paths: existing, contexts, current: merged.currentContext } };
}

export interface Health {
  ok: boolean;
  ms: number;
  status?: number;
  detail?: string;
  error?: ApiError;
}

export interface ConnectOptions {
  kubeconfig?: string;
  context?: string;
  inventory?: Inventory;
  /** The SSH layer, for reading etcd when the API is down. */
  remote?: RemoteExec;
  live?: LiveClusterOptions;
  /** false: one connection per request (probes that must see the load balancer choose anew each time). */
  keepAlive?: boolean;
  /**
   * Without a context: the one whose server is the inventory's controlPlaneEndpoint (contextForEndpoint) rather than
   * the current-context, which may be another cluster whose nodes have the same names. When none is: 'prefer' takes
   * the current-context as before (a kubeconfig that names one control-plane node, not the VIP, is common), 'require'
   * is an error naming the contexts seen (the upgrade). The command line's verbs given an inventory ask for this; the
   * editor picks its context itself.
   */
  contextByEndpoint?: 'prefer' | 'require';
}

export interface KubeConnection {
  context: string;
  server: string;
  choice: KubeconfigChoice;
  transport: HttpsTransport;
  cluster: LiveCluster;
  readEtcd(): Promise<EtcdModel>;
  health(timeoutMs?: number): Promise<Health>;
  /**
   * The facts of the health model (core/live/health.ts): /readyz (skipped when the caller knows the API answers,
   * e.g. watches receive events), who we are and what we may read (asked again after ten minutes or when a watch
   * was refused). The caller adds its verdict and calls assessHealth.
   */
  healthFacts(opts?: { skipReadyz?: boolean; timeoutMs?: number }): Promise<HealthInput>;
  dispose(): void;
}

function inventoryContext(choice: KubeconfigChoice, inventory: Inventory, rule: 'prefer' | 'require'): string | undefined {
  const endpoint = inventory.cluster.controlPlaneEndpoint;
  const context = contextForEndpoint(choice, endpoint);
  if (context) return context;
  if (rule === 'prefer') return choice.current;
  const seen = choice.contexts.map((c) => `${c.name} → ${c.server ?? t('no server')}`).join(', ') || t('none');
  throw new ApiError('config', choice.paths.join(':'), t('no context of {0} has the inventory\'s controlPlaneEndpoint {1} as its server (contexts: {2}); give --context to use another', choice.paths.join(':'), endpoint, seen));
}

export async function connect(opts: ConnectOptions = {}): Promise<KubeConnection> {
  const { kc, choice } = await loadKubeconfig(opts.kubeconfig);
  const context = opts.context || (opts.contextByEndpoint && opts.inventory ? inventoryContext(choice, opts.inventory, opts.contextByEndpoint) : choice.current);
  if (!context) throw new ApiError('config', choice.paths.join(':'), t('no current-context: pick one with "Kubeadm: Select Cluster Context"'));
  if (!kc.getContextObject(context)) throw new ApiError('config', choice.paths.join(':'), t('context "{0}" not found', context));
  kc.setCurrentContext(context);
  const cluster = kc.getCurrentCluster();
  if (!cluster?.server) throw new ApiError('config', context, t('the context has no cluster server'));
  // Asked for per request: an exec plugin's token (kubelogin, cloud CLIs) expires and is renewed by client-node's
  // authenticator cache, a token file or certificate file may be rotated. The agent client-node builds is not used.
  const credentials = async (): Promise<TlsOptions> => {
    const o: TlsOptions & { agent?: unknown } = {};
    await kc.applyToHTTPSOptions(o as never);
    delete o.agent;
    return o;
  };
  try {
    await credentials();
  } catch (e) {
    throw new ApiError('auth', context, t('cannot get credentials: {0}', errorMessage(e)));
  }
  let transport: HttpsTransport;
  try {
    transport = new HttpsTransport(cluster.server, credentials, undefined, { keepAlive: opts.keepAlive ?? true, proxyUrl: cluster.proxyUrl });
  } catch (e) {
    throw new ApiError('config', context, errorMessage(e));
  }
  const live = new LiveCluster(transport, () => readEtcd(), opts.live);
  live.inventory = opts.inventory;

  const podRunner = (pod: Pod): EtcdctlRunner => async (args) => execInPod(kc, pod, 'etcd', ['etcdctl', ...args], 5_000);

  /** The running etcd pods with what the reader order needs: its node Ready, the pod itself ready (n/n). */
  async function etcdPods(): Promise<{ pod: Pod; candidate: EtcdPodCandidate }[]> {
    let pods = [...live.reflectors.pods.store.values()] as Pod[];
    let nodes = [...live.reflectors.nodes.store.values()] as Node[];
    if (!live.reflectors.pods.synced) {
      pods = (await transport.list('/api/v1/namespaces/kube-system/pods', { labelSelector: 'component=etcd' })).items as Pod[];
      nodes = (await transport.list('/api/v1/nodes', {})).items as Node[];
    }
    const ready = new Set(nodes.filter((n) => nodeReadiness(n).readiness === 'Ready').map((n) => n.metadata.name));
    return pods
      .filter((p) => componentOf(p) === 'etcd' && p.status?.phase === 'Running')
      .map((pod) => {
        const statuses = pod.status?.containerStatuses ?? [];
        const podReady = statuses.length > 0 && statuses.every((c) => c.ready) && pod.status?.conditions?.find((c) => c.type === 'Ready')?.status !== 'False';
        return { pod, candidate: { name: pod.metadata.name, node: pod.spec?.nodeName ?? '', nodeReady: ready.has(pod.spec?.nodeName ?? ''), podReady } };
      });
  }

  /** The pod etcd was last read through: it stays the reader while it is ready and answers (core/live/etcdReader). */
  let lastReader: string | undefined;

  async function readEtcd(): Promise<EtcdModel> {
    const errors: string[] = [];
    let pods: { pod: Pod; candidate: EtcdPodCandidate }[] = [];
    try {
      pods = await etcdPods();
    } catch (e) {
      errors.push(`API: ${classifyError(e, cluster!.server).describe()}`);
    }
    if (pods.length) {
      const byName = new Map(pods.map((p) => [p.candidate.name, p.pod]));
      try {
        const { value, via } = await readThroughFirst(etcdReadOrder(pods.map((p) => p.candidate), lastReader), (c) => readEtcd0(podRunner(byName.get(c.name)!)), {
          hedgeAfterMs: ETCD_HEDGE_AFTER_MS,
          // then a new exec every 0.75 s, seven in all
          retryEveryMs: ETCD_RETRY_EVERY_MS,
          maxAttempts: 7,
          failed: (c, e) => errors.push(`exec ${c.name}: ${errorMessage(e)}`),
        });
        lastReader = via.name;
        return buildEtcd(value, `exec ${via.name}`, Date.now(), live.inventory, history);
      } catch {
        // every pod failed: errors has each reason; fall through to SSH
      }
    }
    // Over SSH only on the inventory's own cluster: a context pointed at another cluster (or a test's API server)
    // never dials the inventory's hosts, which would be someone else's machines.
    const ownCluster = live.inventory && serverMatchesEndpoint(cluster!.server, live.inventory.cluster.controlPlaneEndpoint);
    if (opts.remote && live.inventory && !ownCluster) errors.push(t('not read over SSH: this context\'s server {0} is not the inventory\'s controlPlaneEndpoint {1}', cluster!.server, live.inventory.cluster.controlPlaneEndpoint));
    if (opts.remote && live.inventory && ownCluster) {
      for (const h of live.inventory.hosts.filter((x) => x.roles.includes('control-plane'))) {
        try {
          const raw = await readEtcd0(sshEtcdctl(opts.remote, h.name, (live.inventory.ssh.user ?? 'root') !== 'root'));
          return buildEtcd(raw, `ssh ${h.name}`, Date.now(), live.inventory, history);
        } catch (e) {
          errors.push(`ssh ${h.name}: ${errorMessage(e)}`);
        }
      }
    } else if (!pods.length) errors.push(t('no running etcd pod and no SSH fallback'));
    throw new Error(errors.join('; '));
  }

  const members: MemberCache = {};
  const history: MemberHistory = new Map();
  const readEtcd0 = (run: EtcdctlRunner) => readEtcdRaw(run, etcdctlTlsArgs(), false, members);

  async function health(timeoutMs = 5000): Promise<Health> {
    const t0 = performance.now();
    try {
      const { status, body } = await transport.get('/readyz', {}, timeoutMs);
      const ms = performance.now() - t0;
      if (status === 200) return { ok: true, ms, status, detail: body.trim() };
      const error = httpError(status, `${cluster!.server}/readyz`, body);
      return { ok: false, ms, status, detail: body.trim().slice(0, 500), error };
    } catch (e) {
      return { ok: false, ms: performance.now() - t0, error: classifyError(e, `${cluster!.server}/readyz`) };
    }
  }

  let access: { at: number; identity: Identity | undefined; checks: AccessCheck[] | undefined } | undefined;
  async function healthFacts(o: { skipReadyz?: boolean; timeoutMs?: number } = {}): Promise<HealthInput> {
    const timeoutMs = o.timeoutMs ?? 5000;
    let reach: HealthInput['reach'] = { ok: true, ms: NaN };
    if (!o.skipReadyz) {
      const h = await health(timeoutMs);
      // A 403 on /readyz (anonymous requests not allowed there) still proves the server answers.
      reach = { ok: h.ok || h.error?.kind === 'forbidden', ms: h.ms, failure: h.error?.kind, why: h.error?.describe() ?? (h.ok ? undefined : h.detail) };
    }
    const refused = live.denial();
    if (reach.ok && (!access || Date.now() - access.at > 600_000 || (refused && Date.now() - access.at > 10_000))) {
      try {
        const [identity, checks] = await Promise.all([whoAmI(transport, timeoutMs), checkAccess(transport, timeoutMs)]);
        access = { at: Date.now(), identity, checks };
      } catch {
        // the reviews could not be asked (old server, timeout): judge by /readyz and the watches alone
      }
    }
    return {
      reach,
      identity: access?.identity,
      access: access?.checks,
      denied: refused ? { kind: refused.kind === 'auth' ? 'auth' : 'forbidden', message: refused.describe() } : undefined,
    };
  }

  return {
    context,
    server: cluster.server,
    choice,
    transport,
    cluster: live,
    readEtcd,
    health,
    healthFacts,
    dispose() {
      live.dispose();
      transport.dispose();
    },
  };
}

/** What the exec timeout needs of a `ws` WebSocket (client-node bundles ws; its types are not installed). */
interface AbortableSocket {
  terminate(): void;
}
type SocketCtor = new (uri: string, protocols: string[], opts: object) => AbortableSocket;
type HandlerCtor = new (kc: KubeConfig, socketFactory: (uri: string, protocols: string[], opts: object) => AbortableSocket) => unknown;

/**
 * Runs a command in a pod container through the exec subresource (WebSocket); 15 s limit. At the limit the socket
 * is terminated — also while its handshake is still pending (an exec to a pod on a powered-off node waits for the
 * API server's dial to that kubelet, ~30 s), which would otherwise keep a finished CLI process alive that long.
 */
export async function execInPod(kc: KubeConfig, pod: Pod, container: string, command: string[], timeoutMs = 15_000): Promise<ExecResult> {
  const { Exec } = await k8s();
  const { default: WebSocket } = (await import('isomorphic-ws')) as unknown as { default: SocketCtor };
  let socket: AbortableSocket | undefined;
  // client-node's own WebSocketHandler (not exported by name), given a factory that keeps the socket.
  const Handler = (new Exec(kc) as unknown as { handler: { constructor: HandlerCtor } }).handler.constructor;
  const handler = new Handler(kc, (uri, protocols, opts) => (socket = new WebSocket(uri, protocols, opts)));
  const ns = pod.metadata.namespace ?? 'kube-system';
  let stdout = '';
  let stderr = '';
  let code = -1;
  const sink = (append: (s: string) => void) => new Writable({ write(chunk: Buffer, _enc, cb) { append(chunk.toString('utf8')); cb(); } });
  const where = `exec ${ns}/${pod.metadata.name}`;
  return new Promise<ExecResult>((resolve, reject) => {
    let settled = false;
    const timer = setTimeout(() => {
      if (settled) return;
      settled = true;
      socket?.terminate();
      reject(new ApiError('timeout', where, t('no answer within {0} ms', timeoutMs)));
    }, timeoutMs);
    new Exec(kc, handler as ConstructorParameters<typeof Exec>[1])
      .exec(ns, pod.metadata.name, container, command, sink((s) => (stdout += s)), sink((s) => (stderr += s)), null, false, (status) => {
        if (status.status === 'Success') code = 0;
        else {
          const exit = status.details?.causes?.find((c) => c.reason === 'ExitCode')?.message;
          code = exit ? Number(exit) : 1;
          if (!exit && status.message) stderr += status.message;
        }
      })
      .then((ws) => {
        ws.on('close', () => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          resolve({ code, stdout, stderr });
        });
      })
      .catch((e: unknown) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        reject(classifyError(e, where));
      });
  });
}
