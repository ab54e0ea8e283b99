/**
 * Where etcd data comes from. Both sources run etcdctl with kubeadm's healthcheck-client certificate
 * (kubeadm lays the etcd PKI out in /etc/kubernetes/pki/etcd/ and mounts it into the etcd pod):
 *  - through the API: exec in an etcd mirror pod (adapter: pods/exec subresource);
 *  - over SSH, when the API is down: on a control-plane host, etcdctl there if installed, else inside
 *    the etcd container through crictl — behind the small RemoteExec interface.
 */
import { t } from '../l10n';
import { sh } from '../ssh/command';
import { hexId } from './bigjson';
import { parseAlarmList, parseEndpointStatus, parseMemberList, type EtcdRaw } from './etcd';

export interface ExecResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a POSIX shell script on an inventory host (`sh -c SCRIPT`; the SSH layer implements it). */
export interface RemoteExec {
  exec(host: string, command: string): Promise<ExecResult>;
}

/** Runs `etcdctl ARGS...` somewhere and returns its output. */
export type EtcdctlRunner = (args: string[]) => Promise<ExecResult>;

export const ETCD_PKI = '/etc/kubernetes/pki/etcd';

/** etcdctl's own limits on the live reads: a member that does not answer within them is reported unreachable. */
export const ETCDCTL_DIAL_TIMEOUT_MS = 1_000;
export const ETCDCTL_COMMAND_TIMEOUT_MS = 1_500;

export function etcdctlTlsArgs(endpoint = 'https://127.0.0.1:2379', pki = ETCD_PKI): string[] {
  return [`--endpoints=${endpoint}`, `--cacert=${pki}/ca.crt`, `--cert=${pki}/healthcheck-client.crt`, `--key=${pki}/healthcheck-client.key`, `--command-timeout=${ETCDCTL_COMMAND_TIMEOUT_MS}ms`, `--dial-timeout=${ETCDCTL_DIAL_TIMEOUT_MS}ms`];
}

export class EtcdReadError extends Error {}

/**
 * The member list, kept between reads: it changes only when members are added or removed, so a poller
 * (every 3 s while the etcd view is visible) lists members every 30 s or when a status names an unknown
 * member — one etcdctl exec per read instead of two.
 */
export interface MemberCache {
  members?: EtcdRaw['members'];
  clusterId?: string | undefined;
  at?: number;
  maxAgeMs?: number;
}

/** member list + endpoint status --cluster (+ alarm list when `withAlarms`) through one runner. */
export async function readEtcd(run: EtcdctlRunner, baseArgs: string[], withAlarms = false, cache?: MemberCache, now = Date.now()): Promise<EtcdRaw> {
  const listMembers = async () => {
    const list = await run([...baseArgs, 'member', 'list', '-w', 'json']);
    if (list.code !== 0 || !list.stdout.trim()) throw new EtcdReadError(t('etcdctl member list failed (exit {0}): {1}', String(list.code), (list.stderr || list.stdout).trim().slice(0, 400)));
    const parsed = parseMemberList(list.stdout);
    if (cache) Object.assign(cache, { members: parsed.members, clusterId: parsed.clusterId, at: now });
    return parsed;
  };
  const fresh = cache?.members && cache.at !== undefined && now - cache.at < (cache.maxAgeMs ?? 30_000);
  let { members, clusterId } = fresh ? { members: cache!.members!, clusterId: cache!.clusterId } : await listMembers();
  const status = await run([...baseArgs, 'endpoint', 'status', '--cluster', '-w', 'json']);
  if (fresh && status.code !== 0 && !status.stdout.trim()) {
    // Nothing answered through the cached view: confirm with a real member list (it throws when etcd is unreachable).
    ({ members, clusterId } = await listMembers());
  }
  const statuses = parseEndpointStatus(status.stdout, status.stderr);
  if (fresh) {
    const known = new Set(members.map((m) => hexId(m.ID)));
    if (statuses.some((s) => s.status && !known.has(hexId(s.status.header?.member_id)))) ({ members, clusterId } = await listMembers());
  }
  // A member whose clientURL produced neither a status nor an error line: etcdctl gave up early.
  for (const m of members) {
    for (const u of m.clientURLs ?? []) {
      if (!statuses.some((s) => s.endpoint === u)) statuses.push({ endpoint: u, error: status.code !== 0 ? firstLine(status.stderr) || `exit ${status.code}` : t('no status') });
    }
  }
  const raw: EtcdRaw = { members, clusterId, statuses };
  if (withAlarms) {
    const alarms = await run([...baseArgs, 'alarm', 'list', '-w', 'json']);
    if (alarms.code === 0) raw.alarms = parseAlarmList(alarms.stdout);
  }
  return raw;
}

function firstLine(s: string): string {
  return s.trim().split('\n')[0] ?? '';
}

/**
 * The SSH source: a runner that executes etcdctl on `host` — the host's own etcdctl when present,
 * otherwise the one in the running etcd container via crictl.
 */
export function sshEtcdctl(remote: RemoteExec, host: string, sudo = false): EtcdctlRunner {
  return (args) => {
    const s = sudo ? sh`sudo -n ` : sh``;
    const script = sh`if command -v etcdctl >/dev/null 2>&1; then ETCDCTL_API=3 ${s}etcdctl ${args}; else c=$(${s}crictl ps -q --name '^etcd$' --state running 2>/dev/null | head -n1); [ -n "$c" ] || { echo 'no etcdctl on the host and no running etcd container' >&2; exit 127; }; ${s}crictl exec "$c" etcdctl ${args}; fi`;
    return remote.exec(host, script.text);
  };
}
