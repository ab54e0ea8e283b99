import * as vscode from 'vscode';
import { homedir } from 'node:os';
import { servedCertificate } from '../adapters/tls/servedCertificate';
import { kubeconfigPaths } from '../core/live/kubeconfig';
import { renewWorkflow } from '../engine/workflows/renewWorkflow';
import { certificateThresholds } from '../editor/certificateInspections';
import { editorUi } from '../editor/vscodeUi';
import { editorPlanRun } from './runPlan';
import { defineCommand } from './context';
import { editorPreflight } from './preflightGate';
import { hostsWith } from '../core/inventory/types';
import { setting } from '../editor/settings';

/**
 * Kubeadm: Renew Certificates… — `kubeadm certs renew all` one control-plane node at a time with the
 * quorum guard and health gates (src/core/certs/renewPlan.ts), the plan shown first, resumable; the
 * renewed admin.conf merged into the kubeconfig the views use; then the Certificates view refreshed. The rest is the
 * renewal workflow's (engine/workflows/renewWorkflow.ts), the CLI's `certs renew` too.
 */
export const renewCertificates = defineCommand({ trust: vscode.l10n.t('renew the certificates on the control-plane nodes'), inventory: vscode.l10n.t('Renew Certificates'), inventoryCheck: 'parsed' }, (ctx) => {
  return async (): Promise<void> => {
    const { loaded, inv, folder } = ctx;
    const kubeconfig = kubeconfigPaths(setting('kubeconfig'), process.env.KUBECONFIG, homedir())[0];
    const pool = ctx.sessions.open(inv, folder);
    const ui = editorUi(ctx.reports);
    try {
      // Each node leaves HAProxy on every balancer first: the balancers must answer too.
      if (!(await editorPreflight(ctx, ui, pool, inv, { operation: vscode.l10n.t('Renew Certificates'), hosts: hostsWith(inv, 'control-plane', 'loadbalancer') })).ok) return;
      const outcome = await renewWorkflow(ui, {
        deps: { inventory: inv, ssh: pool, served: (a, p) => servedCertificate(a, p), thresholds: certificateThresholds(), ...(kubeconfig ? { kubeconfig } : {}) },
        loginUser: (h) => pool.loginUser(h), hosts: [], run: editorPlanRun(pool, loaded.uri),
      });
      if (outcome.kind === 'ran' && outcome.result.ok) await ctx.certificates.inspect(inv, folder);
    } finally {
      await pool.close();
    }
  };
});
