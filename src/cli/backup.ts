/**
 * `kubeadm-workbench backup --inventory FILE --out DIR [--json]`: an etcd snapshot from a healthy follower
 * (`etcdctl snapshot save` over SSH), checked (`etcdutl snapshot status` where etcdutl exists, the copy's
 * size and SHA-256 against the host's, etcd's own SHA-256 trailer), pulled into DIR/<cluster>-<time>/
 * with its manifest, the etcd CA certificate and kubeadm's ClusterConfiguration — every file 0600. DIR must
 * be outside any git work tree. `--list` prints the backups already in DIR. Exit 0 done, 1 failed or
 * refused, 2 usage. The sudo question, narration and report are the backup workflow's
 * (engine/workflows/backupWorkflow.ts), the editor's "Back Up etcd…" too.
 */
import { readBackupFolder } from '../engine/backup';
import { oneLine, shownPath } from '../core/text/terminal';
import { backupWorkflow } from '../engine/workflows/backupWorkflow';
import { preflightStep } from '../engine/workflows/preflightStep';
import { cliSshPool } from './adapters';
import { UsageError, type FlagSpec } from './args';
import { runBackupSchedule } from './backupSchedule';
import { loadInventoryFile } from './inventoryFile';
import { EXIT_FAILED, EXIT_OK, type CliIo } from './io';
import { sudoAsked } from './planRun';
import { hostsWith } from '../core/inventory/types';
import { SSH_FLAGS } from './sshFlags';
import { TerminalUi } from './terminalUi';
import { defineVerb, usageText, type ListedVerbs } from './verb';
import { t } from '../core/l10n';

const FLAGS: FlagSpec = { inventory: 'string', out: 'string', list: 'boolean', ...SSH_FLAGS, 'ask-become-pass': 'boolean', json: 'boolean' };

const USAGE = (): string =>
  usageText([
    'kubeadm-workbench backup --inventory FILE --out DIR [--json]',
    '                                [--ssh-config F] [--known-hosts F] [--accept-new-host-key=SHA256:...] [--ask-become-pass]',
    '       kubeadm-workbench backup --out DIR --list [--json]',
  ]);

/** `backup schedule ...` is its own verb; `backup --list` needs no inventory, so the inventory is read here. */
export async function runBackupVerb(argv: string[], io: CliIo, stdin: NodeJS.ReadableStream = process.stdin): Promise<number> {
  return argv[0] === 'schedule' ? runBackupSchedule(argv.slice(1), io, stdin) : backupVerb(argv, io, stdin);
}

const backupVerb = defineVerb({
  words: 'backup', flags: FLAGS, usage: USAGE, needs: {},
  validate: (f) => {
    if (!f.out) throw new UsageError(t('--out is required (a folder outside any git work tree)'));
    if (!f.list && !f.inventory) throw new UsageError(t('--inventory is required'));
  },
  run: async ({ flags, io, stdin, prompter, onClose }) => {
    const out = flags.out as string;
    const json = Boolean(flags.json);
    if (flags.list) {
      const { backups, unreadable } = await readBackupFolder(out);
      if (json) io.stdout(JSON.stringify(backups, null, 2) + '\n');
      else for (const b of backups) io.stdout(`${b.manifest.takenAt}  ${b.manifest.cluster}  ${t('revision {0}', b.manifest.status?.revision ?? b.manifest.revisionAtSave ?? '?')}  ${t('{0} bytes', b.manifest.snapshot.size)}  ${t('from {0}', b.manifest.host)}  ${shownPath(b.dir)}\n`);
      // A folder with a manifest that fails its schema is not a backup to restore from: said, with the reason.
      for (const u of unreadable) io.stderr(`kubeadm-workbench backup --list: ${t('skipped {0}', oneLine(u.problem))}\n`);
      return EXIT_OK;
    }
    const inventory = await loadInventoryFile(flags.inventory as string, io);
    if (typeof inventory === 'number') return inventory;
    const pool = cliSshPool(inventory, flags, io);
    onClose(() => pool.close());
    const ui = new TerminalUi({ io, prompter, yes: true, askBecomePass: Boolean(flags['ask-become-pass']), interactive: Boolean((stdin as { isTTY?: boolean }).isTTY), json });
    // One healthy control-plane node is enough for a snapshot: refused only when none answers.
    const pre = await preflightStep(ui, { ssh: pool, inventory, operation: t('Back Up etcd'), hosts: hostsWith(inventory, 'control-plane'), atLeastOne: true, sudoPasswordAsked: sudoAsked(flags, stdin) });
    if (!pre.ok) return EXIT_FAILED;
    const outcome = await backupWorkflow(ui, { inventory, ssh: pool, loginUser: (h) => pool.loginUser(h), out });
    if (outcome.kind === 'cancelled') io.stderr(`${t('etcd backup cancelled')}\n`);
    if (outcome.kind !== 'done') return EXIT_FAILED;
    const r = outcome.result;
    if (json) io.stdout(JSON.stringify({ dir: r.dir, durationMs: r.durationMs, manifest: r.manifest }, null, 2) + '\n');
    return EXIT_OK;
  },
});

/** What `kubeadm-workbench --help` lists of this file (ListedVerbs, ./verb.ts; npm run gen:tables copies it into main.ts). */
export const verbs = {
  backup: { summary: () => `backup --inventory F --out DIR [--json] | --out DIR --list   ${t('etcd snapshot from a healthy follower, verified, pulled 0600 with a manifest (DIR outside any git tree); {0}: a systemd timer on each control-plane node', 'backup schedule --inventory F [--interval 12h] [--keep 5] | --remove | --status')}`, run: runBackupVerb },
} satisfies ListedVerbs;
