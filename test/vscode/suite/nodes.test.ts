/**
 * Remove from Cluster…, Replace… and Reset Host… on the Inventory's host rows, in real VS Code, where the example
 * inventory's hosts do not answer over SSH (no lab here; the whole path with SSH, etcd and HAProxy is the lab tier's
 * test/lab/nodes.test.ts): each command reaches its refusal before acting — a modal naming the reasons, a report
 * document with what was found — and never gets to a plan or a run.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';

type Shown = { kind: string; message: string; modal: boolean };

function answerDialogs(quickPick?: (items: readonly vscode.QuickPickItem[]) => unknown, input?: () => string | undefined): { shown: Shown[]; restore: () => void } {
  const w = vscode.window as unknown as Record<string, unknown>;
  const saved = { showQuickPick: w.showQuickPick, showWarningMessage: w.showWarningMessage, showInformationMessage: w.showInformationMessage, showErrorMessage: w.showErrorMessage, showInputBox: w.showInputBox };
  const shown: Shown[] = [];
  const record = (kind: string) => async (message: string, ...rest: unknown[]) => {
    shown.push({ kind, message, modal: rest.some((r) => typeof r === 'object' && r !== null && (r as { modal?: boolean }).modal === true) });
    return undefined;
  };
  w.showQuickPick = async (items: readonly vscode.QuickPickItem[] | Thenable<readonly vscode.QuickPickItem[]>) => quickPick?.(await items);
  w.showWarningMessage = record('warning');
  w.showInformationMessage = record('info');
  w.showErrorMessage = record('error');
  w.showInputBox = async () => input?.();
  return { shown, restore: () => Object.assign(w, saved) };
}

const doc = (name: string) => vscode.workspace.textDocuments.find((t) => t.uri.path === `/${name}`)?.getText() ?? '';
const row = (name: string, address: string, role: string) => ({ kind: 'host', role, host: { name, address, roles: [role] } });

suite('Remove, Replace and Reset on host rows', function () {
  this.timeout(120_000);

  test('Reset Host… of a host that does not answer: refused before acting, with the reasons', async () => {
    const d = answerDialogs();
    try {
      await vscode.commands.executeCommand('kubeadm.resetHost', row('labs-k8s-w02', '10.3.60.55', 'worker'));
    } finally {
      d.restore();
    }
    const refusal = d.shown.find((s) => s.kind === 'error' && s.message.startsWith('Reset of labs-k8s-w02 refused:'));
    assert.ok(refusal?.modal, JSON.stringify(d.shown));
    assert.match(refusal.message, /labs-k8s-w02 does not answer over SSH: nothing can be reset there/);
    assert.ok(!d.shown.some((s) => s.kind === 'warning' && /^Run \d+ steps/.test(s.message)), 'no plan was offered to run');
    const report = doc('reset-labs-k8s-w02.txt');
    assert.match(report, /labs-k8s-w02: does not answer/);
    assert.match(report, /Refused; nothing was done:/);
  });

  test('Remove from Cluster… of a control-plane node when no control-plane host answers: refused (etcd cannot be read)', async () => {
    const d = answerDialogs();
    try {
      await vscode.commands.executeCommand('kubeadm.removeNode', row('labs-k8s-m01', '10.3.60.51', 'control-plane'));
    } finally {
      d.restore();
    }
    const refusal = d.shown.find((s) => s.kind === 'error' && s.message.startsWith('Remove of labs-k8s-m01 refused:'));
    assert.ok(refusal?.modal, JSON.stringify(d.shown));
    assert.match(refusal.message, /etcd cannot be read on any control-plane host that answers/);
    assert.match(refusal.message, /balancer labs-k8s-balancer does not answer/);
  });

  test('Replace… asks for the new host; a new name and address typed in, then refused while nothing answers', async () => {
    const typed = ['labs-k8s-m04', '10.3.60.57'];
    const d = answerDialogs((items) => items.find((i) => /not in the inventory/.test(i.label)), () => typed.shift());
    try {
      await vscode.commands.executeCommand('kubeadm.replaceNode', row('labs-k8s-m01', '10.3.60.51', 'control-plane'));
    } finally {
      d.restore();
    }
    const refusal = d.shown.find((s) => s.kind === 'error' && s.message.startsWith('Replace of labs-k8s-m01 refused:'));
    assert.ok(refusal, JSON.stringify(d.shown));
    assert.match(refusal.message, /the new host labs-k8s-m04 does not answer over SSH/);
    assert.deepEqual(typed, [], 'the name and the address were asked');
  });
});
