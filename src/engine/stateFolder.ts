/**
 * The `.kubeadm-workbench` folder beside the inventory: run ledgers, run logs, host locks and the cluster's
 * VRRP password. It holds secrets of the cluster, so it is 0700, its secret files 0600, and it carries its
 * own `.gitignore` (`*`) so none of it is committed with the inventory.
 */
import { randomBytes } from 'node:crypto';
import { constants, promises as fs } from 'node:fs';
import { dirname, join } from 'node:path';

export const STATE_FOLDER = '.kubeadm-workbench';
const VRRP_FILE = 'vrrp-auth-pass';

export function stateFolderFor(inventoryPath: string): string {
  return join(dirname(inventoryPath), STATE_FOLDER);
}

/** Creates the folder (0700) with its `.gitignore`; refuses a folder that is a symlink. */
export async function ensureStateFolder(dir: string): Promise<void> {
  await fs.mkdir(dir, { recursive: true, mode: 0o700 });
  const st = await fs.lstat(dir);
  if (!st.isDirectory()) throw new Error(`${dir} is not a folder (a symlink?); not writing run state through it`);
  await writeNew(join(dir, '.gitignore'), '# run logs, ledgers and cluster secrets of kubeadm-workbench: never commit them\n*\n', 0o644);
}

/** Writes a file only when it does not exist, never through a symlink. */
async function writeNew(path: string, text: string, mode: number): Promise<boolean> {
  let handle;
  try {
    handle = await fs.open(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, mode);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw e;
  }
  try {
    await handle.writeFile(text);
  } finally {
    await handle.close();
  }
  return true;
}

/**
 * This cluster's VRRP password: made once at random and kept in the state folder (0600), so every generate
 * and every run writes the same one, and no two clusters share one. Never logged.
 */
export async function vrrpAuthPass(dir: string): Promise<string> {
  await ensureStateFolder(dir);
  const path = join(dir, VRRP_FILE);
  await writeNew(path, randomBytes(6).toString('base64url') + '\n', 0o600);
  const handle = await fs.open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    const pass = (await handle.readFile('utf8')).trim();
    if (!/^[A-Za-z0-9_-]{1,8}$/.test(pass)) throw new Error(`${path} does not hold a VRRP password of 1–8 letters and digits; delete it to make a new one`);
    return pass;
  } finally {
    await handle.close();
  }
}
