import * as vscode from 'vscode';
import { kubeletConfWorkflow } from '../engine/workflows/kubeletConfWorkflow';
import { editorUi } from '../editor/vscodeUi';
import type { LiveNode } from '../editor/treeNodes';
import { editorPlanRun } from './runPlan';
import { defineCommand } from './context';
import { kubernetesHosts } from '../core/inventory/types';
import { notReadCauses } from '../core/preflight/model';
import { editorPreflight } from './preflightGate';

/**
 * Kubeadm: Fix kubelet.conf… — on a Certificates view row of a kubelet.conf that embeds its client certificate (or
 * from the palette, the node picked): the node drained, kubelet.conf pointed at the rotated kubelet-client-current.pem,
 * the kubelet restarted and Ready, uncordoned (the workflow of engine/workflows/kubeletConfWorkflow.ts, the CLI's
 * `certs fix-kubelet-conf`); then the certificates inspected again.
 */
export const fixKubeletConf = defineCommand({ trust: vscode.l10n.t('change kubelet.conf on a node'), inventory: vscode.l10n.t('Fix kubelet.conf'), inventoryCheck: 'usable' }, (ctx) => {
  return async (row?: LiveNode): Promise<void> => {
    const { loaded, inv, folder } = ctx;
    let node = row && /^cert:([^:]+):kubelet\.conf$/.exec(row.id)?.[1];
    const pool = ctx.sessions.open(inv, folder);
    try {
      if (!node) {
        // From the palette: the candidates pass the preflight before the question (unknown keys reviewed once, none
        // refused here: the pick narrows the scope, and the workflow's own gate judges the node chosen); a node that
        // fails it says why beside its name.
        const candidates = kubernetesHosts(inv).map((h) => h.name);
        const pre = await editorPreflight(ctx, editorUi(ctx.reports), pool, inv, { operation: vscode.l10n.t('Fix kubelet.conf'), hosts: candidates, tolerate: { hosts: candidates } });
        const failing = notReadCauses(pre.report);
        const embedded = new Set((ctx.certificates.report?.hosts ?? []).filter((h) => h.entries.some((e) => e.fix === 'kubelet-conf')).map((h) => h.host));
        node = await editorUi(ctx.reports).pick(
          vscode.l10n.t('Fix kubelet.conf: which node?'),
          kubernetesHosts(inv).map((h) => ({ label: h.name, description: failing.get(h.name) ?? (embedded.has(h.name) ? vscode.l10n.t('embeds its client certificate (last inspection)') : h.address), picked: embedded.has(h.name), value: h.name })),
        );
      }
      if (!node) return;
      const outcome = await kubeletConfWorkflow(editorUi(ctx.reports), { deps: { inventory: inv, ssh: pool }, loginUser: (h) => pool.loginUser(h), node, run: editorPlanRun(pool, loaded.uri) });
      if (outcome.kind === 'ran' && outcome.result.ok) await ctx.certificates.inspect(inv, folder);
    } finally {
      await pool.close();
    }
  };
});
