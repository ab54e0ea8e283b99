/**
 * This user's key for signing what we write into workspaces' state folders (src/core/state/signing.ts). It lives
 * outside every workspace — `$XDG_STATE_HOME/kubeadm-workbench/state-key`, by default under `~/.local/state` — is made
 * once at random (32 bytes, 0600, the folder 0700, created with O_EXCL so two processes starting together agree on one)
 * and is never shown, logged or copied. Deleting it makes every signed record refused (runs start over; the VRRP
 * password is to be made again).
 */
import { randomBytes } from 'node:crypto';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join } from 'node:path';
import { alreadyThere, createNewFile, ensureRealFolder, FileRefused, readRegularText } from './safeFile';
import { t } from '../../core/l10n';

const KEY_TEXT = /^([0-9a-f]{64})\n?$/;

export function stateKeyPath(env: NodeJS.ProcessEnv = process.env, home: string = homedir()): string {
  const base = env.XDG_STATE_HOME && isAbsolute(env.XDG_STATE_HOME) ? env.XDG_STATE_HOME : join(home, '.local', 'state');
  return join(base, 'kubeadm-workbench', 'state-key');
}

const cache = new Map<string, Promise<Buffer>>();

/** The key (made on first use). Cached per path for the process. */
export function stateKey(path: string = stateKeyPath()): Promise<Buffer> {
  let key = cache.get(path);
  if (!key) {
    key = loadOrMake(path);
    cache.set(path, key);
    key.catch(() => cache.delete(path));
  }
  return key;
}

async function loadOrMake(path: string): Promise<Buffer> {
  await ensureRealFolder(dirname(path), { mode: 0o700, recursive: true, mine: true });
  try {
    await createNewFile(path, `${randomBytes(32).toString('hex')}\n`, 0o600);
  } catch (e) {
    if (!alreadyThere(e)) throw e;
  }
  const text = await readRegularText(path, { maxBytes: 256, noFollow: true, mine: true, private: true });
  const m = KEY_TEXT.exec(text);
  if (!m) throw new FileRefused(path, t('is not a key kubeadm-workbench made (64 hex digits); delete it to make a new one (runs it signed will then start over)'));
  return Buffer.from(m[1]!, 'hex');
}
