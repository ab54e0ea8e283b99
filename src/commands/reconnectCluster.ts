/** "Kubeadm: Reconnect to Cluster": drops the connection and watches, then lists and watches again. */
import { defineCommand } from './context';

export const reconnectCluster = defineCommand({}, (ctx) => {
  return async (): Promise<void> => {
    await ctx.connection.reconnect();
    await ctx.connection.cluster?.refreshEtcd();
  };
});
