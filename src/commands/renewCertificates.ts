import * as vscode from 'vscode';
import { homedir } from 'node:os';
import { servedCertificate } from '../adapters/tls/servedCertificate';
import { kubeconfigPaths } from '../core/live/kubeconfig';
import { sudoUnlessRoot } from '../engine/become';
import { prepareRenew } from '../engine/renew';
import { certificateThresholds } from '../editor/certificateInspections';
import { approveAndRunPlan } from '../editor/planRun';
import { defineCommand } from './context';
import { setting } from '../editor/settings';

/**
 * Kubeadm: Renew Certificates… — `kubeadm certs renew all` one control-plane node at a time with the
 * quorum guard and health gates (src/core/certs/renewPlan.ts), the plan shown first, resumable; the
 * renewed admin.conf merged into the kubeconfig the views use; then the Certificates view refreshed.
 * The gates' own reads use `sudo -n` for non-root logins.
 */
export const renewCertificates = defineCommand({ trust: 'renew the certificates on the control-plane nodes', inventory: 'Renew Certificates', inventoryCheck: 'parsed' }, (ctx) => {
  return async (): Promise<void> => {
    const { loaded, inv, folder } = ctx;
    const kubeconfig = kubeconfigPaths(setting('kubeconfig'), process.env.KUBECONFIG, homedir())[0];
    const pool = ctx.sessions.open(inv, folder);
    try {
      const prep = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `Reading the certificates of ${inv.cluster.name}…` }, () =>
        prepareRenew({ inventory: inv, ssh: pool, become: sudoUnlessRoot((h) => pool.loginUser(h)), served: (a, p) => servedCertificate(a, p), thresholds: certificateThresholds(), ...(kubeconfig ? { kubeconfig } : {}) }),
      );
      if (prep.refusals.length) {
        void vscode.window.showErrorMessage(`Certificate renewal refused; nothing was done: ${prep.refusals.join(' ')}`);
        return;
      }
      const ran = await approveAndRunPlan(ctx, { inv, inventoryUri: loaded.uri, plan: prep.plan, command: 'certs-renew', title: `Certificate renewal of ${inv.cluster.name}`, planDocument: 'certs-renew-plan.txt' });
      if (ran) await ctx.certificates.inspect(inv, folder);
    } finally {
      await pool.close();
    }
  };
});
