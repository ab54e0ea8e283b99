/**
 * kubeadm-workbench command line: the same core as the extension, for terminals, cron and CI.
 * Each verb lives in its own file and is listed once in VERBS.
 */
import { runCheckInventory } from './checkInventory';
import { runImport } from './import';
import { EXIT_USAGE, processIo, type CliIo } from './io';
import { escapeControls } from '../core/text/terminal';
import { useCliLanguage } from './language';
import { runGenerate } from './generate';
import { runLint } from './lint';
import { runSshCheck } from './sshCheck';
import { runFacts, runJoin, runPlanVerb, runUp } from './bringUp';
import { runStatus } from './status';
import { runCordon, runDrainVerb, runUncordon } from './drain';
import { runDrillVerb } from './drill';
import { runCertsVerb } from './certs';
import { runBackupVerb } from './backup';
import { runRestoreVerb } from './restore';
import { runRemoveVerb, runReplaceVerb, runResetVerb } from './nodes';
import { runUpgradeVerb } from './upgrade';
import { runTimelineVerb } from './timeline';

type Verb = { summary: string; run: (args: string[], io: CliIo) => Promise<number> };

const VERBS: Record<string, Verb> = {
  facts: { summary: 'facts --inventory F [--host NAME]... [--json]   gather host facts in parallel; flag cloned VMs, swap, modules, cgroup drivers', run: runFacts },
  plan: { summary: 'plan --inventory F [--phases a,b] [--format text|json]   print the bring-up plan: the exact commands per host (json: phases → hosts → steps)', run: runPlanVerb },
  up: { summary: 'up --inventory F [--phases a,b] [--yes] [--fresh] [--ask-become-pass]   run the bring-up plan over SSH (resumes a failed run; sudo for non-root logins)', run: runUp },
  join: { summary: 'join --inventory F --host NAME... [--yes] [--ask-become-pass]   join inventory hosts to the running cluster (prepare, join, etcd and Ready gates)', run: runJoin },
  'check-inventory': { summary: 'check-inventory FILE            validate an inventory.yaml', run: runCheckInventory },
  'import-ansible': { summary: 'import-ansible FILE [--out F]   convert an Ansible/Kubespray inventory', run: runImport },
  lint: { summary: 'lint [--inventory F] [--format text|json|sarif] [--fix] PATH...   check config files against the rules and the inventory', run: runLint },
  generate: { summary: 'generate [--inventory F] [--out DIR] [--containerd-version V] [--force]   write the cluster config files from the inventory', run: runGenerate },
  status: { summary: 'status --inventory F [--kubeconfig F] [--context N] [--json]   live cluster state; exit 1 when degraded', run: runStatus },
  drain: { summary: 'drain NODE [--ignore-daemonsets] [--delete-emptydir-data] [--force] [--timeout=300s] [--grace-period=-1] [--dry-run[=client|server]] [--then CMD --inventory F] [--uncordon] [--yes]   kubectl drain with a plan first, a finite timeout and the control-plane guard', run: runDrainVerb },
  cordon: { summary: 'cordon NODE [--kubeconfig F] [--context N] [--dry-run[=client|server]] [--yes]   mark the node unschedulable', run: runCordon },
  uncordon: { summary: 'uncordon NODE [--kubeconfig F] [--context N] [--dry-run[=client|server]] [--yes]   mark the node schedulable again', run: runUncordon },
  drill: { summary: "drill --inventory F --host NAME [--kind stop|power-off] [--power-off-command 'CMD {host}' --power-on-command 'CMD {host}'] [--evictions-wait 120s] [--plan] [--yes] [--json]   fail one node, measure HAProxy DOWN, etcd election, lease handover, NotReady, evictions; restore it and measure the way back", run: runDrillVerb },
  certs: { summary: 'certs --inventory F [--host NAME]... [--warning-days 30] [--error-days 7] [--json]   every kubeadm certificate over SSH (read-only), served vs on disk, SANs vs the inventory; exit 1 under the warning threshold; certs renew --inventory F [--host NAME]... [--kubeconfig F] [--yes]: one control-plane node at a time, health gates, quorum guard, plan first', run: runCertsVerb },
  backup: { summary: 'backup --inventory F --out DIR [--json] | --out DIR --list   etcd snapshot from a healthy follower, verified, pulled 0600 with a manifest (DIR outside any git tree); backup schedule --inventory F [--interval 12h] [--keep 5] | --remove | --status: a systemd timer on each control-plane node', run: runBackupVerb },
  restore: { summary: 'restore --inventory F --from SNAPSHOT [--force] [--plan] [--yes]   etcd disaster recovery from a backup: refused while etcd has quorum unless forced; every member restored together, RTO printed', run: runRestoreVerb },
  remove: { summary: 'remove --inventory F --host NAME [--force NAME] [--drain-timeout 300s] [--yes]   take a node out of the cluster, also a dead one: quorum guard, leases moved, drain, etcd member removed by ID, Node deleted, HAProxy backends updated, reset when it answers; offers the inventory edit', run: runRemoveVerb },
  replace: { summary: 'replace --inventory F --host OLD --with NEW [--address A] [--force OLD] [--yes]   remove OLD as above, then join NEW with a fresh certificate key (etcd and Ready gates, HAProxy backends UP); offers the inventory edit', run: runReplaceVerb },
  upgrade: { summary: 'upgrade --inventory F --to VERSION --backup-dir DIR [--plan] [--yes] [--max-unavailable N] [--delete-emptydir-data]   upgrade the cluster one minor (or a patch): preflight (versions, etcd, packages and images, removed APIs), etcd snapshot, control planes one at a time behind HAProxy, then kubelets; resumes', run: runUpgradeVerb },
  reset: { summary: 'reset --inventory F --host NAME [--yes]   kubeadm reset and clean-up (CNI config, iptables, IPVS) of a host for re-use; refused while it is an etcd member or a Node', run: runResetVerb },
  timeline: { summary: 'timeline --inventory F [--image IMAGE] [--node NAME] [--json]   kubectl run a test pod, wait for Ready, print every hop from the POST to Ready in causal order with its source, precision and duration (audit log, journals and CNI lease over SSH when the context is the inventory\'s cluster), delete the pod', run: runTimelineVerb },
  'ssh-check': { summary: 'ssh-check --inventory F [--ssh-config F] [--known-hosts F] [--host NAME]   connect to every host, run uname -n; exit 1 naming hosts with unknown/changed/revoked keys or failed auth', run: runSshCheck },
};

function usage(io: CliIo): void {
  io.stderr(`usage: kubeadm-workbench <verb> [args]\n\nverbs:\n${Object.values(VERBS).map((v) => `  ${v.summary}`).join('\n')}\n`);
}

export async function main(argv: string[], io: CliIo = processIo): Promise<number> {
  const [verb, ...args] = argv;
  if (!verb || verb === '--help' || verb === '-h') {
    usage(io);
    return verb ? 0 : EXIT_USAGE;
  }
  const entry = VERBS[verb];
  const languageWarning = useCliLanguage(process.env);
  if (languageWarning) io.stderr(escapeControls(`kubeadm-workbench: ${languageWarning}\n`));
  if (!entry) {
    io.stderr(`unknown verb "${verb}"\n`);
    usage(io);
    return EXIT_USAGE;
  }
  return entry.run(args, io);
}

if (require.main === module) {
  // `kubeadm-workbench lint ... | head` closes the pipe early: that is the reader's choice, not an error.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
      throw e;
    });
  }
  main(process.argv.slice(2)).then(
    (code) => (process.exitCode = code),
    (e: unknown) => {
      process.stderr.write(escapeControls(`kubeadm-workbench: ${e instanceof Error ? e.message : String(e)}\n`));
      process.exitCode = 1;
    },
  );
}
