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
import { dirname, resolve } from 'node:path';
import { describeError } from '../core/live/errors';
import type { NodeOperation, NodeRequest } from '../engine/nodes';
import { phaseConfigs, phaseSources, readKubeadmExtra } from '../engine/inputs';
import { stateFolderFor, vrrpAuthPass } from '../engine/stateFolder';
import { nodesWorkflow } from '../engine/workflows/nodesWorkflow';
import { UsageError, type FlagSpec } from './args';
import { parseDuration } from './drain';
import { terminalPlanRun } from './bringUp';
import { EXIT_FAILED, EXIT_OK, INVENTORY_READ, type CliIo } from './io';
import { parseVerbFlags, PLAN_VERB_FLAGS } from './verbFlags';
import { loadInventoryFile } from './inventoryFile';
import { poolFromFlags } from './sshFlags';
import { Prompter } from './secretPrompt';

const FLAGS: FlagSpec = { ...PLAN_VERB_FLAGS, host: 'string', with: 'string', address: 'string', force: 'string', 'drain-timeout': 'string' };
const SSH_USAGE = '[--ssh-config F] [--known-hosts F] [--accept-new-host-key=SHA256:...] [--ask-become-pass]';
const USAGE: Record<NodeOperation, string> = {
  remove: `usage: kubeadm-workbench remove --inventory FILE --host NAME [--force NAME] [--drain-timeout 300s] [--yes] [--fresh] ${SSH_USAGE}\n`,
  replace: `usage: kubeadm-workbench replace --inventory FILE --host OLD --with NEW [--address A] [--force OLD] [--drain-timeout 300s] [--yes] [--fresh] ${SSH_USAGE}\n` +
    '  NEW is a host of the inventory without a node role (a spare), or a new name given with --address\n',
  reset: `usage: kubeadm-workbench reset --inventory FILE --host NAME [--yes] ${SSH_USAGE}\n`,
};

function verb(operation: NodeOperation) {
  return async (argv: string[], io: CliIo, stdin: NodeJS.ReadableStream = process.stdin): Promise<number> => {
    const flags = parseVerbFlags(argv, FLAGS, USAGE[operation], io, (f) => {
      if (!f.inventory) throw new UsageError('--inventory is required');
      if (!f.host) throw new UsageError('--host is required');
      if (operation === 'replace' && !f.with) throw new UsageError('--with NEW is required: the host that takes its place');
      if (operation !== 'replace' && (f.with || f.address)) throw new UsageError('--with and --address go with replace');
      if (operation === 'reset' && f.force) throw new UsageError('reset has no --force: it is refused while the host is a member or a Node');
    });
    if (typeof flags === 'number') return flags;
    let drainTimeoutSeconds: number | undefined;
    try {
      if (flags['drain-timeout'] !== undefined) drainTimeoutSeconds = parseDuration(flags['drain-timeout'] as string, 'drain-timeout');
      if (drainTimeoutSeconds === 0) throw new UsageError('--drain-timeout must be finite (more than 0)');
    } catch (e) {
      if (!(e instanceof UsageError)) throw e;
      io.stderr(`${e.message}\n${USAGE[operation]}`);
      return 2;
    }
    const inventoryPath = resolve(flags.inventory as string);
    const inventory = await loadInventoryFile(inventoryPath, io);
    if (typeof inventory === 'number') return inventory;
    const host = flags.host as string;
    let replacement: NodeRequest['replacement'];
    if (operation === 'replace') {
      const name = flags.with as string;
      const address = (flags.address as string | undefined) ?? inventory.hosts.find((h) => h.name === name)?.address;
      if (!address) {
        io.stderr(`replace: ${name} is not in the inventory: give its address with --address\n${USAGE.replace}`);
        return 2;
      }
      replacement = { name, address };
      // A new host not in the inventory is reached with the old one's SSH settings (and no role until it joins).
      const old = inventory.hosts.find((h) => h.name === host);
      if (old && !inventory.hosts.some((h) => h.name === name)) inventory.hosts.push({ ...old, name, address, roles: [] });
    }
    const pool = poolFromFlags(inventory, flags, { report: (line) => io.stderr(`${line}\n`), connectTimeoutMs: 8000 });
    const prompter = new Prompter(stdin);
    const { ui, run, preflight } = terminalPlanRun({ inventory, inventoryPath, flags, argv }, io, prompter, stdin, pool, operation);
    try {
      // A node being removed or replaced may be dead; a re-imaged host's changed key is the workflow's own question.
      const tolerate = { hosts: operation === 'reset' ? [] : [host], kinds: ['host-key-changed'] };
      if (!(await preflight(`${operation[0]!.toUpperCase()}${operation.slice(1)} ${host}`, inventory.hosts.map((h) => h.name), tolerate))) return EXIT_FAILED;
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
          question: `Write ${inventoryPath}?`,
          action: 'Write',
          apply: async (text) => {
            await io.writeFile(inventoryPath, text);
            return `${inventoryPath} written.`;
          },
        },
      });
      return outcome.kind === 'ran' && outcome.result.ok ? EXIT_OK : EXIT_FAILED;
    } catch (e) {
      io.stderr(`kubeadm-workbench ${operation}: ${describeError(e)}\n`);
      return EXIT_FAILED;
    } finally {
      prompter.close();
      await pool.close();
    }
  };
}

export const runRemoveVerb = verb('remove');
export const runReplaceVerb = verb('replace');
export const runResetVerb = verb('reset');
