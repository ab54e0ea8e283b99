/**
 * "Kubeadm: Select Cluster Context": always a picker — the contexts of the merged kubeconfig (setting or KUBECONFIG)
 * plus "Browse for a kubeconfig file…", the setting and the bring-up (src/editor/contextPicker.ts).
 */
import * as vscode from 'vscode';
import { pickClusterContext } from '../editor/contextPicker';
import { defineCommand } from './context';

export const selectClusterContext = defineCommand({ trust: vscode.l10n.t('connect to the cluster') }, (ctx) => {
  return async (): Promise<boolean> => {
    return pickClusterContext(ctx.connection);
  };
});
