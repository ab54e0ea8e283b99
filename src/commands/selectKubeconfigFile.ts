/** "Kubeadm: Select Kubeconfig File…": the live views' welcome button; browse, check, save as the setting, connect. */
import { browseForKubeconfig } from '../editor/contextPicker';
import { requireTrust } from '../editor/trust';
import type { CommandContext } from './context';

export function selectKubeconfigFile(ctx: CommandContext) {
  return async (): Promise<boolean> => {
    if (!(await requireTrust('connect to the cluster'))) return false;
    return browseForKubeconfig(ctx.connection);
  };
}
