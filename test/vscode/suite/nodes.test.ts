/**
 * Remove from Cluster…, Replace… and Reset Host… on the Inventory's host rows, in real VS Code. Where the example
 * inventory's hosts do not answer over SSH (the harness sends every host to a closed port on loopback), each command
 * is refused by the preflight before its first question — the table, one message — and never gets to a plan or a
 * run (a node being removed or replaced may itself be dead: the others are what refuses). With the example cluster's hosts played below SSH (test/unit/nodes/clusterHosts.ts, put in place
 * of the connections through the extension's test API), Remove runs to its end and the inventory edit lands in
 * inventory.yaml unsaved. The whole path with SSH, etcd and HAProxy is the lab tier's (test/lab/nodes.test.ts).
 */
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as vscode from 'vscode';
import { api, inventoryUri, scripted } from './helpers';
import { ClusterHosts } from '../../unit/nodes/clusterHosts';

const doc = (name: string) => vscode.workspace.textDocuments.find((t) => t.uri.path === `/${name}`)?.getText() ?? '';
const row = (name: string, address: string, role: string) => ({ kind: 'host', role, host: { name, address, roles: [role] } });

suite('Remove, Replace and Reset on host rows', function () {
  this.timeout(120_000);

  test('Reset Host… of a host that does not answer: refused by the preflight before any question, with its table', async () => {
    const ui = await scripted({ confirm: (r) => r.actions[0] });
    try {
      await vscode.commands.executeCommand('kubeadm.resetHost', row('labs-k8s-w02', '10.3.60.55', 'worker'));
    } finally {
      ui.restore();
    }
    assert.equal(ui.preflights[0]?.refused, 'Reset Host', ui.transcript.join('\n'));
    assert.match(ui.messages('error')[0]!, /^Reset Host refused before it asked anything: 6 of 6 hosts fail the preflight — first: labs-k8s-balancer: nothing listens on 127\.0\.0\.1 port \d+/);
    assert.ok(!ui.transcript.some((t) => /^(confirm|pick|input|secret):/.test(t)), ui.transcript.join('\n'));
  });

  test('Remove from Cluster… of a control-plane node when no other host answers: refused before any question (the node itself may be dead)', async () => {
    const ui = await scripted({ confirm: (r) => r.actions[0] });
    try {
      await vscode.commands.executeCommand('kubeadm.removeNode', row('labs-k8s-m01', '10.3.60.51', 'control-plane'));
    } finally {
      ui.restore();
    }
    assert.match(ui.messages('error')[0]!, /^Remove from Cluster refused before it asked anything: 5 of 6 hosts fail the preflight/, ui.transcript.join('\n'));
    const m01 = ui.preflights[0]!.report.hosts.find((h) => h.host === 'labs-k8s-m01');
    assert.ok(m01, 'the node being removed is checked too, and shown');
    assert.equal(ui.confirms.length, 0);
  });

  test('Replace… while nothing answers: refused before the new host is asked', async () => {
    const typed = ['labs-k8s-m04', '10.3.60.57'];
    const ui = await scripted({ pick: (_t, items) => items.find((i) => /not in the inventory/.test(i.label)), input: () => typed.shift() });
    try {
      await vscode.commands.executeCommand('kubeadm.replaceNode', row('labs-k8s-m01', '10.3.60.51', 'control-plane'));
    } finally {
      ui.restore();
    }
    assert.match(ui.messages('error')[0]!, /^Replace refused before it asked anything: 5 of 6 hosts fail the preflight/, ui.transcript.join('\n'));
    assert.equal(typed.length, 2, 'neither the name nor the address was asked');
  });

  test('Join Hosts… run the moment inventory.yaml changed (an edit, then a revert) offers the hosts the editor shows', async () => {
    // The model is re-parsed a moment after each change; a command started in that moment — the lab's palette test
    // reverted the Remove's edit and ran Join at once — must not get the model of the text before.
    const onDisk = readFileSync(inventoryUri().fsPath, 'utf8');
    const edited = await vscode.workspace.openTextDocument(inventoryUri());
    const offered: string[][] = [];
    // The hosts answer (played below SSH): the preflight passes and the pick is offered.
    const a = await api();
    a.substituteSsh!((inv) => new ClusterHosts(inv));
    const ui = await scripted({ pickMany: (_t, items) => (offered.push(items.map((i) => i.label)), undefined) });
    const setText = async (text: string) => {
      const e = new vscode.WorkspaceEdit();
      e.replace(edited.uri, new vscode.Range(edited.positionAt(0), edited.positionAt(edited.getText().length)), text);
      assert.ok(await vscode.workspace.applyEdit(e));
    };
    try {
      await setText(onDisk.replace(/^ {2}- \{ name: labs-k8s-w02,.*\n/m, ''));
      await vscode.commands.executeCommand('kubeadm.joinHost');
      await setText(onDisk);
      await vscode.commands.executeCommand('kubeadm.joinHost');
    } finally {
      ui.restore();
      a.substituteSsh!(undefined);
      await setText(onDisk);
      await edited.save();
    }
    assert.equal(offered.length, 2, ui.transcript.join('\n'));
    assert.ok(!offered[0]!.includes('labs-k8s-w02') && offered[0]!.includes('labs-k8s-w01'), `after the edit: ${offered[0]!.join(', ')}`);
    assert.ok(offered[1]!.includes('labs-k8s-w02'), `after the revert: ${offered[1]!.join(', ')}`);
  });

  test('Remove from Cluster… of a worker that answers: drained, deleted, reset; the inventory edit applied unsaved', async () => {
    const a = await api();
    assert.ok(a.substituteSsh, 'the test harness runs the extension host with KW_TEST_UI=1');
    const inv = (await a.inventory.get())?.inventory;
    assert.ok(inv, 'the workspace inventory');
    const hosts = new ClusterHosts(inv);
    a.substituteSsh(() => hosts);
    const ui = await scripted({ confirm: (r) => r.actions[0] });
    const onDisk = readFileSync(inventoryUri().fsPath, 'utf8');
    // A web workbench saves after a delay by default; the desktop's default (off) is the case where the edit stays unsaved.
    const files = vscode.workspace.getConfiguration('files');
    await files.update('autoSave', 'off', vscode.ConfigurationTarget.Global);
    try {
      await vscode.commands.executeCommand('kubeadm.removeNode', row('labs-k8s-w02', '10.3.60.55', 'worker'));
    } finally {
      ui.restore();
      a.substituteSsh(undefined);
    }
    assert.ok(!hosts.state.nodes.has('labs-k8s-w02') && hosts.state.reset.has('labs-k8s-w02'), hosts.log.join('\n'));
    assert.ok(ui.runs[0]?.finished?.ok, ui.transcript.join('\n'));
    assert.match(doc('remove-labs-k8s-w02-inventory.diff'), /^- {2}- \{ name: labs-k8s-w02, address: 10\.3\.60\.55, roles: \[worker\] \}$/m);
    assert.equal(ui.confirms.at(-1)?.message, 'Apply the edit to inventory.yaml?');
    const edited = vscode.workspace.textDocuments.find((d) => d.uri.toString() === inventoryUri().toString());
    try {
      assert.ok(edited?.isDirty, 'inventory.yaml edited and not saved');
      assert.doesNotMatch(edited.getText(), /labs-k8s-w02/);
      assert.match(edited.getText(), /labs-k8s-w01/);
      assert.equal(readFileSync(inventoryUri().fsPath, 'utf8'), onDisk, 'the file on disk is as it was until the user saves');
      assert.ok(ui.messages('info').includes('inventory.yaml edited, not saved: review it and save, or undo.'), ui.transcript.join('\n'));
    } finally {
      // The next suites read the example inventory as it is on disk: its text back, saved (the same bytes).
      if (edited) {
        const back = new vscode.WorkspaceEdit();
        back.replace(edited.uri, new vscode.Range(edited.positionAt(0), edited.positionAt(edited.getText().length)), onDisk);
        await vscode.workspace.applyEdit(back);
        await edited.save();
        assert.equal(edited.getText(), onDisk);
        assert.ok(!edited.isDirty);
      }
      await files.update('autoSave', undefined, vscode.ConfigurationTarget.Global);
    }
  });
});
