/**
 * A fresh directory under the OS temp directory for one test process, removed when the process exits: what tests
 * write there — etcd snapshots, kubeconfigs with admin credentials, SSH keys, known_hosts — must not outlive the
 * run on the machine (node --test runs each file in a process of its own, so "exit" is the end of the file).
 * KW_KEEP_TEMP=1 keeps them, to look at after a failure.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const made: string[] = [];
let hooked = false;

export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  if (!hooked && process.env.KW_KEEP_TEMP !== '1') {
    hooked = true;
    process.on('exit', () => {
      for (const d of made) {
        try {
          rmSync(d, { recursive: true, force: true });
        } catch {
          // a process of the test may still hold a file open; the OS temp cleaner has the rest
        }
      }
    });
  }
  return dir;
}
