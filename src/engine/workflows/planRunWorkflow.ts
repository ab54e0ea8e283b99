/**
 * How a plan runs over SSH, written once for every operation that is a plan (bring-up, join, certificate renewal,
 * the backup timer, restore) and both front-ends: the plan shown; the sudo password asked once when a host is
 * reached as another user than root; the question — run, or resume an unfinished run of the same plan (or start
 * over); the run narrated (host-prefixed, redacted, into a run log next to its ledger) with progress and a cancel
 * that stops the remote commands; and after a failure, where and why, with the way to resume or start over.
 */
import { join } from 'node:path';
import type { Inventory } from '../../core/inventory/types';
import { hostCount, RunProgress, shouldSummarise } from '../../core/plan/hostProgress';
import type { RunEvent } from '../../core/plan/runner';
import { SshExecutor } from '../../core/plan/sshExecutor';
import { renderPlan, type Plan } from '../../core/plan/types';
import type { SshTransport } from '../../core/ssh/transport';
import { RunOutput } from '../../core/ssh/runLog';
import { RunLogFile } from '../state/runLogFile';
import { findResumable, refusedRunLines } from '../state/runLedger';
import { adviceLines } from '../advice';
import { hostsNeedingSudo, sudoUnlessRoot } from '../become';
import { executePlan, openLedger, type ExecuteResult } from '../bringUp';
import { ensureStateFolder } from '../stateFolder';
import { askSudoPassword, sudoPasswordCheck } from './become';
import { preflightStep } from './preflightStep';
import type { Ui } from './ui';
import { errorMessage } from '../../core/errors';
import { t } from '../../core/l10n';

/** The buttons of the run's questions, in the display language (a label is compared only with the same call's). */
function buttons(): { run: string; resume: string; startOver: string; openRunLog: string; runPreflight: string } {
  return {
    run: t('Run'),
    resume: t('Resume'),
    startOver: t('Start over'),
    openRunLog: t('Open Run Log'),
    /** Offered instead of Resume when the run could not reach a host: a resume would stop at the same place. */
    runPreflight: t('Run Preflight'),
  };
}

export interface PlanRunInput {
  inventory: Inventory;
  plan: Plan;
  /** The ledger's command name: runs resume only runs of the same command and plan. */
  command: string;
  /** "Bring-up of labs-k8s", "Join of labs-k8s-w03". */
  title: string;
  /** The plan document's name. */
  planDocument: string;
  /** `.kubeadm-workbench` next to the inventory: runs/ (ledgers and logs) and locks/. */
  stateDir: string;
  /** SSH to the hosts (the caller closes it). */
  ssh: SshTransport & { loginUser(host: string): string };
  maxParallelHosts: number;
  /** Do not offer to resume (CLI --fresh; the editor's "Start over"). */
  fresh?: boolean;
  /** How this front-end says "resume" and "start over" in the advice after a failure. */
  again: { resume: string; startOver: string };
  /** The message after a run that ended well (default "TITLE done (took)"). */
  onDone?: (took: string) => string;
  onEvent?: (event: RunEvent) => void;
  /** Told the sudo password once asked, for steps of the plan that run their own commands (the renewal's gates). */
  password?: (password: string | undefined) => void;
  /** Told where the run's log is as soon as it opens (the editor links it in its log channel). */
  onLog?: (path: string) => void;
  /** Given, once the run's narration opens, a way for the plan's in-process gates to narrate into it (and its log). */
  onNarration?: (say: (line: string, host?: string) => void) => void;
}

export type PlanRunOutcome = { kind: 'cancelled' | 'not-confirmed' } | { kind: 'ran'; result: ExecuteResult; logPath: string };

export async function planRunWorkflow(ui: Ui, input: PlanRunInput): Promise<PlanRunOutcome> {
  const { plan, inventory: inv } = input;
  await ui.show(input.planDocument, renderPlan(plan));
  const sudoHosts = hostsNeedingSudo(plan, (h) => input.ssh.loginUser(h));
  const sudo = await askSudoPassword(ui, sudoHosts, sudoPasswordCheck(input.ssh, sudoHosts));
  if (sudo === 'cancelled') return { kind: 'cancelled' };
  const state = { stateDir: input.stateDir, command: input.command, resume: !input.fresh };
  await ensureStateFolder(state.stateDir);
  const found = input.fresh ? undefined : await findResumable(join(state.stateDir, 'runs'), input.command, plan.fingerprint);
  const resumable = found?.ledger;
  // A run this user did not make here (it came with the repository, another user or machine wrote it, it was edited):
  // named with the reason, and never continued.
  const notResumed = refusedRunLines(found?.refused ?? []);
  if (notResumed.length) await ui.message('warning', t('{0}\nA new run starts instead; delete those files once you have looked at them.', notResumed.join('\n')));
  const steps = plan.phases.reduce((n, p) => n + p.steps.length, 0);
  const hosts = hostCount(plan.phases);
  const b = buttons();
  const run = resumable ? b.resume : input.fresh ? b.startOver : b.run;
  const answer = await ui.confirm({
    message: resumable
      ? t('Resume {0} steps on {1} hosts of {2}?', steps, hosts, inv.cluster.name)
      : input.fresh
        ? t('Start over {0} steps on {1} hosts of {2}?', steps, hosts, inv.cluster.name)
        : t('Run {0} steps on {1} hosts of {2}?', steps, hosts, inv.cluster.name),
    detail: resumable
      ? t('{0}. An unfinished run of this plan ({1}) will continue at its failed step; every step asks its host first whether its effect is there, and a host rebuilt since is started over. The plan is open beside this dialog.', input.title, resumable.data.runId)
      : t('{0}. The plan with every command is open beside this dialog. Steps whose effect is already there on the host are skipped.', input.title),
    actions: [run, ...(resumable ? [b.startOver] : [])],
  });
  if (!answer) return { kind: 'not-confirmed' };
  state.resume = answer === b.resume;
  input.password?.(sudo.password);

  const { ledger, resumed } = await openLedger(plan, state);
  const output = new RunOutput(sudo.password ? [sudo.password] : []);
  const log = await RunLogFile.open(ledger.file.replace(/\.json$/, '.log'), resumed);
  output.addSink(log.sink);
  input.onLog?.(log.path);
  input.onNarration?.((line, host) => output.message(line, host));
  const abort = new AbortController();
  const cancel = (): void => {
    if (!abort.signal.aborted) output.message(t('cancelling: stopping the remote commands…'), undefined, 'error');
    abort.abort();
  };
  // Over many hosts the narration and the progress summarise by state instead of narrating every host.
  const many = shouldSummarise(hosts);
  const progressByState = new RunProgress();
  const view = ui.openRun(`Kubeadm: ${input.title}`, output, cancel, { summarise: many });
  if (resumed) output.message(t('resuming run {0} (steps already done are skipped); every step asks its host first whether its effect is there', ledger.data.runId));
  const started = Date.now();
  let result: ExecuteResult;
  try {
    result = await ui.progress({ title: input.title, cancellable: true, onCancel: cancel }, (progress, signal) => {
      signal.addEventListener('abort', () => abort.abort());
      let finished = 0;
      return executePlan(plan, ledger, state, {
        executor: new SshExecutor(input.ssh, sudoUnlessRoot((h) => input.ssh.loginUser(h), sudo.password)),
        output,
        maxParallelHosts: input.maxParallelHosts,
        signal: abort.signal,
        resumed,
        onEvent: (e) => {
          input.onEvent?.(e);
          if (many) {
            progressByState.onEvent(e);
            if (e.type !== 'output') {
              const line = progressByState.line();
              view.status(line);
              progress(line, e.type === 'step-end' ? 100 / steps : undefined);
            }
            return;
          }
          if (e.type === 'step-start') progress(`${e.step.host}: ${e.step.title}`);
          if (e.type === 'step-end') progress(t('{0}/{1} steps', ++finished, steps), 100 / steps);
        },
      });
    });
  } catch (e) {
    view.finish(output.redactor.redact(`${input.title}: ${errorMessage(e)}`), false);
    await log.close();
    throw e;
  }
  const took = t('{0} s', ((Date.now() - started) / 1000).toFixed(1));
  if (result.ok) {
    output.message(t('done in {0}; run log {1}', took, log.path));
    view.finish(t('{0} done in {1}', input.title, took), true);
    await log.close();
    await ui.message('info', input.onDone?.(took) ?? t('{0} done ({1}).', input.title, took));
    return { kind: 'ran', result, logPath: log.path };
  }
  const where = result.failed ? `${result.failed.step.host}: ${result.failed.step.title}` : t('unknown step');
  output.message(result.cancelled ? t('cancelled after {0} at {1}', took, where) : t('FAILED after {0} at {1}', took, where), undefined, 'error');
  if (result.failed) output.message(result.failed.error, result.failed.step.host, 'error');
  const advice = result.advice ? adviceLines(result.advice, input.again.resume, input.again.startOver) : [];
  for (const line of advice) output.message(line, undefined, result.advice?.repeated ? 'error' : 'info');
  output.message(t('run log {0}', log.path));
  const unreachable = Boolean(result.advice?.unreachable);
  view.finish(
    unreachable
      ? t('failed at {0}: {1} could not be reached; run the preflight, fix what it names, then run again', where, result.failed?.step.host)
      : result.advice?.repeated
        ? result.cancelled ? t('cancelled at {0}; run the command again to resume — it failed the same way last time: choose "{1}"', where, b.startOver) : t('failed at {0}; run the command again to resume — it failed the same way last time: choose "{1}"', where, b.startOver)
        : result.cancelled ? t('cancelled at {0}; run the command again to resume, or choose "{1}"', where, b.startOver) : t('failed at {0}; run the command again to resume, or choose "{1}"', where, b.startOver),
    false,
  );
  await log.close();
  // A short cause and the way on; the command and its whole output are in the run terminal and the run log.
  const choice = await ui.message('error', output.redactor.redact(failureMessage(input.title, where, result)), {
    actions: unreachable ? [b.runPreflight, b.openRunLog] : [...(result.advice?.repeated ? [] : [b.resume]), b.startOver, b.openRunLog],
  });
  if (choice === b.openRunLog) await ui.openFile(log.path);
  if (choice === b.runPreflight) {
    const hosts = [...new Set(plan.phases.flatMap((p) => p.steps.map((x) => x.host)))];
    const pre = await preflightStep(ui, { ssh: input.ssh, inventory: inv, operation: input.title, hosts, sudoPasswordAsked: true });
    // Every host passes now: the run's question again (it resumes where this one stopped).
    if (pre.ok) return planRunWorkflow(ui, input);
  }
  // Asked again (the plan and the approval), with the run this one left or without it.
  if (choice === b.resume || choice === b.startOver) return planRunWorkflow(ui, { ...input, fresh: choice === b.startOver });
  return { kind: 'ran', result, logPath: log.path };
}

/** What the step's host said last: the error's words after the command (`… exited 1: E: Unable to locate package`). */
function lastWords(error: string): string | undefined {
  const m = /` (?:exited \d+|was killed by SIG\w+): (.+)$/s.exec(error);
  const said = m?.[1]?.trim().split('\n').pop();
  return said ? (said.length > 160 ? `${said.slice(0, 160)}…` : said) : undefined;
}

/** The failure's one message: where, the likely cause in plain words, the next step — never the command's text. */
export function failureMessage(title: string, where: string, result: ExecuteResult): string {
  const a = result.advice;
  if (result.cancelled) return t('{0} cancelled at {1}.', title, where);
  if (a?.unreachable) return t('{0} stopped at {1}: {2}. Resuming would stop at the same place: run the preflight, fix what it names, then run again.', title, where, a.cause);
  const said = result.failed ? lastWords(result.failed.error) : undefined;
  const known = a?.cause && !a.unknown;
  return [
    said ? t('{0} failed at {1} (it said: {2}).', title, where, said) : t('{0} failed at {1}.', title, where),
    known ? t('Likely cause: {0}.', a!.cause) : t('Its whole output is in the run log.'),
    a?.fix ? t('What to do: {0}.', a.fix) : '',
    a?.repeated ? t('It failed the same way last time: a resume would too — start over.') : '',
  ].filter(Boolean).join(' ');
}
