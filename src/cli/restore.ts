/**
 * `kubeadm-workbench restore --inventory FILE --from SNAPSHOT [--force] [--yes] [--plan]`: disaster recovery
 * of etcd from a snapshot (a `backup` folder's snapshot.db; its manifest.json beside it names the members).
 * Refused while etcd still has a healthy quorum unless --force (and then the cluster's name must be typed,
 * unless --yes). Stops the API servers and etcd everywhere, restores the same snapshot on every member
 * (own --name and peer URL, the full --initial-cluster, a fresh token) into a new data dir with the old one
 * kept aside, brings etcd back, checks the members, brings the API servers back and waits for every Node
 * Ready. Prints the RTO: restore start → the API answering through the endpoint. Exit 0 done, 1 refused
 * or failed, 2 usage. The checks, the refusal, the typed name and the run are the restore workflow's
 * (engine/workflows/restoreWorkflow.ts), the editor's "Restore from this backup…" too.
 */
import { readRegularSync } from '../adapters/fs/safeFile';
import { dirname, join, resolve } from 'node:path';
import { restoreWorkflow } from '../engine/workflows/restoreWorkflow';
import { UsageError, type FlagSpec } from './args';
import { EXIT_FAILED, EXIT_OK } from './io';
import { hostsWith } from '../core/inventory/types';
import { defineVerb, usageText, type ListedVerbs } from './verb';
import { t } from '../core/l10n';
import { PLAN_VERB_FLAGS } from './verbFlags';

const FLAGS: FlagSpec = { ...PLAN_VERB_FLAGS, from: 'string', force: 'boolean' };

const USAGE = (): string =>
  usageText([
    'kubeadm-workbench restore --inventory FILE --from SNAPSHOT [--force] [--plan] [--yes] [--fresh]',
    '                                 [--ssh-config F] [--known-hosts F] [--accept-new-host-key=SHA256:...] [--ask-become-pass] [--json]',
  ]);

// A failure thrown by the workflow is said by defineVerb's boundary: "kubeadm-workbench restore: <cause>", exit 1.
export const runRestoreVerb = defineVerb({
  words: 'restore', flags: FLAGS, usage: USAGE, needs: { inventory: 'strict', ssh: {} },
  validate: (f) => {
    if (!f.from) throw new UsageError(t('--from is required (a snapshot.db written by `backup`)'));
  },
  run: async ({ inventory, flags, io, ssh, planRun }) => {
    const { ui, run, preflight } = planRun();
    const pool = ssh();
    // A backup of another cluster is refused by the workflow without asking any host; otherwise every member answers first.
    const of = backupCluster(resolve(flags.from as string));
    if ((of === undefined || of === inventory.cluster.name) && !(await preflight(t('Restore etcd'), hostsWith(inventory, 'control-plane')))) return EXIT_FAILED;
    const outcome = await restoreWorkflow(ui, {
      deps: { inventory, ssh: pool },
      loginUser: (h) => pool.loginUser(h),
      snapshot: resolve(flags.from as string),
      run,
      ...(flags.force ? { force: { confirmed: Boolean(flags.yes) } } : {}),
      forceHow: t("pass --force (the cluster's name is then asked, unless --yes)"),
      ...(flags.plan ? { planOnly: true } : {}),
    });
    if (outcome.kind === 'planned') return EXIT_OK;
    if (outcome.kind !== 'ran') return EXIT_FAILED;
    const ok = outcome.result.ok;
    if (flags.json) io.stdout(JSON.stringify({ ok, rtoSeconds: outcome.rtoSeconds, totalSeconds: outcome.totalSeconds }) + '\n');
    else if (outcome.rtoSeconds !== undefined) io.stdout(`${t("RTO: {0} s from the restore's start to the API answering through the endpoint; {1} s to every Node Ready", outcome.rtoSeconds.toFixed(1), outcome.totalSeconds?.toFixed(1))}\n`);
    return ok ? EXIT_OK : EXIT_FAILED;
  },
});

/** The cluster named by the manifest beside a snapshot, when there is a readable one. */
function backupCluster(snapshot: string): string | undefined {
  try {
    const m = JSON.parse(readRegularSync(join(dirname(snapshot), 'manifest.json'), { maxBytes: 1024 * 1024 }).toString('utf8')) as { cluster?: unknown };
    return typeof m.cluster === 'string' ? m.cluster : undefined;
  } catch {
    return undefined;
  }
}

/** What `kubeadm-workbench --help` lists of this file (ListedVerbs, ./verb.ts; npm run gen:tables copies it into main.ts). */
export const verbs = {
  restore: { summary: () => `restore --inventory F --from SNAPSHOT [--force] [--plan] [--yes]   ${t('etcd disaster recovery from a backup: refused while etcd has quorum unless forced; every member restored together, RTO printed')}`, run: runRestoreVerb },
} satisfies ListedVerbs;
