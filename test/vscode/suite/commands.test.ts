/**
 * The commands' one error boundary and declared needs (src/commands/context.ts), in the real extension host: a
 * command that throws shows one "‹title› failed: …" message instead of VS Code's generic failure, and a command
 * whose need is missing says which, with the words it declared, and never runs.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { api, workspaceFolder } from './helpers';
import { bindCommand, defineCommand, type CommandContext } from '../../../src/commands/context';

/** Records the window's error messages for the duration of `run`. */
async function errorsShownBy(run: () => Thenable<unknown>): Promise<{ shown: string[]; result: unknown }> {
  const w = vscode.window as unknown as Record<string, unknown>;
  const saved = w.showErrorMessage;
  const shown: string[] = [];
  w.showErrorMessage = async (message: string) => void shown.push(message);
  try {
    return { shown, result: await run() };
  } finally {
    w.showErrorMessage = saved;
  }
}

suite('command error boundary and needs', () => {
  test('a command that fails shows one message naming the command and resolves instead of rejecting', async () => {
    await api();
    // A regular file where the output folder's parent should be: the first write fails (ENOTDIR).
    const blocker = vscode.Uri.joinPath(workspaceFolder().uri, 'not-a-folder.txt');
    await vscode.workspace.fs.writeFile(blocker, new TextEncoder().encode('x\n'));
    try {
      const { shown, result } = await errorsShownBy(() => vscode.commands.executeCommand('kubeadm.generateClusterConfigs', { folder: vscode.Uri.joinPath(blocker, 'out'), overwrite: true }));
      assert.equal(result, undefined);
      assert.equal(shown.length, 1, shown.join('\n'));
      assert.match(shown[0]!, /^Generate Cluster Configs from Inventory failed: .*(ENOTDIR|not a directory|EEXIST)/i);
    } finally {
      await vscode.workspace.fs.delete(blocker, { useTrash: false });
    }
  });

  test('a missing inventory or cluster connection is said once, in the words the command declared, and the handler never runs', async () => {
    let ran = 0;
    const services = {
      inventory: { get: async () => undefined },
      connection: { ensure: async () => undefined, state: { kind: 'error', message: 'connect ECONNREFUSED 10.3.60.100:6443' } },
    } as unknown as CommandContext;
    const needsInventory = defineCommand({ inventory: 'A test drill' }, () => async () => void ran++);
    const needsCluster = defineCommand({ cluster: 'drain a test node' }, () => async () => void ran++);
    const a = await errorsShownBy(() => bindCommand(services, 'kubeadm.test', 'Test', needsInventory)());
    assert.deepEqual(a.shown, ['A test drill needs a valid inventory.yaml (see the Problems panel).']);
    const b = await errorsShownBy(() => bindCommand(services, 'kubeadm.test', 'Test', needsCluster)());
    assert.deepEqual(b.shown, ['Cannot drain a test node: no cluster connection (connect ECONNREFUSED 10.3.60.100:6443).']);
    assert.equal(ran, 0);
  });

  test('a cancelled command ends quietly; arguments reach the handler as given', async () => {
    const services = {} as CommandContext;
    const cancelled = defineCommand({}, () => async () => {
      throw Object.assign(new Error('The operation was aborted'), { name: 'AbortError' });
    });
    const echo = defineCommand({}, () => async (host?: string, n?: number) => `${host}:${n}`);
    const c = await errorsShownBy(() => bindCommand(services, 'kubeadm.test', 'Test', cancelled)());
    assert.deepEqual(c.shown, []);
    const d = await errorsShownBy(() => bindCommand(services, 'kubeadm.test', 'Test', echo)('m01', 2));
    assert.equal(d.result, 'm01:2');
  });
});
