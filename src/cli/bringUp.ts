/**
 * The engine verbs — `facts`, `plan`, `up`, `join` — over the same core and SSH layer as the extension:
 *   kubeadm-workbench facts --inventory FILE [--host NAME]... [--json]
 *   kubeadm-workbench plan  --inventory FILE [--phases a,b]
 *   kubeadm-workbench up    --inventory FILE [--phases a,b] [--yes] [--fresh] [--kubeconfig FILE] [--ask-become-pass]
 *   kubeadm-workbench join  --inventory FILE --host NAME... [--yes] [--fresh] [--ask-become-pass]
 * Common: [--ssh-config F] [--known-hosts F] [--own-known-hosts F] [--accept-new-host-key=SHA256:...]
 *         [--max-parallel N]
 * `up` prints the plan, asks before acting unless --yes, streams host-prefixed output (secrets
 * redacted) to the terminal and to a run log, resumes a failed run of the same plan unless
 * --fresh, and exits 1 naming the failed host and step.
 */
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { renderPlan, type Plan } from '../core/plan/types';
import { planView } from '../core/plan/view';
import { BRING_UP_PHASES, buildBringUpPlan, type BringUpPhase } from '../engine/bringUp';
import { phaseConfigs, phaseSources, readKubeadmExtra } from '../engine/inputs';
import { joinPhases, joinProblem, narrowToJoin } from '../engine/join';
import { checkKubeconfigTarget, saveAdminKubeconfig } from '../engine/kubeconfig';
import { waitUntilHealthy } from '../engine/clusterHealthy';
import { stateFolderFor, vrrpAuthPass } from '../engine/stateFolder';
import { planRunWorkflow } from '../engine/workflows/planRunWorkflow';
import { UsageError, type FlagSpec } from './args';
import { EXIT_FAILED, EXIT_OK, type CliIo } from './io';
import { SSH_FLAGS } from './sshFlags';
import type { Loaded } from './planRun';
import { TerminalUi } from './terminalUi';
import { defineVerb, usageText, type ListedVerbs, type SshGiven } from './verb';
import { factsWorkflow } from '../engine/workflows/factsWorkflow';
import { verbPreflight } from './verbPreflight';
import { errorMessage } from '../core/errors';
import { t } from '../core/l10n';

const COMMON: FlagSpec = { inventory: 'string', ...SSH_FLAGS, 'max-parallel': 'string' };

// ------------------------------------------------------------------ facts

const FACTS_USAGE = (): string => usageText(['kubeadm-workbench facts --inventory FILE [--host NAME]... [--json] [--ssh-config F] [--known-hosts F] [--accept-new-host-key=SHA256:...]']);

/** The pool of facts and the bring-up verbs: no host-key lines of its own (the preflight says them), the pool's connect timeout, --max-parallel. */
const BRING_UP_SSH = { report: false, connectTimeoutMs: 0, maxParallelHosts: 'from-flags' } as const;

/** The facts workflow (engine/workflows/factsWorkflow.ts, the editor's Gather Host Facts too) on this terminal. */
export const runFacts = defineVerb({
  words: 'facts', flags: { ...COMMON, host: 'list', json: 'boolean' }, usage: FACTS_USAGE, usageOnly: true,
  needs: { inventory: 'strict', ssh: BRING_UP_SSH },
  run: async ({ inventory, flags, io, prompter, stdin, ssh }) => {
    const pool = ssh();
    const asked = (flags.host as string[] | undefined) ?? [];
    // As the editor's Gather Host Facts: read where the preflight passed; a host that fails it is "not read" with its
    // cause, never a refusal (sudo -n reads one fact only: a sudo that wants a password is a warning) — so --json
    // still prints every host's failure when none answers, which is when a script reads them.
    const scope = inventory.hosts.filter((h) => !asked.length || asked.includes(h.name)).map((h) => h.name);
    const pre = scope.length ? await verbPreflight({ inventory, flags, io, prompter, stdin, ssh }, { operation: 'facts', hosts: scope, tolerate: { hosts: scope }, sudoPasswordAsked: true }) : undefined;
    if (pre && !pre.ok) return EXIT_FAILED;
    const ui = new TerminalUi({ io, prompter, yes: true, askBecomePass: false, interactive: false });
    const r = await factsWorkflow(ui, {
      inventory, ssh: pool, loginUser: (h) => pool.loginUser(h), hosts: asked, ...(pre ? { preflight: pre.report } : {}),
      onSummary: (line) => io.stderr(`.. facts: ${line}\n`),
    });
    const failures = r.notRead;
    if (flags.json) {
      io.stdout(JSON.stringify({ facts: r.facts, findings: r.findings, failures, ms: r.ms }, null, 2) + '\n');
    } else {
      for (const f of r.facts) {
        io.stdout(`${f.host}: ${f.os?.pretty ?? '?'} · kernel ${f.kernel ?? '?'} · machine-id ${f.machineId?.slice(0, 8) ?? '?'}… · swap ${f.swapActive.length ? 'ON' : 'off'} · containerd ${f.containerd?.version ?? '-'} · kubelet ${f.kubelet?.version ?? '-'} · kubeadm ${f.kubeadmVersion ?? '-'}\n`);
      }
      for (const x of r.findings) io.stdout(`${x.severity.toUpperCase()} ${x.host}: ${x.message} (${x.rule})\n    ${x.why}\n`);
      for (const f of failures) io.stderr(`${t('not read {0}: {1}', f.host, f.cause)}\n`);
      io.stdout(`${t('facts of {0}/{1} hosts in {2} ms; {3} error(s) in the facts read', r.facts.length, r.hosts.length, r.ms, r.findings.filter((f) => f.severity === 'error').length)}${failures.length ? t('; {0} host(s) not read', failures.length) : ''}\n`);
    }
    return failures.length || r.findings.some((f) => f.severity === 'error') ? EXIT_FAILED : EXIT_OK;
  },
});

// ------------------------------------------------------------------ plan / up

const PLAN_USAGE = (): string =>
  usageText([`kubeadm-workbench plan --inventory FILE [--phases ${BRING_UP_PHASES.join(',')}] [--format text|json]`], [t("--format json prints phases → hosts → steps with each command (secrets ***), the structure the editor's plan view shows")]);
const UP_USAGE = (): string =>
  usageText([`kubeadm-workbench up --inventory FILE [--phases ${BRING_UP_PHASES.join(',')}] [--yes] [--fresh] [--ask-become-pass] [--kubeconfig FILE] [--allow-kubeconfig-in-workspace] [--ssh-config F] [--known-hosts F] [--accept-new-host-key=SHA256:...] [--max-parallel N]`]);

const RUN_FLAGS: FlagSpec = { yes: 'boolean', fresh: 'boolean', kubeconfig: 'string', 'allow-kubeconfig-in-workspace': 'boolean', 'ask-become-pass': 'boolean' };

function phasesOf(flags: Loaded['flags']): BringUpPhase[] | string {
  const asked = (flags.phases as string[] | undefined) ?? [...BRING_UP_PHASES];
  if (!asked.length || asked.some((p) => !p.trim())) return t('--phases needs at least one phase: {0}', BRING_UP_PHASES.join(', '));
  const bad = asked.filter((p) => !(BRING_UP_PHASES as readonly string[]).includes(p));
  return bad.length ? t('unknown phase {0}; phases: {1}', bad.join(', '), BRING_UP_PHASES.join(', ')) : (asked as BringUpPhase[]);
}

async function makePlan(l: Loaded, io: CliIo, kubeconfig: string) {
  const phases = phasesOf(l.flags);
  if (typeof phases === 'string') throw new UsageError(phases);
  const sources = await phaseSources(l.inventory, dirname(l.inventoryPath), io.readFile);
  const extra = await readKubeadmExtra(l.inventory, dirname(l.inventoryPath), io.readFile);
  const vrrp = await vrrpAuthPass(stateFolderFor(l.inventoryPath));
  return buildBringUpPlan(l.inventory, phases, phaseConfigs(l.inventory, extra, vrrp), sources, {
    saveAdminKubeconfig: async (adminConf) => {
      const context = await saveAdminKubeconfig(kubeconfig, adminConf, l.inventory.cluster.name);
      io.stdout(`${t('admin credentials saved to {0} (0600) as context {1}', kubeconfig, context)}\n`);
    },
    clusterHealthy: (signal) => waitUntilHealthy({ inventory: l.inventory, kubeconfig, signal, say: (line) => io.stdout(`${line}\n`) }),
  });
}

function kubeconfigTarget(l: Loaded): string {
  return resolve((l.flags.kubeconfig as string | undefined) ?? process.env.KUBECONFIG?.split(':')[0] ?? join(homedir(), '.kube', 'config'));
}

export const runPlanVerb = defineVerb({
  words: 'plan', flags: { ...COMMON, phases: 'list', kubeconfig: 'string', format: 'string' }, usage: PLAN_USAGE, usageOnly: true, needs: { inventory: 'strict' },
  run: async (ctx) => {
    const { flags, io } = ctx;
    const format = (flags.format as string | undefined) ?? 'text';
    if (format !== 'text' && format !== 'json') throw new UsageError(t('--format is text or json, not {0}', format));
    const l: Loaded = ctx;
    let plan;
    try {
      plan = await makePlan(l, io, kubeconfigTarget(l));
    } catch (e) {
      if (e instanceof UsageError) throw e;
      io.stderr(`${errorMessage(e)}\n`);
      return EXIT_FAILED;
    }
    io.stdout(format === 'json' ? `${JSON.stringify(planView(plan), null, 2)}\n` : renderPlan(plan));
    return EXIT_OK;
  },
});

export const runUp = defineVerb({
  words: 'up', flags: { ...COMMON, ...RUN_FLAGS, phases: 'list' }, usage: UP_USAGE, usageOnly: true, needs: { inventory: 'strict', ssh: BRING_UP_SSH },
  run: async (ctx) => {
    const l: Loaded = ctx;
    const kubeconfig = kubeconfigTarget(l);
    let plan;
    try {
      await checkKubeconfigTarget(kubeconfig, dirname(l.inventoryPath), Boolean(l.flags['allow-kubeconfig-in-workspace']));
      plan = await makePlan(l, ctx.io, kubeconfig);
    } catch (e) {
      if (e instanceof UsageError) throw e;
      ctx.io.stderr(`${errorMessage(e)}\n`);
      return EXIT_FAILED;
    }
    return runApproved(ctx, plan, 'up', t('Bring-up of {0}', l.inventory.cluster.name));
  },
});

const JOIN_USAGE = (): string =>
  usageText(
    ['kubeadm-workbench join --inventory FILE --host NAME [--host NAME]... [--yes] [--fresh] [--ask-become-pass] [--ssh-config F] [--known-hosts F] [--accept-new-host-key=SHA256:...]'],
    [t('joins the named hosts of the inventory to the running cluster: their prepare steps, the join, the etcd and Ready gates'), t('(and the load balancer configuration when a control-plane node joins)')],
  );

export const runJoin = defineVerb({
  words: 'join', flags: { ...COMMON, ...RUN_FLAGS, host: 'list' }, usage: JOIN_USAGE, usageOnly: true, needs: { inventory: 'strict', ssh: BRING_UP_SSH },
  run: async (ctx) => {
    const l: Loaded = ctx;
    const hosts = (l.flags.host as string[] | undefined) ?? [];
    const problem = joinProblem(l.inventory, hosts);
    if (problem) throw new UsageError(`join: ${problem}`);
    let plan;
    try {
      const sources = await phaseSources(l.inventory, dirname(l.inventoryPath), ctx.io.readFile);
      const extra = await readKubeadmExtra(l.inventory, dirname(l.inventoryPath), ctx.io.readFile);
      const vrrp = await vrrpAuthPass(stateFolderFor(l.inventoryPath));
      const full = buildBringUpPlan(l.inventory, joinPhases(l.inventory, hosts), phaseConfigs(l.inventory, extra, vrrp), sources, { saveAdminKubeconfig: async () => undefined });
      plan = narrowToJoin(l.inventory, hosts, full);
    } catch (e) {
      ctx.io.stderr(`${errorMessage(e)}\n`);
      return EXIT_FAILED;
    }
    return runApproved(ctx, plan, 'join', t('Join of {0}', hosts.join(', ')));
  },
});

/** The plan-run workflow (engine/workflows/planRunWorkflow.ts) on this terminal: preflight, plan, sudo password, question unless --yes, run. */
async function runApproved(ctx: { io: CliIo; planRun: SshGiven['planRun'] } & Pick<Loaded, 'inventory'>, plan: Plan, command: string, title: string): Promise<number> {
  const { ui, run, preflight } = ctx.planRun();
  // Every host the plan touches answers, takes our key and lets us become root — or nothing is asked.
  if (!(await preflight(title, [...new Set(plan.phases.flatMap((p) => p.steps.map((s) => s.host)))]))) return EXIT_FAILED;
  const outcome = await planRunWorkflow(ui, { ...run, inventory: ctx.inventory, plan, command, title, planDocument: `${command}-plan.txt` });
  // No answer to a question (the input ended, e.g. after a sudo password the hosts refused): nothing ran; say so.
  if (outcome.kind === 'cancelled') ctx.io.stderr(`${t('{0}: not started — a question had no answer (the input ended); nothing ran.', title)}\n`);
  return outcome.kind === 'ran' && outcome.result.ok ? EXIT_OK : EXIT_FAILED;
}

/** What `kubeadm-workbench --help` lists of this file (ListedVerbs, ./verb.ts; npm run gen:tables copies it into main.ts). */
export const verbs = {
  facts: { summary: () => `facts --inventory F [--host NAME]... [--json]   ${t('gather host facts in parallel; flag cloned VMs, swap, modules, cgroup drivers')}`, run: runFacts },
  plan: { summary: () => `plan --inventory F [--phases a,b] [--format text|json]   ${t('print the bring-up plan: the exact commands per host (json: phases → hosts → steps)')}`, run: runPlanVerb },
  up: { summary: () => `up --inventory F [--phases a,b] [--yes] [--fresh] [--ask-become-pass]   ${t('run the bring-up plan over SSH (resumes a failed run; sudo for non-root logins)')}`, run: runUp },
  join: { summary: () => `join --inventory F --host NAME... [--yes] [--ask-become-pass]   ${t('join inventory hosts to the running cluster (prepare, join, etcd and Ready gates)')}`, run: runJoin },
} satisfies ListedVerbs;
