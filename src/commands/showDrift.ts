import * as vscode from 'vscode';
import { dirname } from 'node:path';
import { readLocalText } from '../engine/workspaceFiles';
import { findingText, manifestFixes, expectedManifest, type DriftFinding } from '../core/drift/threeWay';
import type { Range } from '../core/findings';
import { readDrift, renderDrift, KUBELET_CONFIG, type DriftReading } from '../engine/drift';
import { sudoUnlessRoot } from '../engine/become';
import { defineCommand, type Given } from './context';
import { editorUi } from '../editor/vscodeUi';
import { hostsWith } from '../core/inventory/types';
import { editorPreflight } from './preflightGate';

/**
 * Kubeadm: Show Configuration Drift — the three-way comparison (src/engine/drift.ts, the CLI's `drift`): each
 * difference between the workspace and the cluster's ConfigMaps becomes a Problems entry on the workspace line that
 * says it; every difference can be opened in VS Code's diff editor (the cluster's side on the left); the whole as a
 * report. Read-only.
 */
let problems: vscode.DiagnosticCollection | undefined;

/** The inventory field a finding of the generated configuration comes from (no file line of its own). */
const INVENTORY_FIELD: [RegExp, string][] = [
  [/extraArgs\.audit-|extraVolumes/, 'cluster.apiServerAuditLog'],
  [/^kubernetesVersion$/, 'cluster.kubernetesVersion'],
  [/^controlPlaneEndpoint$/, 'cluster.controlPlaneEndpoint'],
  [/^networking\.podSubnet$/, 'cluster.podSubnet'],
  [/^networking\.serviceSubnet$/, 'cluster.serviceSubnet'],
  [/^imageRepository$/, 'cluster.imageRepository'],
  [/^clusterName$/, 'cluster.name'],
];

function toRange(r: Range): vscode.Range {
  return new vscode.Range(r.start.line, r.start.character, r.end.line, r.end.character);
}

function publish(ctx: Given<{ inventory: string }>, r: DriftReading): void {
  problems ??= (() => {
    const c = vscode.languages.createDiagnosticCollection('kubeadm-drift');
    ctx.extension.subscriptions.push(c);
    return c;
  })();
  problems.clear();
  const byFile = new Map<string, vscode.Diagnostic[]>();
  for (const f of r.findings.filter((x) => x.layer === 'workspace-cluster')) {
    let file = f.location?.path;
    let range = f.location ? new vscode.Range(f.location.line - 1, f.location.column - 1, f.location.line - 1, 200) : undefined;
    if (!file) {
      // The generated configuration has no line of its own: the inventory's field it comes from.
      file = ctx.loaded.uri.fsPath;
      const field = INVENTORY_FIELD.find(([re]) => re.test(f.field.replace(/^apiServer\./, '')) || re.test(f.field))?.[1] ?? 'cluster';
      const at = ctx.loaded.locations.fields.get(field) ?? ctx.loaded.locations.fields.get('cluster.name');
      range = at ? toRange(at) : new vscode.Range(0, 0, 0, 0);
    }
    const d = new vscode.Diagnostic(range!, vscode.l10n.t('{0} (Kubeadm: Show Configuration Drift; a reconfigure applies the workspace\'s)', findingText(f)), vscode.DiagnosticSeverity.Warning);
    d.source = 'kubeadm-workbench drift';
    d.code = f.object;
    byFile.set(file, [...(byFile.get(file) ?? []), d]);
  }
  for (const [file, list] of byFile) problems.set(vscode.Uri.file(file), list);
}

/** The two sides of a finding for the diff editor: the cluster's (or the other nodes') left, the one that differs right. */
function sides(ctx: Given<{ inventory: string }>, r: DriftReading, f: DriftFinding): { left: vscode.Uri; right: vscode.Uri; title: string } | undefined {
  const put = (name: string, text: string) => ctx.reports.put(`drift/${name}`, text);
  if (f.layer === 'workspace-cluster') {
    const cm = f.object === 'ClusterConfiguration' ? r.configMaps.clusterConfiguration : f.object === 'KubeletConfiguration' ? r.configMaps.kubelet : r.configMaps.kubeProxy;
    if (cm === undefined) return undefined;
    const right = f.location?.path ? vscode.Uri.file(f.location.path) : put('workspace-kubeadm-config.yaml', r.config.text);
    return { left: put(`cluster-${f.object}.yaml`, cm), right, title: vscode.l10n.t('{0}: cluster ConfigMap ↔ workspace', f.object) };
  }
  const node = r.nodes.find((n) => n.host === f.host);
  if (!node) return undefined;
  if (f.component) {
    const text = node.manifests[f.component];
    if (text === undefined) return undefined;
    return { left: put(`${node.host}-${f.component}.expected.yaml`, expectedManifest(text, manifestFixes(r.findings, node, f.component))), right: put(`${node.host}-${f.component}.yaml`, text), title: vscode.l10n.t('{0} {1}.yaml: as the cluster says ↔ on the node', node.host, f.component) };
  }
  if (r.configMaps.kubelet === undefined || node.kubeletConfig === undefined) return undefined;
  return { left: put('cluster-kubelet-config.yaml', r.configMaps.kubelet), right: put(`${node.host}-kubelet-config.yaml`, node.kubeletConfig), title: vscode.l10n.t('{0} {1}: kubelet-config ConfigMap ↔ on the node', node.host, KUBELET_CONFIG) };
}

/** The first row of the list: the whole report rather than one difference. */
const REPORT = Symbol('wholeReport');

export const showDrift = defineCommand({ trust: vscode.l10n.t('read the configuration on the hosts'), inventory: vscode.l10n.t('Show Configuration Drift'), inventoryCheck: 'parsed' }, (ctx) => {
  return async (): Promise<void> => {
    const { inv, folder, loaded } = ctx;
    const ui = editorUi(ctx.reports);
    const pool = ctx.sessions.open(inv, folder);
    let r: DriftReading;
    try {
      // The ConfigMaps are read through the first control-plane node that answers: refused only when none passes.
      if (!(await editorPreflight(ctx, ui, pool, inv, { operation: vscode.l10n.t('Show Configuration Drift'), hosts: hostsWith(inv, 'control-plane'), atLeastOne: true })).ok) return;
      r = await ui.progress({ title: vscode.l10n.t('Comparing the configuration of {0}: workspace, ConfigMaps, nodes', inv.cluster.name), cancellable: true }, (_report, signal) =>
        readDrift({ inventory: inv, inventoryDir: dirname(loaded.uri.fsPath), readFile: readLocalText, ssh: pool, become: sudoUnlessRoot((h) => pool.loginUser(h)), signal }),
      );
    } finally {
      await pool.close();
    }
    publish(ctx, r);
    if (!r.findings.length && !r.unread.length) {
      void ui.message('info', vscode.l10n.t('{0}: the workspace, the cluster\'s ConfigMaps and every node agree.', inv.cluster.name));
      return;
    }
    const report = { label: vscode.l10n.t('$(output) Show the whole report'), value: REPORT as DriftFinding | typeof REPORT };
    const items = [report, ...r.findings.map((f) => ({ label: `${f.layer === 'workspace-cluster' ? '$(file)' : '$(server)'} ${f.host ? `${f.host}: ` : ''}${f.component ?? f.object} ${f.field}`, description: `${f.expected} → ${f.actual}`, detail: findingText(f), value: f as DriftFinding | typeof REPORT }))];
    const picked = await ui.pick(vscode.l10n.t('Configuration drift of {0}: {1} difference(s){2}', inv.cluster.name, r.findings.length, r.unread.length ? vscode.l10n.t(', {0} not read', r.unread.length) : ''), items, vscode.l10n.t('Open a difference in the diff editor'));
    if (!picked) return;
    if (picked === REPORT) {
      await ctx.reports.show('drift.txt', renderDrift(r), 'plaintext');
      return;
    }
    const s = sides(ctx, r, picked);
    if (!s) await ctx.reports.show('drift.txt', renderDrift(r), 'plaintext');
    else await vscode.commands.executeCommand('vscode.diff', s.left, s.right, s.title);
  };
});
