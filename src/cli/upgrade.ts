/**
 * `kubeadm-workbench upgrade --inventory F --to VERSION --backup-dir DIR [--plan] [--yes] [--fresh] [--max-unavailable N]
 * [--drain-timeout 300s] [--delete-emptydir-data] [--kubeconfig F] [--context N]`: a kubeadm upgrade of the whole cluster, one minor (or a patch)
 * at a time. The preflight (every node's versions, etcd, the target's packages and images, removed APIs) is printed
 * first and refuses before anything changes; --plan stops after the plan. The run takes an etcd snapshot into DIR
 * (outside any git work tree), then upgrades the control plane one node at a time behind HAProxy, then the kubelets;
 * a killed run resumes (--fresh starts over). Exit 0 done, 1 refused or failed, 2 usage. The workflow is the
 * editor's "Upgrade Cluster…" too (engine/workflows/upgradeWorkflow.ts).
 */
import { resolve } from 'node:path';
import { createDrainCluster } from '../adapters/kube/drain';
import type { KubeConnection } from '../adapters/kube/index';
import { remoteExecOver } from '../adapters/ssh/fromInventory';
import { describeError } from '../core/live/errors';
import { parseVersion } from '../core/upgrade/versions';
import { gitWorkTreeOf } from '../engine/backup';
import { upgradeHooks } from '../engine/upgrade';
import { upgradeWorkflow } from '../engine/workflows/upgradeWorkflow';
import { UsageError, type FlagSpec } from './args';
import { parseDuration } from './drain';
import { EXIT_FAILED, EXIT_OK } from './io';
import { defineVerb, usageText, type ListedVerbs } from './verb';
import { t } from '../core/l10n';
import { PLAN_VERB_FLAGS } from './verbFlags';

const FLAGS: FlagSpec = { ...PLAN_VERB_FLAGS, to: 'string', 'backup-dir': 'string', 'max-unavailable': 'string', 'drain-timeout': 'string', 'delete-emptydir-data': 'boolean', kubeconfig: 'string', context: 'string' };

export const UPGRADE_USAGE = (): string =>
  usageText(
    [
      'kubeadm-workbench upgrade --inventory FILE --to VERSION --backup-dir DIR [--plan] [--yes] [--fresh] [--max-unavailable N] [--drain-timeout 300s] [--delete-emptydir-data]',
      '                                 [--kubeconfig F] [--context N] [--ssh-config F] [--known-hosts F] [--accept-new-host-key=SHA256:...] [--ask-become-pass]',
    ],
    [
      t("--delete-emptydir-data: the drains evict pods with emptyDir volumes and that data is lost (without it such a pod stops the run at its node's drain)"),
      t('VERSION: the next minor (1.34.12 from 1.33.x) or a patch of the current one; DIR: where the pre-upgrade etcd snapshot goes (outside any git work tree)'),
    ],
  );

export const runUpgradeVerb = defineVerb({
  words: 'upgrade', flags: FLAGS, usage: UPGRADE_USAGE, needs: { inventory: 'strict', ssh: {} },
  validate: async (f) => {
    let maxUnavailable = 1;
    let drainTimeoutSeconds: number | undefined;
    if (!f.to) throw new UsageError(t('--to VERSION is required (e.g. --to 1.34.12)'));
    if (!parseVersion(f.to as string) || !/^v?\d+\.\d+\.\d+$/.test(f.to as string)) throw new UsageError(t('--to {0} is not a Kubernetes version (like 1.34.12)', f.to as string));
    if (!f.plan && !f['backup-dir']) throw new UsageError(t('--backup-dir DIR is required: the etcd snapshot taken before the upgrade goes there'));
    if (f['max-unavailable'] !== undefined) {
      const n = Number(f['max-unavailable']);
      if (!/^\d+$/.test(f['max-unavailable'] as string) || n < 1) throw new UsageError(t('--max-unavailable must be a whole number of workers, 1 or more'));
      maxUnavailable = n;
    }
    if (f['drain-timeout'] !== undefined) {
      drainTimeoutSeconds = parseDuration(f['drain-timeout'] as string, 'drain-timeout');
      if (drainTimeoutSeconds === 0) throw new UsageError(t('--drain-timeout must be finite (more than 0)'));
    }
    const repo = f['backup-dir'] ? await gitWorkTreeOf(f['backup-dir'] as string) : undefined;
    if (repo) throw new UsageError(t('--backup-dir {0} is inside the git work tree {1}: a snapshot holds every Secret of the cluster; choose a folder outside it', f['backup-dir'] as string, repo));
    return { maxUnavailable, drainTimeoutSeconds };
  },
  run: async ({ inventory, flags, io, options: { maxUnavailable, drainTimeoutSeconds }, ssh, become, setPassword, planRun, kube }) => {
    const pool = ssh();
    const { ui, run, preflight } = planRun();
    let conn: KubeConnection | undefined;
    const cluster = async () => {
      // The drains' connection, found like the other verbs' (--kubeconfig, else KUBECONFIG, else ~/.kube/config), its
      // context by the inventory's endpoint unless --context names one.
      conn ??= await kube({ inventory, remote: remoteExecOver(pool), contextByEndpoint: 'require' });
      const c = conn;
      return createDrainCluster(c.transport, { readEtcd: () => c.readEtcd(), inventory });
    };
    // The drains and uncordons go through the API: a machine that cannot reach it learns so before anything changes,
    // not at the first drain with the control plane already upgraded.
    if (!flags.plan) {
      try {
        await cluster();
      } catch (e) {
        io.stderr(`${t("upgrade refused; nothing was done: the drains go through the Kubernetes API of the inventory's cluster: {0} (--kubeconfig F, --context N)", describeError(e))}\n`);
        return EXIT_FAILED;
      }
      const c = conn!;
      const health = await c.health(15_000);
      if (!health.ok) {
        io.stderr(`${t('upgrade refused; nothing was done: the drains go through the Kubernetes API, which this machine cannot reach (context {0}, {1}): {2} (--kubeconfig F, --context N)', c.context, c.server, health.error ? describeError(health.error) : health.detail ?? `HTTP ${health.status ?? '?'}`)}\n`);
        return EXIT_FAILED;
      }
    }
    // Then every host answers, takes our key and lets us become root — before the upgrade asks anything.
    if (!(await preflight(t('Upgrade'), inventory.hosts.map((h) => h.name)))) return EXIT_FAILED;
    const hooks = upgradeHooks({
      backup: { inventory, ssh: pool, become }, backupDir: resolve((flags['backup-dir'] as string | undefined) ?? '.'), cluster,
      ...(drainTimeoutSeconds ? { drainTimeoutSeconds } : {}), deleteEmptyDirData: Boolean(flags['delete-emptydir-data']), say: (l) => io.stderr(`.. ${l}\n`),
    });
    const outcome = await upgradeWorkflow(ui, {
      deps: { inventory, ssh: pool }, loginUser: (h) => pool.loginUser(h), target: flags.to as string, maxUnavailable, ...(conn ? { drainsThrough: { context: conn.context, server: conn.server } } : {}),
      ...(drainTimeoutSeconds ? { drainTimeoutSeconds } : {}), planOnly: Boolean(flags.plan), hooks, run, onPassword: setPassword,
    });
    if (outcome.kind === 'planned') return EXIT_OK;
    if (!('perNode' in outcome)) return EXIT_FAILED;
    const ok = outcome.kind === 'ran' && outcome.result.ok;
    if (flags.json) io.stdout(JSON.stringify({ ok, perNode: outcome.perNode, backups: outcome.backups, explanations: outcome.explanations.map((e) => e.id) }) + '\n');
    else for (const n of outcome.perNode) io.stdout(`${t('upgraded {0} in {1} s', n.host, n.seconds.toFixed(1))}\n`);
    return ok ? EXIT_OK : EXIT_FAILED;
  },
});

/** What `kubeadm-workbench --help` lists of this file (ListedVerbs, ./verb.ts; npm run gen:tables copies it into main.ts). */
export const verbs = {
  upgrade: { summary: () => `upgrade --inventory F --to VERSION --backup-dir DIR [--plan] [--yes] [--max-unavailable N] [--delete-emptydir-data]   ${t('upgrade the cluster one minor (or a patch): preflight (versions, etcd, packages and images, removed APIs), etcd snapshot, control planes one at a time behind HAProxy, then kubelets; resumes')}`, run: runUpgradeVerb },
} satisfies ListedVerbs;
