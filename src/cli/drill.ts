/**
 * `kubeadm-workbench drill --inventory FILE --host NAME [--kind stop|power-off|partition|haproxy|split-brain] ...`: the seed's
 * fault-tolerance chapter as a measured drill. One node fails — `stop` (over SSH: kubelet stopped,
 * every container SIGKILLed, the host stays up) or `power-off` (your hypervisor's command, run locally
 * without a shell: `--power-off-command 'govc vm.power -off {host}' --power-on-command 'govc vm.power
 * -on {host}'`) — and the drill measures, in seconds since the fault: HAProxy marking the backend DOWN
 * on each balancer, the etcd leader election (or "unchanged"), the scheduler and controller-manager
 * leases moving, the Node turning NotReady, failed API requests through the VIP, and for pods on the
 * node the taint-based evictions (optionally, with a finite wait). Then it restores the node — always,
 * also after an error or Ctrl-C — and measures the way back: Node Ready, etcd member caught up, HAProxy
 * backend UP. `partition` cuts a Kubernetes node's network while it keeps running (your --cut-command/--heal-command,
 * else an nftables table over SSH that heals itself). On a balancer (`--host` a load balancer): `power-off`/`stop`
 * (keepalived) of the VIP holder, `haproxy` (HAProxy stopped on the holder: the black hole) or `split-brain` (VRRP
 * blocked between the balancers) — the VIP's move timed against Master_Down_Interval, the requests through the VIP
 * that failed, and the way back (preempt or not).
 *
 * The plan (the exact commands, the quorum arithmetic, the expected numbers from this cluster's own
 * settings) is printed first and the drill asks before breaking anything unless --yes. It refuses when
 * the cluster could not take the failure (the control-plane guard: etcd quorum, other nodes, HAProxy
 * backends). --plan prints the plan and stops. --json prints the report as JSON on stdout (the running
 * commentary goes to stderr). Exit 0 when every measurement is within its bounds and the node came
 * back, 1 otherwise (or refused), 2 usage. The questions, refusals and cancel are the drill workflow's
 * (engine/workflows/drillWorkflow.ts), the editor's too; the sudo password for hosts reached as another user is
 * asked on the terminal with --ask-become-pass or when stdin is a terminal, else sudo -n (cli/terminalUi.ts).
 */
import { resolve } from 'node:path';
import type { KubeConnection } from '../adapters/kube/index';
import { parseGoDuration } from '../core/drill/params';
import { faultActsOverSsh, type DrillRequest, type FaultKind } from '../core/drill/plan';
import { describeError } from '../core/live/errors';
import { drillWorkflow } from '../engine/workflows/drillWorkflow';
import { preflightStep } from '../engine/workflows/preflightStep';
import { UsageError, type FlagSpec } from './args';
import { EXIT_FAILED, EXIT_OK } from './io';
import { sudoAsked } from './planRun';
import { SSH_FLAGS } from './sshFlags';
import { TerminalUi } from './terminalUi';
import { defineVerb, usageText, type ListedVerbs } from './verb';
import { t } from '../core/l10n';

const KINDS: readonly FaultKind[] = ['stop', 'power-off', 'partition', 'haproxy', 'split-brain'];

const FLAGS: FlagSpec = {
  inventory: 'string',
  host: 'list',
  kind: 'string',
  'power-off-command': 'string',
  'power-on-command': 'string',
  'cut-command': 'string',
  'heal-command': 'string',
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

/** The usage in the catalogue's language (read when printed): the command lines as typed, the notes beside two of them translated. */
const usage = (): string =>
  usageText([
    'kubeadm-workbench drill --inventory FILE --host NAME [--kind stop|power-off|partition|haproxy|split-brain]',
    `                               [--power-off-command 'CMD {host}' --power-on-command 'CMD {host}']   ${t('(power-off: run locally, no shell; {host} or {address})')}`,
    `                               [--cut-command 'CMD {host}' --heal-command 'CMD {host}']             ${t('(partition: your own cut, else nftables over SSH)')}`,
    '                               [--evictions-wait 0s] [--observe-limit D] [--restore-timeout 300s] [--poll 1s]',
    '                               [--kubeconfig F] [--context N] [--ssh-config F] [--known-hosts F] [--accept-new-host-key=SHA256:...] [--ask-become-pass]',
    '                               [--plan] [--yes] [--json]',
  ]);

/** `90s`, `5m`, `1m30s`, `1.5s` or bare seconds. */
function seconds(text: string | undefined, flag: string): number | undefined {
  if (text === undefined) return undefined;
  const trimmed = text.trim();
  const v = /^\d+(\.\d+)?$/.test(trimmed) ? Number(trimmed) * 1000 : parseGoDuration(trimmed);
  if (v === undefined || v < 0) throw new UsageError(t('--{0}: "{1}" is not a duration (e.g. 90s, 5m)', flag, text));
  return v / 1000;
}

export const runDrillVerb = defineVerb({
  words: 'drill', flags: FLAGS, usage, needs: { inventory: 'strict', ssh: {} },
  validate: (flags): DrillRequest => {
    const hosts = (flags.host as string[] | undefined) ?? [];
    if (hosts.length !== 1) throw new UsageError(t('give exactly one --host: a drill fails one node at a time'));
    const kind = (flags.kind as string | undefined) ?? (flags['power-off-command'] ? 'power-off' : flags['cut-command'] ? 'partition' : 'stop');
    if (!KINDS.includes(kind as FaultKind)) throw new UsageError(t('--kind must be one of {0} (got "{1}")', KINDS.join(', '), kind));
    if (kind !== 'power-off' && (flags['power-off-command'] || flags['power-on-command'])) throw new UsageError(t('--power-off-command/--power-on-command go with --kind power-off'));
    if (kind !== 'partition' && (flags['cut-command'] || flags['heal-command'])) throw new UsageError(t('--cut-command/--heal-command go with --kind partition'));
    const pollSeconds = seconds(flags.poll as string | undefined, 'poll');
    return {
      host: hosts[0]!,
      kind: kind as FaultKind,
      cutCommand: flags['cut-command'] as string | undefined,
      healCommand: flags['heal-command'] as string | undefined,
      powerOffCommand: flags['power-off-command'] as string | undefined,
      powerOnCommand: flags['power-on-command'] as string | undefined,
      evictionWaitSeconds: seconds(flags['evictions-wait'] as string | undefined, 'evictions-wait') ?? 0,
      observeSeconds: seconds(flags['observe-limit'] as string | undefined, 'observe-limit'),
      restoreSeconds: seconds(flags['restore-timeout'] as string | undefined, 'restore-timeout'),
      pollMs: pollSeconds === undefined ? undefined : pollSeconds * 1000,
    };
  },
  run: async ({ inventory, flags, io, stdin, prompter, options: req, ssh, kube }) => {
    const json = Boolean(flags.json);
    let api: KubeConnection;
    let probe: KubeConnection;
    try {
      api = await kube({ inventory });
      probe = await kube({ inventory, context: api.context, keepAlive: false });
    } catch (e) {
      io.stderr(`kubeadm-workbench drill: ${t('cannot connect to the cluster: {0}', describeError(e))}\n`);
      return EXIT_FAILED;
    }
    const pool = ssh();
    const ui = new TerminalUi({ io, prompter, yes: Boolean(flags.yes), askBecomePass: Boolean(flags['ask-become-pass']), interactive: Boolean((stdin as { isTTY?: boolean }).isTTY), json });
    // A host that does not answer is a measurement the drill cannot take (its report says so); a fault made over SSH needs its host.
    const all = inventory.hosts.map((h) => h.name);
    const tolerate = { hosts: all.filter((h) => !faultActsOverSsh(req) || h !== req.host) };
    const pre = await preflightStep(ui, { ssh: pool, inventory, operation: t('Failure drill on {0}', req.host), hosts: all, tolerate, sudoPasswordAsked: sudoAsked(flags, stdin) });
    if (!pre.ok) return EXIT_FAILED;
    (json ? io.stderr : io.stdout)(`${t('reading the cluster ({0}, context {1}) and the hosts of {2}…', api.server, api.context, resolve(flags.inventory as string))}\n`);
    const outcome = await drillWorkflow(ui, {
      inventory, ssh: pool, api: api.transport, probe: probe.transport, cwd: process.cwd(),
      loginUser: (h) => pool.loginUser(h), request: req, planOnly: Boolean(flags.plan),
    });
    if (outcome.kind === 'planned') return EXIT_OK;
    if (outcome.kind !== 'ran') return EXIT_FAILED;
    // the English report (its twin under another language): scripts match its text
    if (json) io.stdout(JSON.stringify(outcome.report.english ?? outcome.report, null, 2) + '\n');
    return outcome.report.ok ? EXIT_OK : EXIT_FAILED;
  },
});

/** What `kubeadm-workbench --help` lists of this file (ListedVerbs, ./verb.ts; npm run gen:tables copies it into main.ts). */
export const verbs = {
  drill: { summary: () => `drill --inventory F --host NAME [--kind stop|power-off|partition|haproxy|split-brain] [--power-off-command 'CMD {host}' --power-on-command 'CMD {host}'] [--evictions-wait 120s] [--plan] [--yes] [--json]   ${t('fail one node, measure HAProxy DOWN, etcd election, lease handover, NotReady, evictions; restore it and measure the way back')}`, run: runDrillVerb },
} satisfies ListedVerbs;
