/** "Kubeadm: Reconnect to Cluster": drops the connection and watches, then lists and watches again. */
import type { CommandContext } from './context';

export function reconnectCluster(ctx: CommandContext) {
  return async (): Promise<void> => {
    await ctx.connection.reconnect();
    await ctx.connection.cluster?.refreshEtcd();
  };
}
