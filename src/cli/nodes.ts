/**
 * `remove`, `replace` and `reset`:
 *   kubeadm-workbench remove  --inventory F --host NAME [--force NAME] [--drain-timeout 300s] [--yes] [--fresh]
 *   kubeadm-workbench replace --inventory F --host OLD --with NEW [--address A] [--force OLD] [--yes] [--fresh]
 *   kubeadm-workbench reset   --inventory F --host NAME [--yes]
 *   (and the SSH flags; --ask-become-pass for non-root logins)
 * What was found (who answers, etcd's members and the quorum arithmetic) and the plan come first; a refusal
 * comes before anything acts. Another unhealthy etcd member is passed only with the host's name typed back
 * (or given with --force NAME); a quorum loss never. After a remove or replace the inventory.yaml edit is
 * printed as a diff and written only when confirmed (or --yes). Exit 0 done, 1 refused or failed, 2 usage.
 * The checks, questions, run and edit are the nodes workflow's (engine/workflows/nodesWorkflow.ts), which the
 * editor's commands call too; this verb reads its flags and hands it the terminal.
 */
import { dirname } from 'node:path';
import type { NodeOperation, NodeRequest } from '../engine/nodes';
import { phaseConfigs, phaseSources, readKubeadmExtra } from '../engine/inputs';
import { stateFolderFor, vrrpAuthPass } from '../engine/stateFolder';
import { nodesWorkflow } from '../engine/workflows/nodesWorkflow';
import { UsageError, type FlagSpec } from './args';
import { parseDuration } from './drain';
import { EXIT_FAILED, EXIT_OK, INVENTORY_READ } from './io';
import { defineVerb, usageText, type ListedVerbs } from './verb';
import { t } from '../core/l10n';
import { PLAN_VERB_FLAGS } from './verbFlags';

const FLAGS: FlagSpec = { ...PLAN_VERB_FLAGS, host: 'string', with: 'string', address: 'string', force: 'string', 'drain-timeout': 'string' };
const SSH_USAGE = '[--ssh-config F] [--known-hosts F] [--accept-new-host-key=SHA256:...] [--ask-become-pass]';
const USAGE: Record<NodeOperation, () => string> = {
  remove: () => usageText([`kubeadm-workbench remove --inventory FILE --host NAME [--force NAME] [--drain-timeout 300s] [--yes] [--fresh] ${SSH_USAGE}`]),
  replace: () =>
    usageText(
      [`kubeadm-workbench replace --inventory FILE --host OLD --with NEW [--address A] [--force OLD] [--drain-timeout 300s] [--yes] [--fresh] ${SSH_USAGE}`],
      [t('NEW is a host of the inventory without a node role (a spare), or a new name given with --address')],
    ),
  reset: () => usageText([`kubeadm-workbench reset --inventory FILE --host NAME [--yes] ${SSH_USAGE}`]),
};

// A failure thrown by the workflow is said by defineVerb's boundary: "kubeadm-workbench <operation>: <cause>", exit 1.
function verb(operation: NodeOperation) {
  return defineVerb({
    words: operation, flags: FLAGS, usage: USAGE[operation], needs: { inventory: 'strict', inventoryShown: 'resolved', ssh: {} },
    validate: (f) => {
      if (!f.host) throw new UsageError(t('--host is required'));
      if (operation === 'replace' && !f.with) throw new UsageError(t('--with NEW is required: the host that takes its place'));
      if (operation !== 'replace' && (f.with || f.address)) throw new UsageError(t('--with and --address go with replace'));
      if (operation === 'reset' && f.force) throw new UsageError(t('reset has no --force: it is refused while the host is a member or a Node'));
      const drainTimeoutSeconds = f['drain-timeout'] !== undefined ? parseDuration(f['drain-timeout'] as string, 'drain-timeout') : undefined;
      if (drainTimeoutSeconds === 0) throw new UsageError(t('--drain-timeout must be finite (more than 0)'));
      return { drainTimeoutSeconds };
    },
    run: async ({ inventory, inventoryPath, flags, io, options: { drainTimeoutSeconds }, ssh, planRun }) => {
      const host = flags.host as string;
      let replacement: NodeRequest['replacement'];
      if (operation === 'replace') {
        const name = flags.with as string;
        const address = (flags.address as string | undefined) ?? inventory.hosts.find((h) => h.name === name)?.address;
        if (!address) throw new UsageError(`replace: ${t('{0} is not in the inventory: give its address with --address', name)}`);
        replacement = { name, address };
        // A new host not in the inventory is reached with the old one's SSH settings (and no role until it joins).
        const old = inventory.hosts.find((h) => h.name === host);
        if (old && !inventory.hosts.some((h) => h.name === name)) inventory.hosts.push({ ...old, name, address, roles: [] });
      }
      // The pool is made here, after the replacement joined the inventory's hosts.
      const pool = ssh();
      const { ui, run, preflight } = planRun();
      // A node being removed or replaced may be dead; a re-imaged host's changed key is the workflow's own question.
      const tolerate = { hosts: operation === 'reset' ? [] : [host], kinds: ['host-key-changed'] };
      const operationName = { remove: t('Remove {0}', host), replace: t('Replace {0}', host), reset: t('Reset {0}', host) }[operation];
      if (!(await preflight(operationName, inventory.hosts.map((h) => h.name), tolerate))) return EXIT_FAILED;
      const outcome = await nodesWorkflow(ui, {
        deps: {
          inventory,
          inventoryText: await io.readFile(inventoryPath, INVENTORY_READ),
          ssh: pool,
          joinInputs: async (inv) => {
            const dir = dirname(inventoryPath);
            const extra = await readKubeadmExtra(inv, dir, io.readFile);
            return { configs: phaseConfigs(inv, extra, await vrrpAuthPass(stateFolderFor(inventoryPath))), sources: await phaseSources(inv, dir, io.readFile) };
          },
        },
        loginUser: (h) => pool.loginUser(h),
        hostKeys: pool,
        fingerprintsGiven: (flags['accept-new-host-key'] as string[] | undefined) ?? [],
        request: { operation, host, ...(replacement ? { replacement } : {}), ...(drainTimeoutSeconds ? { drainTimeoutSeconds } : {}) },
        // A forced removal is taken from --force NAME or typed at the prompt, never from --yes.
        ...(flags.force !== undefined ? { forceName: flags.force as string } : flags.yes ? { forceName: '' } : {}),
        run,
        inventoryEdit: {
          file: inventoryPath,
          question: t('Write {0}?', inventoryPath),
          action: t('Write'),
          apply: async (text) => {
            await io.writeFile(inventoryPath, text);
            return t('{0} written.', inventoryPath);
          },
        },
      });
      return outcome.kind === 'ran' && outcome.result.ok ? EXIT_OK : EXIT_FAILED;
    },
  });
}

export const runRemoveVerb = verb('remove');
export const runReplaceVerb = verb('replace');
export const runResetVerb = verb('reset');

/** What `kubeadm-workbench --help` lists of this file (ListedVerbs, ./verb.ts; npm run gen:tables copies it into main.ts). */
export const verbs = {
  remove: { summary: () => `remove --inventory F --host NAME [--force NAME] [--drain-timeout 300s] [--yes]   ${t('take a node out of the cluster, also a dead one: quorum guard, leases moved, drain, etcd member removed by ID, Node deleted, HAProxy backends updated, reset when it answers; offers the inventory edit')}`, run: runRemoveVerb },
  replace: { summary: () => `replace --inventory F --host OLD --with NEW [--address A] [--force OLD] [--yes]   ${t('remove OLD as above, then join NEW with a fresh certificate key (etcd and Ready gates, HAProxy backends UP); offers the inventory edit')}`, run: runReplaceVerb },
  reset: { summary: () => `reset --inventory F --host NAME [--yes]   ${t('kubeadm reset and clean-up (CNI config, iptables, IPVS) of a host for re-use; refused while it is an etcd member or a Node')}`, run: runResetVerb },
} satisfies ListedVerbs;
