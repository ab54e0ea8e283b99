/**
 * The context keys this extension sets, for package.json `when` clauses — one table, so a key renamed here or there
 * cannot leave a menu or a welcome that never shows (test/unit/extension/contextKeys.test.ts checks every `kubeadm.*`
 * key a `when` clause reads against this table, each key's compared values against its declared ones, and that no
 * code sets a context key but through `setContextKey` of contextKeys.ts; this file has no vscode import so the unit tier reads it).
 */
export const ContextKeys = {
  /** The active editor shows a file the linters check (inventory.yaml or a tracked config): the editor title's Lint. */
  configFile: { key: 'kubeadm.configFile', values: [true, false] },
  /** An inventory.yaml was found and loaded: the commands that need one appear in the palette. */
  hasInventory: { key: 'kubeadm.hasInventory', values: [true, false] },
  /** Unset until the first search ends, so the Inventory view's "No inventory.yaml" welcome never flashes at start. */
  inventoryState: { key: 'kubeadm.inventoryState', values: ['none', 'found'] },
  /** Drain/Cordon/Uncordon are offered on host rows only when the cluster answers. */
  clusterConnected: { key: 'kubeadm.clusterConnected', values: [true, false] },
  /** No kubeconfig where the connection would look: the live views show Select kubeconfig / Bring Up / Settings. */
  kubeconfigMissing: { key: 'kubeadm.kubeconfigMissing', values: [true, false] },
} as const;

