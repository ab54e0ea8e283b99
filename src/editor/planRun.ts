/**
 * How the editor runs a plan over SSH (bring-up, join): the plan opens beside a modal that asks to run
 * (or resume) it; the sudo password is asked when a host is not reached as root; then progress with
 * cancel (cancel stops the remote commands), output in a run terminal and a run log, and a ledger so
 * a failed or cancelled run resumes at the failed step.
 */
import { join } from 'node:path';
import * as vscode from 'vscode';
import { ensureStateFolder, stateFolderFor } from '../engine/stateFolder';
import type { Inventory } from '../core/inventory/types';
import { Ledger } from '../core/plan/ledger';
import { SshExecutor } from '../core/plan/sshExecutor';
import { renderPlan, type Plan } from '../core/plan/types';
import { RunLogFile, RunOutput } from '../core/ssh/runLog';
import { hostsNeedingSudo, sudoUnlessRoot } from '../engine/become';
import { adviceLines } from '../engine/advice';
import { executePlan, openLedger } from '../engine/bringUp';
import type { EditorServices as CommandContext } from './services';
import { RunProgress, shouldSummarise } from '../core/plan/hostProgress';
import { RunTerminal } from './runTerminal';
import { askSudoPassword } from './sudoPassword';
import { setting } from './settings';
import { log as channel } from './log';

/** Least time between two summary updates (a run over hundreds of hosts ends steps many times a second). */
const SUMMARY_EVERY_MS = 500;

export interface PlanRunRequest {
  inv: Inventory;
  inventoryUri: vscode.Uri;
  plan: Plan;
  /** The ledger's command name: runs resume only runs of the same command and plan. */
  command: string;
  /** "Bring-up of labs-k8s", "Join of labs-k8s-w03". */
  title: string;
  /** The report document's name for the plan. */
  planDocument: string;
}

const START_OVER = 'Start over';

/** Runs the plan after approval; true when it ran to the end. `fresh`: the user chose "Start over" after a failure. */
export async function approveAndRunPlan(ctx: CommandContext, req: PlanRunRequest, onDone?: (took: string) => string, fresh = false): Promise<boolean> {
  const { inv, plan } = req;
  await ctx.reports.show(req.planDocument, renderPlan(plan));
  const state = { stateDir: stateFolderFor(req.inventoryUri.fsPath), command: req.command, resume: !fresh };
  await ensureStateFolder(state.stateDir);
  const resumable = fresh ? undefined : await Ledger.findResumable(join(state.stateDir, 'runs'), req.command, plan.fingerprint);
  const steps = plan.phases.reduce((n, p) => n + p.steps.length, 0);
  const hosts = new Set(plan.phases.flatMap((p) => p.steps.map((s) => s.host))).size;
  const run = resumable ? 'Resume' : fresh ? START_OVER : 'Run';
  const answer = await vscode.window.showWarningMessage(
    `${run} ${steps} steps on ${hosts} hosts of ${inv.cluster.name}?`,
    {
      modal: true,
      detail: `${req.title}. ${resumable ? `An unfinished run of this plan (${resumable.data.runId}) will continue at its failed step; every step asks its host first whether its effect is there, and a host rebuilt since is started over. The plan is open beside this dialog.` : 'The plan with every command is open beside this dialog. Steps whose effect is already there on the host are skipped.'}`,
    },
    run,
    ...(resumable ? [START_OVER] : []),
  );
  if (!answer) return false;
  state.resume = answer === 'Resume';

  const pool = ctx.sessions.open(inv, vscode.workspace.getWorkspaceFolder(req.inventoryUri)?.uri);
  const sudo = await askSudoPassword(hostsNeedingSudo(plan, (h) => pool.loginUser(h)));
  if (!sudo) {
    await pool.close();
    return false;
  }
  const { ledger, resumed } = await openLedger(plan, state);
  const output = new RunOutput(sudo.password ? [sudo.password] : []);
  const log = new RunLogFile(ledger.file.replace(/\.json$/, '.log'));
  output.addSink(log.sink);
  channel.runLog(req.title, log.path);
  const abort = new AbortController();
  // Over many hosts the terminal and the notification summarise by state instead of narrating every host.
  const many = shouldSummarise(hosts);
  const runProgress = new RunProgress();
  const terminal = new RunTerminal(`Kubeadm: ${req.title}`, output, () => abort.abort(), many);
  terminal.show(true);
  const started = Date.now();
  let next: string | undefined;
  try {
    const result = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: req.title, cancellable: true }, async (progress, token) => {
      token.onCancellationRequested(() => abort.abort());
      let finished = 0;
      let shownAt = 0;
      const showSummary = (force: boolean) => {
        if (!force && Date.now() - shownAt < SUMMARY_EVERY_MS) return;
        shownAt = Date.now();
        const line = runProgress.line();
        terminal.status(line);
        progress.report({ message: line });
      };
      const ticker = many ? setInterval(() => showSummary(true), SUMMARY_EVERY_MS * 4) : undefined;
      token.onCancellationRequested(() => ticker && clearInterval(ticker));
      return executePlan(plan, ledger, state, {
        executor: new SshExecutor(pool, sudoUnlessRoot((h) => pool.loginUser(h), sudo.password)),
        output,
        maxParallelHosts: setting('maxParallelHosts'),
        signal: abort.signal,
        resumed,
        onEvent: (e) => {
          if (many) {
            runProgress.onEvent(e);
            if (e.type === 'step-end') progress.report({ increment: 100 / steps });
            if (e.type !== 'output') showSummary(e.type === 'phase' || (e.type === 'step-end' && e.state === 'failed'));
            return;
          }
          if (e.type === 'step-start') progress.report({ message: `${e.step.host}: ${e.step.title}` });
          if (e.type === 'step-end') progress.report({ increment: 100 / steps, message: `${++finished}/${steps} steps` });
        },
      }).finally(() => {
        if (ticker) clearInterval(ticker);
        if (many) showSummary(true);
      });
    });
    const took = `${Math.round((Date.now() - started) / 1000)} s`;
    if (result.ok) {
      output.message(`done in ${took}`);
      terminal.finish(`${req.title} done in ${took}`, true);
      void vscode.window.showInformationMessage(onDone?.(took) ?? `${req.title} done (${took}).`);
      return true;
    }
    const where = result.failed ? `${result.failed.step.host}: ${result.failed.step.title}` : 'unknown step';
    output.message(`${result.cancelled ? 'cancelled' : 'FAILED'} at ${where}`, undefined, 'error');
    const advice = result.advice ? adviceLines(result.advice, 'choose "Resume" (or run the command again)', 'choose "Start over"') : [];
    for (const line of advice) output.message(line);
    terminal.finish(`${result.cancelled ? 'cancelled' : 'failed'} at ${where}; run the command again to resume${result.advice?.repeated ? ' — it failed the same way last time: choose "Start over"' : ', or choose "Start over"'}`, false);
    const openLog = 'Open Run Log';
    const resume = 'Resume';
    const choice = await vscode.window.showErrorMessage(
      result.cancelled ? `${req.title} cancelled at ${where}.` : `${req.title} failed at ${where}: ${result.failed?.error ?? ''}. ${advice.join(' ')}`,
      ...(result.advice?.repeated ? [] : [resume]),
      START_OVER,
      openLog,
    );
    if (choice === openLog) await vscode.window.showTextDocument(vscode.Uri.file(log.path));
    if (choice === resume || choice === START_OVER) next = choice;
  } finally {
    await pool.close();
    await log.close();
  }
  // Asked again (the plan and the approval), with the run this one left or without it.
  return next ? approveAndRunPlan(ctx, req, onDone, next === START_OVER) : false;
}
