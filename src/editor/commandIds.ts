/**
 * Every command id of the extension, in one place. package.json's `contributes.commands` must list
 * exactly these (a unit test checks both directions), and the registrar must bind every one.
 */
export const CommandIds = {
  openInventory: 'kubeadm.openInventory',
  createInventory: 'kubeadm.createInventory',
  importAnsibleInventory: 'kubeadm.importAnsibleInventory',
  refreshInventory: 'kubeadm.refreshInventory',
  revealHost: 'kubeadm.revealHost',
  copyHostAddress: 'kubeadm.copyHostAddress',
  showConfigDiagnostics: 'kubeadm.showConfigDiagnostics',
  generateClusterConfigs: 'kubeadm.generateClusterConfigs',
  selectClusterContext: 'kubeadm.selectClusterContext',
  selectKubeconfigFile: 'kubeadm.selectKubeconfigFile',
  openKubeconfigSetting: 'kubeadm.openKubeconfigSetting',
  reconnectCluster: 'kubeadm.reconnectCluster',
  gatherFacts: 'kubeadm.gatherFacts',
  showBringUpPlan: 'kubeadm.showBringUpPlan',
  bringUpCluster: 'kubeadm.bringUpCluster',
  joinHost: 'kubeadm.joinHost',
  showPodTimeline: 'kubeadm.showPodTimeline',
  drainNode: 'kubeadm.drainNode',
  cordonNode: 'kubeadm.cordonNode',
  uncordonNode: 'kubeadm.uncordonNode',
  runFailureDrill: 'kubeadm.runFailureDrill',
  inspectCertificates: 'kubeadm.inspectCertificates',
  backupEtcd: 'kubeadm.backupEtcd',
  renewCertificates: 'kubeadm.renewCertificates',
  removeNode: 'kubeadm.removeNode',
  replaceNode: 'kubeadm.replaceNode',
  resetHost: 'kubeadm.resetHost',
  refreshBackups: 'kubeadm.refreshBackups',
  restoreFromBackup: 'kubeadm.restoreFromBackup',
  openBackupFolder: 'kubeadm.openBackupFolder',
  scheduleEtcdSnapshots: 'kubeadm.scheduleEtcdSnapshots',
  upgradeCluster: 'kubeadm.upgradeCluster',
  /** The walkthrough names this id (package.json contributes.walkthroughs). */
  runPreflight: 'kubeadmWorkbench.runPreflight',
  defragEtcd: 'kubeadm.defragEtcd',
  recoverEtcdNospace: 'kubeadm.recoverEtcdNospace',
  showDrift: 'kubeadm.showDrift',
  reconfigureControlPlane: 'kubeadm.reconfigureControlPlane',
  fixKubeletConf: 'kubeadm.fixKubeletConf',
  showLog: 'kubeadm.showLog',
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
