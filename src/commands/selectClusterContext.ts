/**
 * "Kubeadm: Select Cluster Context": always a picker — the contexts of the merged kubeconfig (setting or KUBECONFIG)
 * plus "Browse for a kubeconfig file…", the setting and the bring-up (src/editor/contextPicker.ts).
 */
import { pickClusterContext } from '../editor/contextPicker';
import { requireTrust } from '../editor/trust';
import type { CommandContext } from './context';

export function selectClusterContext(ctx: CommandContext) {
  return async (): Promise<boolean> => {
    if (!(await requireTrust('connect to the cluster'))) return false;
    return pickClusterContext(ctx.connection);
  };
}
