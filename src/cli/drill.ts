/**
 * `kubeadm-workbench drill --inventory FILE --host NAME [--kind stop|power-off] ...`: the seed's
 * fault-tolerance chapter as a measured drill. One node fails — `stop` (over SSH: kubelet stopped,
 * every container SIGKILLed, the host stays up) or `power-off` (your hypervisor's command, run locally
 * without a shell: `--power-off-command 'govc vm.power -off {host}' --power-on-command 'govc vm.power
 * -on {host}'`) — and the drill measures, in seconds since the fault: HAProxy marking the backend DOWN
 * on each balancer, the etcd leader election (or "unchanged"), the scheduler and controller-manager
 * leases moving, the Node turning NotReady, failed API requests through the VIP, and for pods on the
 * node the taint-based evictions (optionally, with a finite wait). Then it restores the node — always,
 * also after an error or Ctrl-C — and measures the way back: Node Ready, etcd member caught up, HAProxy
 * backend UP.
 *
 * The plan (the exact commands, the quorum arithmetic, the expected numbers from this cluster's own
 * settings) is printed first and the drill asks before breaking anything unless --yes. It refuses when
 * the cluster could not take the failure (the control-plane guard: etcd quorum, other nodes, HAProxy
 * backends). --plan prints the plan and stops. --json prints the report as JSON on stdout (the running
 * commentary goes to stderr). Exit 0 when every measurement is within its bounds and the node came
 * back, 1 otherwise (or refused), 2 usage.
 */
import { resolve } from 'node:path';
import type { KubeConnection } from '../adapters/kube/index';
import { loadKubeAdapter } from '../adapters/kube/load';
import { loadInventoryFile } from './inventoryFile';
import { parseGoDuration } from '../core/drill/params';
import { renderDrillPlan, type DrillRequest } from '../core/drill/plan';
import { renderDrillReport } from '../core/drill/report';
import { describeError } from '../core/live/errors';
import { formatRunLine, RunOutput } from '../core/ssh/runLog';
import { sudoUnlessRoot } from '../engine/become';
import { prepareDrill, runDrill, type DrillDeps } from '../engine/drill';
import { parseFlags, UsageError, type FlagSpec } from './args';
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE, type CliIo } from './io';
import { Prompter } from './secretPrompt';
import { poolFromFlags, SSH_FLAGS } from './sshFlags';

const FLAGS: FlagSpec = {
  inventory: 'string',
  host: 'list',
  kind: 'string',
  'power-off-command': 'string',
  'power-on-command': 'string',
  'evictions-wait': 'string',
  'observe-limit': 'string',
  'restore-timeout': 'string',
  poll: 'string',
  kubeconfig: 'string',
  context: 'string',
  ...SSH_FLAGS,
  'ask-become-pass': 'boolean',
  yes: 'boolean',
  plan: 'boolean',
  json: 'boolean',
};

const USAGE =
  'usage: kubeadm-workbench drill --inventory FILE --host NAME [--kind stop|power-off]\n' +
  "                               [--power-off-command 'CMD {host}' --power-on-command 'CMD {host}']   (power-off: run locally, no shell; {host} or {address})\n" +
  '                               [--evictions-wait 0s] [--observe-limit D] [--restore-timeout 300s] [--poll 1s]\n' +
  '                               [--kubeconfig F] [--context N] [--ssh-config F] [--known-hosts F] [--accept-new-host-key=SHA256:...] [--ask-become-pass]\n' +
  '                               [--plan] [--yes] [--json]\n';

/** `90s`, `5m`, `1m30s`, `1.5s` or bare seconds. */
function seconds(text: string | undefined, flag: string): number | undefined {
  if (text === undefined) return undefined;
  const t = text.trim();
  const v = /^\d+(\.\d+)?$/.test(t) ? Number(t) * 1000 : parseGoDuration(t);
  if (v === undefined || v < 0) throw new UsageError(`--${flag}: "${text}" is not a duration (e.g. 90s, 5m)`);
  return v / 1000;
}

export async function runDrillVerb(argv: string[], io: CliIo, stdin: NodeJS.ReadableStream = process.stdin): Promise<number> {
  let flags: Record<string, string | boolean | string[] | undefined>;
  let req: DrillRequest;
  try {
    const parsed = parseFlags(argv, FLAGS);
    flags = parsed.flags;
    if (parsed.positionals.length) throw new UsageError(`unexpected argument ${parsed.positionals[0]}`);
    if (!flags.inventory) throw new UsageError('--inventory is required');
    const hosts = (flags.host as string[] | undefined) ?? [];
    if (hosts.length !== 1) throw new UsageError('give exactly one --host: a drill fails one node at a time');
    const kind = (flags.kind as string | undefined) ?? (flags['power-off-command'] ? 'power-off' : 'stop');
    if (kind !== 'stop' && kind !== 'power-off') throw new UsageError(`--kind must be stop or power-off (got "${kind}")`);
    if (kind === 'stop' && (flags['power-off-command'] || flags['power-on-command'])) throw new UsageError('--power-off-command/--power-on-command go with --kind power-off');
    const pollSeconds = seconds(flags.poll as string | undefined, 'poll');
    req = {
      host: hosts[0]!,
      kind,
      powerOffCommand: flags['power-off-command'] as string | undefined,
      powerOnCommand: flags['power-on-command'] as string | undefined,
      evictionWaitSeconds: seconds(flags['evictions-wait'] as string | undefined, 'evictions-wait') ?? 0,
      observeSeconds: seconds(flags['observe-limit'] as string | undefined, 'observe-limit'),
      restoreSeconds: seconds(flags['restore-timeout'] as string | undefined, 'restore-timeout'),
      pollMs: pollSeconds === undefined ? undefined : pollSeconds * 1000,
    };
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    io.stderr(`${e.message}\n${USAGE}`);
    return EXIT_USAGE;
  }
  const inventoryPath = flags.inventory as string;
  const inventory = await loadInventoryFile(inventoryPath, io);
  if (typeof inventory === 'number') return inventory;
  const json = Boolean(flags.json);
  // With --json, stdout carries only the report; everything a person reads goes to stderr.
  const say = (s: string) => (json ? io.stderr(s) : io.stdout(s));

  const adapter = loadKubeAdapter();
  let api: KubeConnection;
  let probe: KubeConnection;
  const kube = { kubeconfig: (flags.kubeconfig as string | undefined) ?? '', context: (flags.context as string | undefined) ?? '', inventory };
  try {
    api = await adapter.connect(kube);
  } catch (e) {
    io.stderr(`kubeadm-workbench drill: cannot connect to the cluster: ${describeError(e)}\n`);
    return EXIT_FAILED;
  }
  try {
    probe = await adapter.connect({ ...kube, context: api.context, keepAlive: false });
  } catch (e) {
    api.dispose();
    io.stderr(`kubeadm-workbench drill: cannot connect to the cluster: ${describeError(e)}\n`);
    return EXIT_FAILED;
  }
  const pool = poolFromFlags(inventory, flags, { report: (line) => io.stderr(`${line}\n`), connectTimeoutMs: 8000 });
  const prompter = new Prompter(stdin);
  const output = new RunOutput();
  output.addSink((line) => say(formatRunLine(line) + '\n'));
  let onSignal: (() => void) | undefined;
  try {
    let password: string | undefined;
    const loginUser = (h: string): string => {
      try {
        return pool.loginUser(h);
      } catch {
        return 'root'; // a configuration error: the first command on that host reports it
      }
    };
    const nonRoot = [...new Set(inventory.hosts.map((h) => loginUser(h.name)).filter((u) => u !== 'root'))];
    if (nonRoot.length && flags['ask-become-pass']) {
      password = await prompter.askSecret(`sudo password for ${nonRoot.join(', ')}: `);
      output.addSecrets([password]);
    }
    const deps: DrillDeps = {
      inventory,
      ssh: pool,
      api: api.transport,
      probe: probe.transport,
      become: sudoUnlessRoot((h) => pool.loginUser(h), password),
      output,
      cwd: process.cwd(),
    };
    say(`reading the cluster (${api.server}, context ${api.context}) and the hosts of ${resolve(inventoryPath)}…\n`);
    let plan;
    try {
      ({ plan } = await prepareDrill(deps, req));
    } catch (e) {
      io.stderr(`kubeadm-workbench drill: cannot read the cluster: ${describeError(e)}\n`);
      return EXIT_FAILED;
    }
    say(renderDrillPlan(plan));
    if (plan.refusals.length) {
      io.stderr(`the drill is refused; nothing was done:\n${plan.refusals.map((r) => `  - ${r}`).join('\n')}\n`);
      return EXIT_FAILED;
    }
    if (flags.plan) return EXIT_OK;
    if (!flags.yes) {
      const what = plan.kind === 'power-off' ? `power off ${plan.target.host}` : `stop Kubernetes on ${plan.target.host}`;
      const answer = await prompter.ask(`This will ${what} and restore it afterwards. Run the drill? [y/N] `);
      if (!/^y(es)?$/i.test(answer.trim())) {
        io.stderr('not confirmed; nothing was done (use --yes to run without asking).\n');
        return EXIT_FAILED;
      }
    }
    const abort = new AbortController();
    let signals = 0;
    onSignal = () => {
      signals++;
      if (signals === 1) output.message(`cancelling: stopping the observation; ${plan.target.host} is restored before exiting…`, undefined, 'error');
      else output.message(`still restoring ${plan.target.host}; wait for it (by hand: ${plan.restore?.where === 'local' ? plan.restore.command.display : plan.restore ? `ssh ${plan.restore.host} '${plan.restore.command.display}'` : '?'})`, undefined, 'error');
      abort.abort();
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    const report = await runDrill(deps, plan, { signal: abort.signal });
    if (json) io.stdout(JSON.stringify(report, null, 2) + '\n');
    else io.stdout('\n' + renderDrillReport(report));
    return report.ok ? EXIT_OK : EXIT_FAILED;
  } finally {
    if (onSignal) {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
    prompter.close();
    api.dispose();
    probe.dispose();
    await pool.close();
  }
}
