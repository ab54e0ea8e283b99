/**
 * Every command id of the extension, in one place, written by `npm run gen:tables` from the commands' files: an
 * `export const name = defineCommand(…)` (or a factory's call) at the top of a file of src/commands/ is the command
 * `kubeadm.name` (a `@commandId` tag in its doc comment names another id). The same run writes the registrar's table
 * and package.json's `contributes.commands`; test/unit/generatedTables.test.ts fails while any of them is stale.
 */
export const CommandIds = {
  // gen:tables begin — written by `npm run gen:tables` from the commands' files: edit those, not these lines
  backupEtcd: 'kubeadm.backupEtcd',
  bringUpCluster: 'kubeadm.bringUpCluster',
  copyHostAddress: 'kubeadm.copyHostAddress',
  cordonNode: 'kubeadm.cordonNode',
  createInventory: 'kubeadm.createInventory',
  defragEtcd: 'kubeadm.defragEtcd',
  drainNode: 'kubeadm.drainNode',
  fixKubeletConf: 'kubeadm.fixKubeletConf',
  gatherFacts: 'kubeadm.gatherFacts',
  generateClusterConfigs: 'kubeadm.generateClusterConfigs',
  importAnsibleInventory: 'kubeadm.importAnsibleInventory',
  inspectCertificates: 'kubeadm.inspectCertificates',
  joinHost: 'kubeadm.joinHost',
  openBackupFolder: 'kubeadm.openBackupFolder',
  openInventory: 'kubeadm.openInventory',
  openKubeconfigSetting: 'kubeadm.openKubeconfigSetting',
  reconfigureControlPlane: 'kubeadm.reconfigureControlPlane',
  reconnectCluster: 'kubeadm.reconnectCluster',
  recoverEtcdNospace: 'kubeadm.recoverEtcdNospace',
  refreshBackups: 'kubeadm.refreshBackups',
  refreshInventory: 'kubeadm.refreshInventory',
  removeNode: 'kubeadm.removeNode',
  renewCertificates: 'kubeadm.renewCertificates',
  replaceNode: 'kubeadm.replaceNode',
  resetHost: 'kubeadm.resetHost',
  restoreFromBackup: 'kubeadm.restoreFromBackup',
  revealHost: 'kubeadm.revealHost',
  runFailureDrill: 'kubeadm.runFailureDrill',
  runPreflight: 'kubeadmWorkbench.runPreflight',
  scheduleEtcdSnapshots: 'kubeadm.scheduleEtcdSnapshots',
  selectClusterContext: 'kubeadm.selectClusterContext',
  selectKubeconfigFile: 'kubeadm.selectKubeconfigFile',
  showBringUpPlan: 'kubeadm.showBringUpPlan',
  showConfigDiagnostics: 'kubeadm.showConfigDiagnostics',
  showDrift: 'kubeadm.showDrift',
  showLog: 'kubeadm.showLog',
  showPodTimeline: 'kubeadm.showPodTimeline',
  uncordonNode: 'kubeadm.uncordonNode',
  upgradeCluster: 'kubeadm.upgradeCluster',
  // gen:tables end
} as const;

export type CommandId = (typeof CommandIds)[keyof typeof CommandIds];

/** Ids of the tree views, shared by package.json, the registrar and the tests. */
export const ViewIds = {
  inventory: 'kubeadm.inventory',
  controlPlane: 'kubeadm.controlPlane',
  leases: 'kubeadm.leases',
  etcdMembers: 'kubeadm.etcdMembers',
  certificates: 'kubeadm.certificates',
  backups: 'kubeadm.backups',
} as const;
