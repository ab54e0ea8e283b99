/**
 * The timing parameters a failure drill's expectations come from, read from the cluster itself rather
 * than assumed: HAProxy's check settings from the balancer's haproxy.cfg, the node-lifecycle and
 * leader-election flags from the kube-controller-manager / kube-scheduler / etcd mirror pods' command
 * lines, and the lease durations from the Lease objects. Defaults are the upstream ones for what is
 * not set.
 */
import { parseHaproxy, type Section } from '../haproxy/parse';
import { t } from '../l10n';

/** A Go duration (`40s`, `1m0s`, `500ms`, `1h2m3.5s`) in milliseconds; undefined when not one. */
export function parseGoDuration(text: string | undefined): number | undefined {
  if (!text) return undefined;
  const s = text.trim();
  if (s === '0') return 0;
  const units: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  let total = 0;
  let rest = s;
  while (rest) {
    const m = /^(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/.exec(rest);
    if (!m) return undefined;
    total += Number(m[1]) * units[m[2]!]!;
    rest = rest.slice(m[0].length);
  }
  return total;
}

/** An HAProxy time (`2s`, `2000` = ms, `500ms`, `1m`, `1h`, `1d`, `100us`) in milliseconds. */
export function parseHaproxyTime(text: string | undefined): number | undefined {
  if (!text) return undefined;
  const m = /^(\d+)(us|ms|s|m|h|d)?$/.exec(text.trim());
  if (!m) return undefined;
  const f: Record<string, number> = { us: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
  return Number(m[1]) * f[m[2] ?? 'ms']!;
}

/** How HAProxy health-checks one server (all times in ms). */
export interface HaproxyCheckParams {
  inter: number;
  /** Interval while the server is transitioning (after a failed check); HAProxy's default is `inter`. */
  fastinter: number;
  downinter: number;
  fall: number;
  rise: number;
  timeoutConnect: number | undefined;
  timeoutCheck: number | undefined;
  /** Whether the server line has `check` at all (no check: HAProxy never marks it DOWN). */
  checked: boolean;
  /**
   * The HTTP request of the backend's `option httpchk` (e.g. `GET /readyz`), or undefined for a TCP check: a TCP
   * check admits a restarting kube-apiserver as soon as its port accepts, an HTTP one when it answers as asked.
   */
  httpCheck: string | undefined;
}

export interface HaproxyServerRef {
  backend: string;
  server: string;
  address: string;
  port: number | undefined;
  params: HaproxyCheckParams;
}

export interface HaproxyCfgInfo {
  /** `stats socket` path with `level admin` or `level operator`/default, when configured. */
  statsSocket: string | undefined;
  servers: HaproxyServerRef[];
}

const HAPROXY_DEFAULTS = { inter: 2000, fall: 3, rise: 2 };

function serverOptions(tokens: string[]): Map<string, string | true> {
  const out = new Map<string, string | true>();
  const withArg = new Set(['inter', 'fastinter', 'downinter', 'fall', 'rise', 'port', 'addr', 'weight', 'maxconn', 'slowstart', 'check-proto', 'id', 'cookie', 'on-error', 'on-marked-down', 'on-marked-up']);
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (withArg.has(t) && i + 1 < tokens.length) out.set(t, tokens[++i]!);
    else out.set(t, true);
  }
  return out;
}

function timeoutOf(sections: Section[], kind: string): number | undefined {
  let v: number | undefined;
  for (const s of sections) {
    for (const l of s.find('timeout', kind)) v = parseHaproxyTime(l.word(2)) ?? v;
  }
  return v;
}

/** The backend's `option httpchk` request (the section's own line over the defaults'); undefined for TCP. */
function httpCheckOf(chain: Section[]): string | undefined {
  let v: string | undefined;
  for (const sec of chain) {
    const http = sec.find('option', 'httpchk');
    const tcp = sec.find('option', 'tcp-check');
    const lastHttp = http[http.length - 1];
    const lastTcp = tcp[tcp.length - 1];
    if (lastHttp && (!lastTcp || lastTcp.rel < lastHttp.rel)) v = lastHttp.words(2).join(' ') || 'OPTIONS /';
    else if (lastTcp) v = undefined;
  }
  return v;
}

function splitAddress(addr: string): { address: string; port: number | undefined } {
  const v6 = /^\[([^\]]+)\](?::(\d+))?$/.exec(addr);
  if (v6) return { address: v6[1]!, port: v6[2] ? Number(v6[2]) : undefined };
  const i = addr.lastIndexOf(':');
  if (i > 0 && addr.indexOf(':') === i) return { address: addr.slice(0, i), port: Number(addr.slice(i + 1)) || undefined };
  return { address: addr, port: undefined };
}

/**
 * The servers of every backend (and listen section) with their effective check parameters: the
 * server line's own options over `default-server` of its section over `default-server` of the last
 * `defaults` section before it; timeouts likewise.
 */
export function haproxyCfgInfo(text: string): HaproxyCfgInfo {
  const cfg = parseHaproxy(text);
  let statsSocket: string | undefined;
  for (const s of cfg.sections.filter((x) => x.type === 'global')) {
    for (const l of s.find('stats', 'socket')) statsSocket = l.word(2) ?? statsSocket;
  }
  const servers: HaproxyServerRef[] = [];
  let defaults: Section | undefined;
  for (const s of cfg.sections) {
    if (s.type === 'defaults') {
      defaults = s;
      continue;
    }
    if (s.type !== 'backend' && s.type !== 'listen') continue;
    const chain = defaults ? [defaults, s] : [s];
    const defaultServer = new Map<string, string | true>();
    for (const sec of chain) for (const l of sec.find('default-server')) for (const [k, v] of serverOptions(l.words(1))) defaultServer.set(k, v);
    const timeoutConnect = timeoutOf(chain, 'connect');
    const timeoutCheck = timeoutOf(chain, 'check');
    const httpCheck = httpCheckOf(chain);
    for (const l of s.find('server')) {
      const name = l.word(1);
      const addr = l.word(2);
      if (!name || !addr) continue;
      const own = serverOptions(l.words(3));
      const opt = (k: string): string | undefined => {
        const v = own.get(k) ?? defaultServer.get(k);
        return typeof v === 'string' ? v : undefined;
      };
      const inter = parseHaproxyTime(opt('inter')) ?? HAPROXY_DEFAULTS.inter;
      const { address, port } = splitAddress(addr);
      servers.push({
        backend: s.name ?? '',
        server: name,
        address,
        port,
        params: {
          inter,
          fastinter: parseHaproxyTime(opt('fastinter')) ?? inter,
          downinter: parseHaproxyTime(opt('downinter')) ?? inter,
          fall: Number(opt('fall') ?? HAPROXY_DEFAULTS.fall),
          rise: Number(opt('rise') ?? HAPROXY_DEFAULTS.rise),
          timeoutConnect,
          timeoutCheck,
          checked: own.has('check') || defaultServer.has('check'),
          httpCheck,
        },
      });
    }
  }
  return { statsSocket, servers };
}

/** The server entries of `cfg` that point at a host (by address, else by server name = host name). */
export function serversFor(info: HaproxyCfgInfo, host: { name: string; address: string }): HaproxyServerRef[] {
  const byAddress = info.servers.filter((s) => s.address === host.address);
  return byAddress.length ? byAddress : info.servers.filter((s) => s.server === host.name);
}

// ---------------------------------------------------------------- Kubernetes components

/** `--flag=value` (or `--flag value`) from a container's command + args. */
export function flagValue(argv: readonly string[], flag: string): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a.startsWith(`--${flag}=`)) return a.slice(flag.length + 3);
    if (a === `--${flag}` && i + 1 < argv.length && !argv[i + 1]!.startsWith('--')) return argv[i + 1];
  }
  return undefined;
}

/** `1.34.12`, `v1.31.0+k3s1` → [1, 34]; undefined when unparsable. */
export function minorVersion(v: string | undefined): [number, number] | undefined {
  const m = /^v?(\d+)\.(\d+)/.exec(v ?? '');
  return m ? [Number(m[1]), Number(m[2])] : undefined;
}

export interface ClusterTimings {
  /** node-monitor-grace-period: how long without a heartbeat before Ready turns Unknown. */
  nodeMonitorGraceMs: number;
  nodeMonitorGraceSource: string;
  nodeMonitorPeriodMs: number;
  /** --node-eviction-rate: nodes per second the node-lifecycle controller taints NoExecute in a healthy zone (0: none). */
  nodeEvictionRate: number;
  /** kubelet renews its Lease every leaseDuration/4 = 10 s (nodeLeaseDurationSeconds 40). */
  nodeLeaseRenewMs: number;
  /** Leader election's retry period (candidates try to acquire, holders renew, this often). */
  leaderRetryPeriodMs: number;
  /** etcd's --election-timeout: a follower without a heartbeat for this long starts an election. */
  etcdElectionTimeoutMs: number;
  etcdHeartbeatMs: number;
}

export interface ComponentArgs {
  kubeVersion?: string | undefined;
  controllerManager?: readonly string[] | undefined;
  scheduler?: readonly string[] | undefined;
  etcd?: readonly string[] | undefined;
}

/** --node-eviction-rate: 0.1 when unset or unreadable; 0 (or less) is kept as 0: the controller then taints no node. */
function evictionRate(flag: string | undefined): number {
  const x = flag === undefined || flag.trim() === '' ? NaN : Number(flag);
  if (!Number.isFinite(x)) return 0.1;
  return Math.max(0, x);
}

/**
 * The timings from the components' flags, with upstream defaults for unset flags. The grace period's
 * default changed from 40 s to 50 s in Kubernetes 1.32 (the seed's 40 s is the older default).
 */
export function clusterTimings(a: ComponentArgs): ClusterTimings {
  const cm = a.controllerManager ?? [];
  const graceFlag = parseGoDuration(flagValue(cm, 'node-monitor-grace-period'));
  const v = minorVersion(a.kubeVersion);
  const defaultGrace = v && (v[0] > 1 || v[1] >= 32) ? 50_000 : 40_000;
  const retry = parseGoDuration(flagValue(cm, 'leader-elect-retry-period')) ?? parseGoDuration(flagValue(a.scheduler ?? [], 'leader-elect-retry-period')) ?? 2000;
  const etcdNum = (flag: string): number | undefined => {
    const x = Number(flagValue(a.etcd ?? [], flag));
    return Number.isFinite(x) && x > 0 ? x : undefined;
  };
  return {
    nodeMonitorGraceMs: graceFlag ?? defaultGrace,
    nodeMonitorGraceSource: graceFlag !== undefined ? 'kube-controller-manager --node-monitor-grace-period' : t('default for Kubernetes {0}', v ? `${v[0]}.${v[1]}` : t('(version unknown)')),
    nodeMonitorPeriodMs: parseGoDuration(flagValue(cm, 'node-monitor-period')) ?? 5000,
    nodeEvictionRate: evictionRate(flagValue(cm, 'node-eviction-rate')),
    nodeLeaseRenewMs: 10_000,
    leaderRetryPeriodMs: retry,
    etcdElectionTimeoutMs: etcdNum('election-timeout') ?? 1000,
    etcdHeartbeatMs: etcdNum('heartbeat-interval') ?? 100,
  };
}
