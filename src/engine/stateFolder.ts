/**
 * The `.kubeadm-workbench` folder beside the inventory: run ledgers, run logs, host locks and the cluster's
 * VRRP password. It holds secrets of the cluster, so it is 0700 and this user's, its secret files 0600, and it
 * carries its own `.gitignore` (`*`) so none of it is committed with the inventory. The folder may come with a
 * repository like everything else in it: a link in its place is refused, its `.gitignore` is rewritten when it says
 * anything else (a committed empty one does not stay), and a VRRP password is used only when this user's key signed
 * it (src/core/state/signing.ts).
 */
import { randomBytes } from 'node:crypto';
import { dirname, join } from 'node:path';
import { signatureProblem, signRecord } from '../core/state/signing';
import { registerSecret } from '../core/ssh/redact';
import { alreadyThere, createNewFile, ensureRealFolder, FileRefused, lookAt, readRegularText, replaceFile } from '../adapters/fs/safeFile';
import { stateKey } from '../adapters/fs/stateKey';
import { t } from '../core/l10n';

export const STATE_FOLDER = '.kubeadm-workbench';
const VRRP_FILE = 'vrrp-auth-pass';
const VRRP_KIND = 'vrrp-auth-pass v1';
export const STATE_GITIGNORE = '# run logs, ledgers and cluster secrets of kubeadm-workbench: never commit them\n*\n';

export function stateFolderFor(inventoryPath: string): string {
  return join(dirname(inventoryPath), STATE_FOLDER);
}

/** Creates the folder (0700, this user's; never a link) and makes its `.gitignore` ours. */
export async function ensureStateFolder(dir: string): Promise<void> {
  await ensureRealFolder(dir, { mode: 0o700, mine: true });
  const ignore = join(dir, '.gitignore');
  const st = await lookAt(ignore);
  const current = st?.isFile() ? await readRegularText(ignore, { maxBytes: 64 * 1024, noFollow: true }).catch(() => undefined) : undefined;
  // Anything else there — another text, a link, a FIFO — is replaced (a rename replaces a link, never its target).
  if (current !== STATE_GITIGNORE) await replaceFile(ignore, STATE_GITIGNORE, { mode: 0o644, replaceLink: true });
}

/**
 * This cluster's VRRP password: made once at random and kept in the state folder (0600, signed), so every run
 * uploads the same one, and no two clusters share one. Never logged: it is registered for redaction as soon as it
 * is made or read. A file there that this user's key did not sign is refused, never used or replaced: the balancers
 * may hold it, and a new password on one balancer only would split them.
 */
export async function vrrpAuthPass(dir: string): Promise<string> {
  await ensureStateFolder(dir);
  const path = join(dir, VRRP_FILE);
  const key = await stateKey();
  const made = randomBytes(6).toString('base64url');
  try {
    await createNewFile(path, `${made}\n${signRecord(key, VRRP_KIND, { pass: made })}\n`, 0o600);
    registerSecret(made);
    return made;
  } catch (e) {
    if (!alreadyThere(e)) throw e;
  }
  const text = await readRegularText(path, { maxBytes: 4096, noFollow: true, mine: true, private: true });
  const [pass = '', signature, ...rest] = text.split('\n');
  const how = t('delete it to make a new one (the next `up` writes keepalived.conf with it on every balancer)');
  if (!/^[A-Za-z0-9_-]{1,8}$/.test(pass) || rest.some((l) => l !== '')) throw new FileRefused(path, t('does not hold a VRRP password of 1–8 letters and digits; {0}', how));
  registerSecret(pass);
  const problem = signatureProblem(key, VRRP_KIND, { pass }, signature === '' ? undefined : signature);
  if (problem) throw new FileRefused(path, t('is not used: {0}; {1}', problem, how));
  return pass;
}
