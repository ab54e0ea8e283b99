import { dirname, join } from 'node:path';
import * as vscode from 'vscode';
import { SshExecutor } from '../core/plan/sshExecutor';
import { renderPlan } from '../core/plan/types';
import { RunLogFile, RunOutput } from '../core/ssh/runLog';
import { executePlan, openLedger } from '../engine/bringUp';
import { hostsNeedingSudo, sudoUnlessRoot } from '../engine/become';
import { askSudoPassword } from '../editor/sudoPassword';
import { Ledger } from '../core/plan/ledger';
import { buildPlan, pickPhases } from '../editor/bringUpPlans';
import { RunTerminal } from '../editor/runTerminal';
import { requireTrust } from '../editor/trust';
import type { CommandContext } from './context';

/**
 * Runs the bring-up plan over SSH: the plan first (the exact commands), a modal to approve it, then
 * progress with cancel (cancel stops the remote commands), output in a run terminal and a run log,
 * and a ledger so a failed or cancelled run resumes at the failed step.
 */
export function bringUpCluster(ctx: CommandContext) {
  return async (): Promise<void> => {
    if (!(await requireTrust('bring up the cluster over SSH'))) return;
    const loaded = await ctx.inventory.get();
    if (!loaded?.inventory) {
      void vscode.window.showErrorMessage('Bring-up needs a valid inventory.yaml (see the Problems panel).');
      return;
    }
    const inv = loaded.inventory;
    const phases = await pickPhases('Bring up the cluster');
    if (!phases) return;
    let savedContext: string | undefined;
    let plan;
    try {
      plan = await buildPlan(inv, loaded.uri, phases, (context, path) => (savedContext = `${context} in ${path}`));
    } catch (e) {
      void vscode.window.showErrorMessage(`Cannot make the plan: ${(e as Error).message}`);
      return;
    }
    await ctx.reports.show('bring-up-plan.txt', renderPlan(plan));
    const state = { stateDir: join(dirname(loaded.uri.fsPath), '.kubeadm-workbench'), command: 'up', resume: true };
    const resumable = await Ledger.findResumable(join(state.stateDir, 'runs'), 'up', plan.fingerprint);
    const steps = plan.phases.reduce((n, p) => n + p.steps.length, 0);
    const hosts = new Set(plan.phases.flatMap((p) => p.steps.map((s) => s.host))).size;
    const run = resumable ? 'Resume' : 'Run';
    const answer = await vscode.window.showWarningMessage(
      `${run} ${steps} steps on ${hosts} hosts of ${inv.cluster.name}?`,
      { modal: true, detail: resumable ? `An unfinished run of this plan (${resumable.data.runId}) will continue at its failed step. The plan is open beside this dialog.` : 'The plan with every command is open beside this dialog. Steps whose effect is already there are skipped.' },
      run,
      ...(resumable ? ['Start over'] : []),
    );
    if (!answer) return;
    state.resume = answer === 'Resume';
    const { ledger } = await openLedger(plan, state);

    const pool = ctx.sessions.open(inv, vscode.workspace.getWorkspaceFolder(loaded.uri)?.uri);
    const sudo = await askSudoPassword(hostsNeedingSudo(plan, (h) => pool.loginUser(h)));
    if (!sudo) {
      await pool.close();
      return;
    }
    const output = new RunOutput(sudo.password ? [sudo.password] : []);
    const log = new RunLogFile(ledger.file.replace(/\.json$/, '.log'));
    output.addSink(log.sink);
    const abort = new AbortController();
    const terminal = new RunTerminal(`Kubeadm: bring-up ${inv.cluster.name}`, output, () => abort.abort());
    terminal.show(true);
    const started = Date.now();
    try {
      const result = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `Bring-up of ${inv.cluster.name}`, cancellable: true }, async (progress, token) => {
        token.onCancellationRequested(() => abort.abort());
        let finished = 0;
        return executePlan(plan, ledger, state, {
          executor: new SshExecutor(pool, sudoUnlessRoot((h) => pool.loginUser(h), sudo.password)),
          output,
          maxParallelHosts: vscode.workspace.getConfiguration('kubeadmWorkbench').get<number>('maxParallelHosts') ?? 10,
          signal: abort.signal,
          onEvent: (e) => {
            if (e.type === 'step-start') progress.report({ message: `${e.step.host}: ${e.step.title}` });
            if (e.type === 'step-end') progress.report({ increment: 100 / steps, message: `${++finished}/${steps} steps` });
          },
        });
      });
      const took = `${Math.round((Date.now() - started) / 1000)} s`;
      if (result.ok) {
        output.message(`done in ${took}`);
        terminal.finish(`bring-up of ${inv.cluster.name} done in ${took}`, true);
        void vscode.window.showInformationMessage(`${inv.cluster.name} is up (${took}).${savedContext ? ` Admin context ${savedContext}.` : ''}`);
      } else {
        const where = result.failed ? `${result.failed.step.host}: ${result.failed.step.title}` : 'unknown step';
        output.message(`${result.cancelled ? 'cancelled' : 'FAILED'} at ${where}`, undefined, 'error');
        terminal.finish(`${result.cancelled ? 'cancelled' : 'failed'} at ${where}; run the command again to resume`, false);
        const openLog = 'Open Run Log';
        const choice = await vscode.window.showErrorMessage(result.cancelled ? `Bring-up cancelled at ${where}. Run it again to resume.` : `Bring-up failed at ${where}: ${result.failed?.error ?? ''}. Run it again to resume at this step.`, openLog);
        if (choice === openLog) await vscode.window.showTextDocument(vscode.Uri.file(log.path));
      }
    } finally {
      await pool.close();
      await log.close();
    }
  };
}
