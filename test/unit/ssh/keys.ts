/** Test helpers: real keys, fingerprints and certificates made by ssh-keygen in a temp directory. */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function tempDir(prefix: string): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface TestKey {
  path: string;
  /** `type base64 comment` */
  pub: string;
  type: string;
  blob: Buffer;
}

export function keygen(dir: string, name: string, type: 'ed25519' | 'ecdsa' | 'rsa' = 'ed25519', passphrase = ''): TestKey {
  const path = join(dir, name);
  execFileSync('ssh-keygen', ['-q', '-t', type, ...(type === 'rsa' ? ['-b', '2048'] : []), '-N', passphrase, '-C', name, '-f', path]);
  return readPub(`${path}.pub`, path);
}

export function readPub(pubPath: string, path = pubPath.replace(/\.pub$/, '')): TestKey {
  const pub = readFileSync(pubPath, 'utf8').trim();
  const [t, b64] = pub.split(/\s+/);
  return { path, pub, type: t!, blob: Buffer.from(b64!, 'base64') };
}

/** `SHA256:...` as ssh-keygen -lf prints it. */
export function keygenFingerprint(pubPath: string): string {
  return execFileSync('ssh-keygen', ['-E', 'sha256', '-lf', pubPath], { encoding: 'utf8' }).split(/\s+/)[1]!;
}

/** Signs `key`'s public half as a host certificate: returns the cert (…-cert.pub) as a TestKey. */
export function signHostCert(ca: TestKey, key: TestKey, principals: string[], validity = '-5m:+1h'): TestKey {
  execFileSync('ssh-keygen', ['-q', '-s', ca.path, '-I', `host-${principals[0]}`, '-h', '-n', principals.join(','), '-V', validity, `${key.path}.pub`]);
  return readPub(`${key.path}-cert.pub`, key.path);
}

/** Hashes every host name in a known_hosts file in place (ssh-keygen -H). */
export function hashKnownHosts(file: string): void {
  execFileSync('ssh-keygen', ['-q', '-H', '-f', file], { stdio: 'ignore' });
}
