/**
 * kubeadm-workbench command line: the same core as the extension, for terminals, cron and CI.
 * Each verb lives in a file of its own, which exports its `verbs` (its usage line and what runs it, ListedVerbs of
 * ./verb.ts); `npm run gen:tables` lists them in VERBS below, each line copied and an import() of the verb's file: a
 * verb loads only its own code when it runs (the build splits there, scripts/bundles.mjs), so `--help` and `lint`
 * start fast. A static import of a verb's file here would load it for every verb.
 */
import { EXIT_USAGE, processIo, type CliIo } from './io';
import { useCliLanguage } from './language';
import { t, useMessages } from '../core/l10n';

type VerbRun = (args: string[], io: CliIo) => Promise<number>;
/**
 * A verb: its line of the usage and its code, loaded when the verb runs. A summary in the catalogue is a function,
 * read when the usage is printed (the language is set by then; this table is built before).
 */
type Verb = { summary: string | (() => string); load: () => Promise<VerbRun> };

const VERBS: Record<string, Verb> = {
  // gen:tables begin — written by `npm run gen:tables` from each verb file's `verbs`: edit those, not these lines
  facts: { summary: () => `facts --inventory F [--host NAME]... [--json]   ${t('gather host facts in parallel; flag cloned VMs, swap, modules, cgroup drivers')}`, load: () => import('./bringUp.js').then((m) => m.verbs.facts.run) },
  plan: { summary: () => `plan --inventory F [--phases a,b] [--format text|json]   ${t('print the bring-up plan: the exact commands per host (json: phases → hosts → steps)')}`, load: () => import('./bringUp.js').then((m) => m.verbs.plan.run) },
  up: { summary: () => `up --inventory F [--phases a,b] [--yes] [--fresh] [--ask-become-pass]   ${t('run the bring-up plan over SSH (resumes a failed run; sudo for non-root logins)')}`, load: () => import('./bringUp.js').then((m) => m.verbs.up.run) },
  join: { summary: () => `join --inventory F --host NAME... [--yes] [--ask-become-pass]   ${t('join inventory hosts to the running cluster (prepare, join, etcd and Ready gates)')}`, load: () => import('./bringUp.js').then((m) => m.verbs.join.run) },
  'check-inventory': { summary: () => `check-inventory FILE            ${t('validate an inventory.yaml')}`, load: () => import('./checkInventory.js').then((m) => m.verbs['check-inventory'].run) },
  'import-ansible': { summary: () => `import-ansible FILE [--out F]   ${t('convert an Ansible/Kubespray inventory')}`, load: () => import('./import.js').then((m) => m.verbs['import-ansible'].run) },
  lint: { summary: () => `lint [--inventory F] [--format text|json|sarif] [--fix] PATH...   ${t('check config files against the rules and the inventory')}`, load: () => import('./lint.js').then((m) => m.verbs.lint.run) },
  generate: { summary: () => `generate [--inventory F] [--out DIR] [--containerd-version V] [--force]   ${t('write the cluster config files from the inventory')}`, load: () => import('./generate.js').then((m) => m.verbs.generate.run) },
  status: { summary: () => `status --inventory F [--kubeconfig F] [--context N] [--json]   ${t('live cluster state; exit 1 when degraded')}`, load: () => import('./status.js').then((m) => m.verbs.status.run) },
  drain: { summary: () => `drain NODE [--ignore-daemonsets] [--delete-emptydir-data] [--force] [--timeout=300s] [--grace-period=-1] [--dry-run[=client|server]] [--then CMD --inventory F] [--uncordon] [--yes]   ${t('kubectl drain with a plan first, a finite timeout and the control-plane guard')}`, load: () => import('./drain.js').then((m) => m.verbs.drain.run) },
  cordon: { summary: () => `cordon NODE [--kubeconfig F] [--context N] [--dry-run[=client|server]] [--yes]   ${t('mark the node unschedulable')}`, load: () => import('./drain.js').then((m) => m.verbs.cordon.run) },
  uncordon: { summary: () => `uncordon NODE [--kubeconfig F] [--context N] [--dry-run[=client|server]] [--yes]   ${t('mark the node schedulable again')}`, load: () => import('./drain.js').then((m) => m.verbs.uncordon.run) },
  drill: { summary: () => `drill --inventory F --host NAME [--kind stop|power-off|partition|haproxy|split-brain] [--power-off-command 'CMD {host}' --power-on-command 'CMD {host}'] [--evictions-wait 120s] [--plan] [--yes] [--json]   ${t('fail one node, measure HAProxy DOWN, etcd election, lease handover, NotReady, evictions; restore it and measure the way back')}`, load: () => import('./drill.js').then((m) => m.verbs.drill.run) },
  certs: { summary: () => `certs --inventory F [--host NAME]... [--warning-days 30] [--error-days 7] [--json]   ${t('every kubeadm certificate over SSH (read-only), served vs on disk, SANs vs the inventory; exit 1 under the warning threshold; {0}: one control-plane node at a time, health gates, quorum guard, plan first; {1}: a kubelet.conf that embeds its client certificate pointed at the rotated one, drained first', 'certs renew --inventory F [--host NAME]... [--kubeconfig F] [--yes]', 'certs fix-kubelet-conf --inventory F --host NAME [--yes]')}`, load: () => import('./certs.js').then((m) => m.verbs.certs.run) },
  backup: { summary: () => `backup --inventory F --out DIR [--json] | --out DIR --list   ${t('etcd snapshot from a healthy follower, verified, pulled 0600 with a manifest (DIR outside any git tree); {0}: a systemd timer on each control-plane node', 'backup schedule --inventory F [--interval 12h] [--keep 5] | --remove | --status')}`, load: () => import('./backup.js').then((m) => m.verbs.backup.run) },
  restore: { summary: () => `restore --inventory F --from SNAPSHOT [--force] [--plan] [--yes]   ${t('etcd disaster recovery from a backup: refused while etcd has quorum unless forced; every member restored together, RTO printed')}`, load: () => import('./restore.js').then((m) => m.verbs.restore.run) },
  remove: { summary: () => `remove --inventory F --host NAME [--force NAME] [--drain-timeout 300s] [--yes]   ${t('take a node out of the cluster, also a dead one: quorum guard, leases moved, drain, etcd member removed by ID, Node deleted, HAProxy backends updated, reset when it answers; offers the inventory edit')}`, load: () => import('./nodes.js').then((m) => m.verbs.remove.run) },
  replace: { summary: () => `replace --inventory F --host OLD --with NEW [--address A] [--force OLD] [--yes]   ${t('remove OLD as above, then join NEW with a fresh certificate key (etcd and Ready gates, HAProxy backends UP); offers the inventory edit')}`, load: () => import('./nodes.js').then((m) => m.verbs.replace.run) },
  upgrade: { summary: () => `upgrade --inventory F --to VERSION --backup-dir DIR [--plan] [--yes] [--max-unavailable N] [--delete-emptydir-data]   ${t('upgrade the cluster one minor (or a patch): preflight (versions, etcd, packages and images, removed APIs), etcd snapshot, control planes one at a time behind HAProxy, then kubelets; resumes')}`, load: () => import('./upgrade.js').then((m) => m.verbs.upgrade.run) },
  etcd: { summary: () => `etcd status|defrag|alarms [--disarm] --inventory F [--plan] [--yes] [--json]   ${t("etcd maintenance: every member's DB size, % of quota, free pages, alarms; the rolling defragmentation (followers first, the leader last, each node out of the balancers around it); the guided NOSPACE recovery (compact, defragment, disarm, write)")}`, load: () => import('./etcd.js').then((m) => m.verbs.etcd.run) },
  drift: { summary: () => `drift --inventory F [--json]   ${t("the configuration three ways: the workspace's kubeadm config vs the kubeadm-config, kubelet-config and kube-proxy ConfigMaps vs every node's manifests and kubelet config; each difference with its node and field; exit 1 on any")}`, load: () => import('./drift.js').then((m) => m.verbs.drift.run) },
  reconfigure: { summary: () => `reconfigure --inventory F [--plan] [--yes] [--fresh]   ${t("apply the workspace's extraArgs and certSANs (kubeadm-config.yaml beside the inventory, else the generated config) to the running control plane: the kubeadm-config ConfigMap, then one node at a time out of the balancers, its manifests regenerated by kubeadm, health gates; resumes")}`, load: () => import('./reconfigure.js').then((m) => m.verbs.reconfigure.run) },
  reset: { summary: () => `reset --inventory F --host NAME [--yes]   ${t('kubeadm reset and clean-up (CNI config, iptables, IPVS) of a host for re-use; refused while it is an etcd member or a Node')}`, load: () => import('./nodes.js').then((m) => m.verbs.reset.run) },
  timeline: { summary: () => `timeline --inventory F [--image IMAGE] [--node NAME] [--json]   ${t('kubectl run a test pod, wait for Ready, print every hop from the POST to Ready in causal order with its source, precision and duration (audit log, journals and CNI lease over SSH when the context is the inventory\'s cluster), delete the pod')}`, load: () => import('./timeline.js').then((m) => m.verbs.timeline.run) },
  'ssh-check': { summary: () => `ssh-check --inventory F [--host NAME]... [--json] [--timeout 4] [--accept-new-host-key=SHA256:...]   ${t('the preflight every operation runs first: per host name, port, keys, host key, login and sudo, all at once; each failure\'s cause and fix; exit 1 when a host fails')}`, load: () => import('./sshCheck.js').then((m) => m.verbs['ssh-check'].run) },
  preflight: { summary: () => `preflight ...                    ${t('the same as ssh-check')}`, load: () => import('./sshCheck.js').then((m) => m.verbs.preflight.run) },
  // gen:tables end
};

function usage(io: CliIo): void {
  const lines = Object.values(VERBS).map((v) => `  ${typeof v.summary === 'function' ? v.summary() : v.summary}`);
  io.stderr(`${t('usage:')} kubeadm-workbench <verb> [args]\n\n${t('verbs:')}\n${lines.join('\n')}\n`);
}

export async function main(argv: string[], io: CliIo = processIo): Promise<number> {
  const [verb, ...args] = argv;
  // the messages in the locale's language, the usage's too (English reads no file). `--json` is for scripts: all it
  // prints stays English in any locale, messages as well as ids, as lint's JSON keeps its English `message`.
  // (plan's --format json too; lint's JSON and SARIF keep English themselves and add the localised message)
  const forScripts = args.includes('--json') || (verb === 'plan' && args.some((a, i) => a === '--format=json' || (a === '--format' && args[i + 1] === 'json')));
  if (forScripts) useMessages('en', undefined);
  const languageWarning = forScripts ? undefined : useCliLanguage(process.env);
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
