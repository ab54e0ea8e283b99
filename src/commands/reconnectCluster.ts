/**
 * "Kubeadm: Reconnect to Cluster": drops the connection and watches, connects again and says what it did and how it
 * ended — the context and server it reached, or why it could not, with the ways to a connection as buttons.
 */
import * as vscode from 'vscode';
import { plainWords } from '../core/text/plainWords';
import { defineCommand, refuseWithoutCluster } from './context';
import { editorUi } from '../editor/vscodeUi';

export const reconnectCluster = defineCommand({ trust: vscode.l10n.t('connect to the cluster') }, (ctx) => {
  return async (): Promise<boolean> => {
    const before = ctx.connection.state;
    const was = before.kind === 'connected' ? `${before.context} (${before.server})` : undefined;
    const conn = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: was ? vscode.l10n.t('Reconnecting to {0}…', was) : vscode.l10n.t('Reconnecting…') }, async () => {
      await ctx.connection.reconnect();
      return ctx.connection.ensure();
    });
    if (!conn) return refuseWithoutCluster(ctx, 'reconnect');
    await ctx.connection.cluster?.refreshEtcd();
    void editorUi(ctx.reports).message('info', plainWords(vscode.l10n.t('Reconnected to {0} ({1}): the API answers; the views read the cluster again.', conn.context, conn.server)));
    return true;
  };
});
