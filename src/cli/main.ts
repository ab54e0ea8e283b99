/**
 * kubeadm-workbench command line: the same core as the extension, for terminals, cron and CI.
 * Each verb lives in its own file and is listed once in VERBS, with an import() of that file: a verb loads only its
 * own code when it runs (the build splits there, scripts/bundles.mjs), so `--help` and `lint` start fast. A static
 * import of a verb's file here would load it for every verb.
 */
import { EXIT_USAGE, processIo, type CliIo } from './io';
import { useCliLanguage } from './language';
import { t } from '../core/l10n';

type VerbRun = (args: string[], io: CliIo) => Promise<number>;
/**
 * A verb: its line of the usage and its code, loaded when the verb runs. A summary in the catalogue is a function,
 * read when the usage is printed (the language is set by then; this table is built before).
 */
type Verb = { summary: string | (() => string); load: () => Promise<VerbRun> };

const VERBS: Record<string, Verb> = {
  facts: { summary: 'facts --inventory F [--host NAME]... [--json]   gather host facts in parallel; flag cloned VMs, swap, modules, cgroup drivers', load: () => import('./bringUp.js').then((m) => m.runFacts) },
  plan: { summary: 'plan --inventory F [--phases a,b] [--format text|json]   print the bring-up plan: the exact commands per host (json: phases → hosts → steps)', load: () => import('./bringUp.js').then((m) => m.runPlanVerb) },
  up: { summary: 'up --inventory F [--phases a,b] [--yes] [--fresh] [--ask-become-pass]   run the bring-up plan over SSH (resumes a failed run; sudo for non-root logins)', load: () => import('./bringUp.js').then((m) => m.runUp) },
  join: { summary: 'join --inventory F --host NAME... [--yes] [--ask-become-pass]   join inventory hosts to the running cluster (prepare, join, etcd and Ready gates)', load: () => import('./bringUp.js').then((m) => m.runJoin) },
  'check-inventory': { summary: () => `check-inventory FILE            ${t('validate an inventory.yaml')}`, load: () => import('./checkInventory.js').then((m) => m.runCheckInventory) },
  'import-ansible': { summary: () => `import-ansible FILE [--out F]   ${t('convert an Ansible/Kubespray inventory')}`, load: () => import('./import.js').then((m) => m.runImport) },
  lint: { summary: () => `lint [--inventory F] [--format text|json|sarif] [--fix] PATH...   ${t('check config files against the rules and the inventory')}`, load: () => import('./lint.js').then((m) => m.runLint) },
  generate: { summary: () => `generate [--inventory F] [--out DIR] [--containerd-version V] [--force]   ${t('write the cluster config files from the inventory')}`, load: () => import('./generate.js').then((m) => m.runGenerate) },
  status: { summary: () => `status --inventory F [--kubeconfig F] [--context N] [--json]   ${t('live cluster state; exit 1 when degraded')}`, load: () => import('./status.js').then((m) => m.runStatus) },
  drain: { summary: () => `drain NODE [--ignore-daemonsets] [--delete-emptydir-data] [--force] [--timeout=300s] [--grace-period=-1] [--dry-run[=client|server]] [--then CMD --inventory F] [--uncordon] [--yes]   ${t('kubectl drain with a plan first, a finite timeout and the control-plane guard')}`, load: () => import('./drain.js').then((m) => m.runDrainVerb) },
  cordon: { summary: () => `cordon NODE [--kubeconfig F] [--context N] [--dry-run[=client|server]] [--yes]   ${t('mark the node unschedulable')}`, load: () => import('./drain.js').then((m) => m.runCordon) },
  uncordon: { summary: () => `uncordon NODE [--kubeconfig F] [--context N] [--dry-run[=client|server]] [--yes]   ${t('mark the node schedulable again')}`, load: () => import('./drain.js').then((m) => m.runUncordon) },
  drill: { summary: "drill --inventory F --host NAME [--kind stop|power-off] [--power-off-command 'CMD {host}' --power-on-command 'CMD {host}'] [--evictions-wait 120s] [--plan] [--yes] [--json]   fail one node, measure HAProxy DOWN, etcd election, lease handover, NotReady, evictions; restore it and measure the way back", load: () => import('./drill.js').then((m) => m.runDrillVerb) },
  certs: { summary: 'certs --inventory F [--host NAME]... [--warning-days 30] [--error-days 7] [--json]   every kubeadm certificate over SSH (read-only), served vs on disk, SANs vs the inventory; exit 1 under the warning threshold; certs renew --inventory F [--host NAME]... [--kubeconfig F] [--yes]: one control-plane node at a time, health gates, quorum guard, plan first; certs fix-kubelet-conf --inventory F --host NAME [--yes]: a kubelet.conf that embeds its client certificate pointed at the rotated one, drained first', load: () => import('./certs.js').then((m) => m.runCertsVerb) },
  backup: { summary: 'backup --inventory F --out DIR [--json] | --out DIR --list   etcd snapshot from a healthy follower, verified, pulled 0600 with a manifest (DIR outside any git tree); backup schedule --inventory F [--interval 12h] [--keep 5] | --remove | --status: a systemd timer on each control-plane node', load: () => import('./backup.js').then((m) => m.runBackupVerb) },
  restore: { summary: 'restore --inventory F --from SNAPSHOT [--force] [--plan] [--yes]   etcd disaster recovery from a backup: refused while etcd has quorum unless forced; every member restored together, RTO printed', load: () => import('./restore.js').then((m) => m.runRestoreVerb) },
  remove: { summary: 'remove --inventory F --host NAME [--force NAME] [--drain-timeout 300s] [--yes]   take a node out of the cluster, also a dead one: quorum guard, leases moved, drain, etcd member removed by ID, Node deleted, HAProxy backends updated, reset when it answers; offers the inventory edit', load: () => import('./nodes.js').then((m) => m.runRemoveVerb) },
  replace: { summary: 'replace --inventory F --host OLD --with NEW [--address A] [--force OLD] [--yes]   remove OLD as above, then join NEW with a fresh certificate key (etcd and Ready gates, HAProxy backends UP); offers the inventory edit', load: () => import('./nodes.js').then((m) => m.runReplaceVerb) },
  upgrade: { summary: 'upgrade --inventory F --to VERSION --backup-dir DIR [--plan] [--yes] [--max-unavailable N] [--delete-emptydir-data]   upgrade the cluster one minor (or a patch): preflight (versions, etcd, packages and images, removed APIs), etcd snapshot, control planes one at a time behind HAProxy, then kubelets; resumes', load: () => import('./upgrade.js').then((m) => m.runUpgradeVerb) },
  etcd: { summary: () => `etcd status|defrag|alarms [--disarm] --inventory F [--plan] [--yes] [--json]   ${t("etcd maintenance: every member's DB size, % of quota, free pages, alarms; the rolling defragmentation (followers first, the leader last, each node out of the balancers around it); the guided NOSPACE recovery (compact, defragment, disarm, write)")}`, load: () => import('./etcd.js').then((m) => m.runEtcdVerb) },
  drift: { summary: 'drift --inventory F [--json]   the configuration three ways: the workspace\'s kubeadm config vs the kubeadm-config, kubelet-config and kube-proxy ConfigMaps vs every node\'s manifests and kubelet config; each difference with its node and field; exit 1 on any', load: () => import('./drift.js').then((m) => m.runDriftVerb) },
  reconfigure: { summary: 'reconfigure --inventory F [--plan] [--yes] [--fresh]   apply the workspace\'s extraArgs and certSANs (kubeadm-config.yaml beside the inventory, else the generated config) to the running control plane: the kubeadm-config ConfigMap, then one node at a time out of the balancers, its manifests regenerated by kubeadm, health gates; resumes', load: () => import('./reconfigure.js').then((m) => m.runReconfigureVerb) },
  reset: { summary: 'reset --inventory F --host NAME [--yes]   kubeadm reset and clean-up (CNI config, iptables, IPVS) of a host for re-use; refused while it is an etcd member or a Node', load: () => import('./nodes.js').then((m) => m.runResetVerb) },
  timeline: { summary: () => `timeline --inventory F [--image IMAGE] [--node NAME] [--json]   ${t('kubectl run a test pod, wait for Ready, print every hop from the POST to Ready in causal order with its source, precision and duration (audit log, journals and CNI lease over SSH when the context is the inventory\'s cluster), delete the pod')}`, load: () => import('./timeline.js').then((m) => m.runTimelineVerb) },
  'ssh-check': { summary: () => `ssh-check --inventory F [--host NAME]... [--json] [--timeout 4] [--accept-new-host-key=SHA256:...]   ${t('the preflight every operation runs first: per host name, port, keys, host key, login and sudo, all at once; each failure\'s cause and fix; exit 1 when a host fails')}`, load: () => import('./sshCheck.js').then((m) => m.runSshCheck) },
  preflight: { summary: () => `preflight ...                    ${t('the same as ssh-check')}`, load: () => import('./sshCheck.js').then((m) => m.runPreflightVerb) },
};

function usage(io: CliIo): void {
  const lines = Object.values(VERBS).map((v) => `  ${typeof v.summary === 'function' ? v.summary() : v.summary}`);
  io.stderr(`${t('usage:')} kubeadm-workbench <verb> [args]\n\n${t('verbs:')}\n${lines.join('\n')}\n`);
}

export async function main(argv: string[], io: CliIo = processIo): Promise<number> {
  const [verb, ...args] = argv;
  // the messages in the locale's language, the usage's too (English reads no file)
  const languageWarning = useCliLanguage(process.env);
  if (languageWarning) io.stderr(`kubeadm-workbench: ${languageWarning}\n`);
  if (!verb || verb === '--help' || verb === '-h') {
    usage(io);
    return verb ? 0 : EXIT_USAGE;
  }
  const entry = VERBS[verb];
  if (!entry) {
    io.stderr(`${t('unknown verb "{0}"', verb)}\n`);
    usage(io);
    return EXIT_USAGE;
  }
  const run = await entry.load();
  return run(args, io);
}
