/**
 * `kubeadm-workbench status --inventory FILE [--kubeconfig FILE] [--context NAME] [--json]`: the model
 * the views show, read once (lists, no watches) — hosts and their nodes, control-plane pods, leases
 * with ages, etcd members with leader, term, index and the quorum line. With --ssh also what only the nodes
 * can tell: manifest drift, the balancers, every certificate (one under the warning threshold degrades) and the
 * scheduled etcd snapshots (the newest older than two intervals degrades). Exit 0 healthy, 1 degraded or the API
 * unreachable, 2 usage. For cron and CI.
 */
import { loadInventoryFile } from './inventoryFile';
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
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE, type CliIo } from './io';
import { errorMessage } from '../core/errors';
import { DEFAULT_THRESHOLDS, type CertThresholds } from '../core/certs/assess';
import { summarize } from '../core/certs/report';
import { servedCertificate } from '../adapters/tls/servedCertificate';
import { sudoUnlessRoot } from '../engine/become';
import { readDay2, type Day2Reading } from '../engine/day2Status';
import type { SshTransport } from '../core/ssh/transport';

const USAGE =
  'usage: kubeadm-workbench status --inventory FILE [--kubeconfig FILE] [--context NAME] [--json] [--no-etcd]\n' +
  '                                [--ssh [--ssh-config FILE] [--known-hosts FILE] [--warning-days 30] [--error-days 7]]\n' +
  '  --ssh: etcd over SSH when the API cannot, manifest drift, balancers, certificates, scheduled etcd snapshots\n';

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
  if (!/^\d{1,5}$/.test(text.trim())) throw new Error(`${flag}: "${text}" is not a whole number of days`);
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

export async function runStatus(args: string[], io: CliIo, deps: StatusDeps = {}): Promise<number> {
  const opts: { inventory?: string; kubeconfig?: string; context?: string; json: boolean; etcd: boolean; ssh: boolean; sshConfig?: string; knownHosts?: string; thresholds: CertThresholds } = { json: false, etcd: true, ssh: false, thresholds: { ...DEFAULT_THRESHOLDS } };
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const value = () => {
      const v = args[++i];
      if (!v) throw new Error(`${a} needs a value`);
      return v;
    };
    try {
      if (a === '--inventory') opts.inventory = value();
      else if (a === '--kubeconfig') opts.kubeconfig = value();
      else if (a === '--context') opts.context = value();
      else if (a === '--json') opts.json = true;
      else if (a === '--no-etcd') opts.etcd = false;
      else if (a === '--ssh') opts.ssh = true;
      else if (a === '--ssh-config') opts.sshConfig = value();
      else if (a === '--known-hosts') opts.knownHosts = value();
      else if (a === '--warning-days') opts.thresholds.warningDays = days(value(), a);
      else if (a === '--error-days') opts.thresholds.errorDays = days(value(), a);
      else throw new Error(`unknown argument ${a}`);
    } catch (e) {
      io.stderr(`${errorMessage(e)}\n${USAGE}`);
      return EXIT_USAGE;
    }
  }
  if (opts.thresholds.errorDays > opts.thresholds.warningDays) {
    io.stderr(`--error-days must not exceed --warning-days\n${USAGE}`);
    return EXIT_USAGE;
  }
  if (!opts.inventory) {
    io.stderr(USAGE);
    return EXIT_USAGE;
  }
  const inventory = await loadInventoryFile(opts.inventory, io, false);
  if (typeof inventory === 'number') return inventory;
  const connect = deps.connect ?? loadKubeAdapter().connect;
  const ssh = opts.ssh ? (deps.openSsh?.(inventory) ?? sshRemote(inventory, io, opts.sshConfig, opts.knownHosts)) : undefined;
  let conn;
  try {
    conn = await connect({ kubeconfig: opts.kubeconfig ?? '', context: opts.context ?? '', inventory, contextByEndpoint: 'prefer', ...(ssh ? { remote: ssh.remote } : {}) });
  } catch (e) {
    io.stderr(`kubeadm-workbench status: ${describeError(e)}\n`);
    await ssh?.close();
    return EXIT_FAILED;
  }
  try {
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
        io.stderr(`kubeadm-workbench status: ${h.state === 'unauthorised' ? h.headline : `API unreachable through ${conn.server}`}: ${msg}\n`);
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
              io.stderr(`manifests of ${n.host} not read: ${describeError(e)}\n`);
            }
          }),
      );
    }
    let balancers: BalancersModel | undefined;
    if (ssh && balancerHosts(inventory).length) {
      balancers = await readBalancers(rootRunnerOver(ssh.remote, (inventory.ssh.user ?? 'root') !== 'root', 15_000), inventory);
    }
    let day2: Day2Reading | undefined;
    if (ssh) {
      const { transport, loginUser } = ssh;
      const read =
        deps.readDay2 ??
        ((inv: Inventory, thresholds: CertThresholds) =>
          readDay2({ inventory: inv, ssh: transport, become: sudoUnlessRoot(loginUser), served: (address, port) => servedCertificate(address, port), kubeconfig: opts.kubeconfig ?? '', thresholds }));
      try {
        day2 = await read(inventory, opts.thresholds);
      } catch (e) {
        io.stderr(`certificates and snapshots not read: ${describeError(e)}\n`);
      }
    }
    const v = withProblems(verdict(model, { balancers }), day2?.problems ?? [])!;
    if (etcdError) v.problems.push({ severity: 'warning', what: `etcd not read: ${etcdError}` });
    if (!health.ok) {
      v.problems.push({ severity: 'critical', what: `API /readyz through ${conn.server}: ${health.error ?? 'not ready'}` });
      v.degraded = true;
    }
    const h = assessHealth({ ...facts, verdict: v });
    if (opts.json) {
      io.stdout(JSON.stringify({ context: conn.context, server: conn.server, health: h, readyz: { ok: health.ok, ms: Math.round(health.ms) }, degraded: v.degraded, summary: v.summary, problems: v.problems, model, balancers, etcdError, ...(day2 ? { certificates: summarize(day2.certificates), snapshots: day2.schedules } : {}) }, null, 2) + '\n');
    } else {
      const who = h.identity ? ` · as ${h.identity.username}` : '';
      const header = `cluster ${inventory.cluster.name} · context ${conn.context} · ${conn.server}${who} · readyz ${health.ok ? 'ok' : 'FAILING'} (${Math.round(health.ms)} ms)`;
      io.stdout(renderText(model, v, header, etcdError, balancers));
      io.stdout(`HEALTH: ${h.headline}\n`);
      if (h.state === 'unauthorised') for (const r of h.reasons) io.stdout(`  ${r}\n`);
    }
    return h.state === 'healthy' ? EXIT_OK : EXIT_FAILED;
  } finally {
    conn.dispose();
    await ssh?.close();
  }
}
