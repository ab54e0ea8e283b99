/** "Kubeadm: Select Kubeconfig File…": the live views' welcome button; browse, check, save as the setting, connect. */
import * as vscode from 'vscode';
import { browseForKubeconfig } from '../editor/contextPicker';
import { defineCommand } from './context';

export const selectKubeconfigFile = defineCommand({ trust: vscode.l10n.t('connect to the cluster') }, (ctx) => {
  return async (): Promise<boolean> => {
    return browseForKubeconfig(ctx.connection);
  };
});
