/**
 * `kubeadm-workbench status --inventory FILE [--kubeconfig FILE] [--context NAME] [--json]`: the model
 * the views show, read once (lists, no watches) — hosts and their nodes, control-plane pods, leases
 * with ages, etcd members with leader, term, index and the quorum line. With --ssh also what only the nodes
 * can tell: manifest drift, the balancers, every certificate (one under the warning threshold degrades) and the
 * scheduled etcd snapshots (the newest older than two intervals degrades). Exit 0 healthy, 1 degraded or the API
 * unreachable, 2 usage. For cron and CI.
 */
import { describeError, errorKind } from '../core/live/errors';
import { assessHealth } from '../core/live/health';
import { readObjects } from '../core/live/once';
import { renderEtcd, renderText } from '../core/live/render';
import { buildLiveModel } from '../core/live/snapshot';
import { applyDrift, readManifests } from '../core/live/drift';
import { verdict, withProblems } from '../core/live/status';
import { balancerHosts, type BalancersModel } from '../core/live/balancers';
import { readBalancers, rootRunnerOver } from '../engine/balancers';
import { loadKubeAdapter } from '../adapters/kube/load';
import { remoteExecOver } from '../adapters/ssh/fromInventory';
import { poolFromFlags } from './sshFlags';
import type { Inventory } from '../core/inventory/types';
import type { RemoteExec } from '../core/live/etcdSource';
import { EXIT_FAILED, EXIT_OK, type CliIo } from './io';
import { UsageError, type FlagSpec, type Parsed } from './args';
import { t } from '../core/l10n';
import { defineVerb, usageText, type VerbFlags, type ListedVerbs } from './verb';
import { errorMessage } from '../core/errors';
import { DEFAULT_THRESHOLDS, type CertThresholds } from '../core/certs/assess';
import { summarize } from '../core/certs/report';
import { servedCertificate } from '../adapters/tls/servedCertificate';
import { sudoUnlessRoot } from '../engine/become';
import { readDay2, type Day2Reading } from '../engine/day2Status';
import type { SshTransport } from '../core/ssh/transport';

const usage = (): string =>
  usageText(
    ['kubeadm-workbench status --inventory FILE [--kubeconfig FILE] [--context NAME] [--json] [--no-etcd]', '                                [--ssh [--ssh-config FILE] [--known-hosts FILE] [--warning-days 30] [--error-days 7]]'],
    [t('--ssh: etcd over SSH when the API cannot, manifest drift, balancers, certificates, scheduled etcd snapshots')],
  );

type Connection = Awaited<ReturnType<ReturnType<typeof loadKubeAdapter>['connect']>>;

/** The SSH side of `--ssh`: the pool's transport (day-2 reads) and the same as the etcd source's RemoteExec. */
export interface StatusSsh {
  transport: SshTransport;
  loginUser: (host: string) => string;
  remote: RemoteExec;
  close: () => Promise<void>;
}

/** What a test may replace: the SSH side, the API connection and the day-2 reads over SSH. */
export interface StatusDeps {
  openSsh?: (inventory: Inventory) => StatusSsh;
  connect?: (opts: Parameters<ReturnType<typeof loadKubeAdapter>['connect']>[0]) => Promise<Connection>;
  readDay2?: (inventory: Inventory, thresholds: CertThresholds) => Promise<Day2Reading>;
}

function days(text: string, flag: string): number {
  if (!/^\d{1,5}$/.test(text.trim())) throw new UsageError(t('{0}: "{1}" is not a whole number of days', flag, text));
  return Number(text.trim());
}

/** The SSH layer's pool as the etcd source's RemoteExec (non-interactive: unknown host keys are refused). */
function sshRemote(inventory: Inventory, io: CliIo, sshConfig?: string, knownHosts?: string): StatusSsh {
  const pool = poolFromFlags(inventory, { 'ssh-config': sshConfig, 'known-hosts': knownHosts }, { report: (line) => io.stderr(`${line}\n`), connectTimeoutMs: 5000 });
  return {
    transport: pool,
    loginUser: (h) => pool.loginUser(h),
    remote: remoteExecOver(pool),
    close: () => pool.close(),
  };
}

const FLAGS: FlagSpec = { inventory: 'string', kubeconfig: 'string', context: 'string', json: 'boolean', 'no-etcd': 'boolean', ssh: 'boolean', 'ssh-config': 'string', 'known-hosts': 'string', 'warning-days': 'string', 'error-days': 'string' };

/** Status's grammar predates defineVerb and scripts match its messages ("unknown argument X"): `--flag value` only. */
function parseStatusArgs(args: string[]): Parsed {
  const flags: VerbFlags = {};
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const kind = a.startsWith('--') ? FLAGS[a.slice(2)] : undefined;
    if (!kind) throw new UsageError(t('unknown argument {0}', a));
    if (kind === 'boolean') flags[a.slice(2)] = true;
    else {
      const v = args[++i];
      if (!v) throw new UsageError(t('{0} needs a value', a));
      if (a.endsWith('-days')) days(v, a);
      flags[a.slice(2)] = v;
    }
  }
  // checked before the missing --inventory, as it always was
  const { errorDays, warningDays } = thresholdsOf(flags);
  if (errorDays > warningDays) throw new UsageError(t('--error-days must not exceed --warning-days'));
  return { flags, positionals: [] };
}

function thresholdsOf(flags: VerbFlags): CertThresholds {
  const given = (name: string, otherwise: number) => (flags[name] !== undefined ? days(flags[name] as string, `--${name}`) : otherwise);
  return { warningDays: given('warning-days', DEFAULT_THRESHOLDS.warningDays), errorDays: given('error-days', DEFAULT_THRESHOLDS.errorDays) };
}

interface StatusOptions {
  kubeconfig?: string;
  json: boolean;
  etcd: boolean;
  thresholds: CertThresholds;
}

/** The verb with what a test replaces (StatusDeps); `runStatus` is it with the real parts. */
export function statusVerb(deps: StatusDeps = {}) {
  return defineVerb({
    words: 'status', flags: FLAGS, parse: parseStatusArgs, usage, usageOnly: true, needs: { inventory: 'parsed' },
    validate: (flags): StatusOptions => ({ ...(flags.kubeconfig ? { kubeconfig: flags.kubeconfig as string } : {}), json: Boolean(flags.json), etcd: !flags['no-etcd'], thresholds: thresholdsOf(flags) }),
    run: async ({ inventory, flags, options: opts, io, onClose }) => {
      const connect = deps.connect ?? loadKubeAdapter().connect;
      const ssh = flags.ssh ? (deps.openSsh?.(inventory) ?? sshRemote(inventory, io, flags['ssh-config'] as string | undefined, flags['known-hosts'] as string | undefined)) : undefined;
      if (ssh) onClose(() => ssh.close());
      // A connection that cannot be made: "kubeadm-workbench status: <cause>", exit 1 (the boundary's words).
      const conn = await connect({ kubeconfig: opts.kubeconfig ?? '', context: (flags.context as string | undefined) ?? '', inventory, contextByEndpoint: 'prefer', ...(ssh ? { remote: ssh.remote } : {}) });
      onClose(() => conn.dispose());
      return statusReport(inventory, conn, ssh, opts, io, deps);
    },
  });
}

/** `status` as main.ts runs it; a test passes its StatusDeps. */
export function runStatus(argv: string[], io: CliIo, deps: StatusDeps = {}): Promise<number> {
  return statusVerb(deps)(argv, io);
}

/** The day-2 reads over SSH (certificates, pending CSRs, snapshots); undefined when they cannot be made. */
async function readHostsDay2(inventory: Inventory, ssh: StatusSsh, opts: StatusOptions, io: CliIo, deps: StatusDeps): Promise<Day2Reading | undefined> {
  const { transport, loginUser } = ssh;
  const read =
    deps.readDay2 ??
    ((inv: Inventory, thresholds: CertThresholds) =>
      readDay2({ inventory: inv, ssh: transport, become: sudoUnlessRoot(loginUser), served: (address, port) => servedCertificate(address, port), kubeconfig: opts.kubeconfig ?? '', thresholds }));
  try {
    return await read(inventory, opts.thresholds);
  } catch (e) {
    io.stderr(`${t('certificates and snapshots not read: {0}', describeError(e))}\n`);
    return undefined;
  }
}

/** What the cluster says, read once, printed; exit 0 healthy, else 1. */
async function statusReport(inventory: Inventory, conn: Connection, ssh: StatusSsh | undefined, opts: StatusOptions, io: CliIo, deps: StatusDeps): Promise<number> {
  // The balancers' VRRP state needs nothing of the API: it is read beside the API's reads, so a split brain is named
  // about one balancer read after the start rather than after every other read (issue 35's 5 s). Every path waits
  // for it (at most its 15 s runner limit), so no read outlives the command.
  const balancersRead = ssh && balancerHosts(inventory).length ? readBalancers(rootRunnerOver(ssh.remote, (inventory.ssh.user ?? 'root') !== 'root', 15_000), inventory) : undefined;
  try {
    return await statusOfCluster(inventory, conn, ssh, balancersRead, opts, io, deps);
  } finally {
    await balancersRead?.catch(() => undefined);
  }
}

async function statusOfCluster(inventory: Inventory, conn: Connection, ssh: StatusSsh | undefined, balancersRead: Promise<BalancersModel> | undefined, opts: StatusOptions, io: CliIo, deps: StatusDeps): Promise<number> {
  const facts = await conn.healthFacts();
  const health = { ok: facts.reach.ok, ms: facts.reach.ms, error: facts.reach.why };
  let objects;
  try {
    objects = await readObjects(conn.transport);
  } catch (e) {
    const msg = describeError(e);
    const kind = errorKind(e);
    const h = assessHealth({ ...facts, ...(kind === 'auth' || kind === 'forbidden' ? { denied: { kind, message: msg } } : {}) });
    // The API is down: etcd may still answer over SSH (--ssh) — show what it says.
    let etcdLines: string[] = [];
    let etcdModel;
    if (opts.etcd && ssh) {
      try {
        etcdModel = await conn.readEtcd();
        etcdLines = renderEtcd(etcdModel);
      } catch (err) {
        etcdLines = renderEtcd(undefined, describeError(err));
      }
    }
    if (opts.json) io.stdout(JSON.stringify({ context: conn.context, server: conn.server, health: h, readyz: { ok: health.ok, ms: Math.round(health.ms) }, error: msg, degraded: true, etcd: etcdModel }, null, 2) + '\n');
    else {
      io.stderr(`kubeadm-workbench status: ${h.state === 'unauthorised' ? h.headline : t('API unreachable through {0}', conn.server)}: ${msg}\n`);
      for (const r of h.state === 'unauthorised' ? h.reasons : []) io.stderr(`  ${r}\n`);
      if (etcdLines.length) io.stdout(etcdLines.join('\n') + '\n');
    }
    return EXIT_FAILED;
  }
  let etcdError: string | undefined;
  let etcd;
  if (opts.etcd) {
    try {
      etcd = await conn.readEtcd();
    } catch (e) {
      etcdError = errorMessage(e);
    }
  }
  const now = Date.now();
  const model = buildLiveModel(objects, now, inventory, etcd);
  if (ssh) {
    // Manifest drift: the files kubelet runs from vs the mirror pods the API shows.
    const sudo = (inventory.ssh.user ?? 'root') !== 'root';
    await Promise.all(
      model.controlPlane.nodes
        .filter((n) => n.host)
        .map(async (n) => {
          try {
            applyDrift(model.controlPlane, n.name, await readManifests(ssh.remote, n.host!, sudo), objects.pods);
          } catch (e) {
            io.stderr(`${t('manifests of {0} not read: {1}', n.host, describeError(e))}\n`);
          }
        }),
    );
  }
  const balancers: BalancersModel | undefined = await balancersRead;
  const day2 = ssh ? await readHostsDay2(inventory, ssh, opts, io, deps) : undefined;
  const v = withProblems(verdict(model, { balancers }), day2?.problems ?? [])!;
  // These two are problems of --json as well, whose text stays English (scripts read it).
  if (etcdError) v.problems.push({ severity: 'warning', what: `etcd not read: ${etcdError}` });
  if (!health.ok) {
    v.problems.push({ severity: 'critical', what: `API /readyz through ${conn.server}: ${health.error ?? 'not ready'}` });
    v.degraded = true;
  }
  const h = assessHealth({ ...facts, verdict: v });
  if (opts.json) {
    io.stdout(JSON.stringify({ context: conn.context, server: conn.server, health: h, readyz: { ok: health.ok, ms: Math.round(health.ms) }, degraded: v.degraded, summary: v.summary, problems: v.problems, model, balancers, etcdError, ...(day2 ? { certificates: summarize(day2.certificates), snapshots: day2.schedules } : {}) }, null, 2) + '\n');
  } else {
    const who = h.identity ? t(' · as {0}', h.identity.username) : '';
    const header = t('cluster {0} · context {1} · {2}{3} · readyz {4} ({5} ms)', inventory.cluster.name, conn.context, conn.server, who, health.ok ? 'ok' : 'FAILING', Math.round(health.ms));
    io.stdout(renderText(model, v, header, etcdError, balancers));
    io.stdout(`${t('HEALTH: {0}', h.headline)}\n`);
    if (h.state === 'unauthorised') for (const r of h.reasons) io.stdout(`  ${r}\n`);
  }
  return h.state === 'healthy' ? EXIT_OK : EXIT_FAILED;
}

/** What `kubeadm-workbench --help` lists of this file (ListedVerbs, ./verb.ts; npm run gen:tables copies it into main.ts). */
export const verbs = {
  status: { summary: () => `status --inventory F [--kubeconfig F] [--context N] [--json]   ${t('live cluster state; exit 1 when degraded')}`, run: runStatus },
} satisfies ListedVerbs;
