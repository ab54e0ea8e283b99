import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  checkHostKey,
  entryMatchesHost,
  fingerprint,
  formatKnownHostsLine,
  matchPatternList,
  parseCertificate,
  parseKnownHosts,
} from '../../../src/core/ssh/knownHosts';
import { CliHostKeyPrompt, HostKeyVerifier, type HostKeyPrompt } from '../../../src/core/ssh/hostKeyPolicy';
import { hashKnownHosts, keygen, keygenFingerprint, signHostCert, tempDir } from './keys';

const tmp = tempDir('kw-kh-');
after(tmp.cleanup);
const d = tmp.dir;
const m01 = keygen(d, 'm01', 'ed25519');
const m01Other = keygen(d, 'm01-reinstalled', 'ed25519');
const m01Ecdsa = keygen(d, 'm01-ecdsa', 'ecdsa');
const m02Rsa = keygen(d, 'm02', 'rsa');
const lb = keygen(d, 'lb', 'ecdsa');
const ca = keygen(d, 'ca', 'ed25519');
const otherCa = keygen(d, 'other-ca', 'ed25519');
const w01 = keygen(d, 'w01', 'ed25519');

const parse = (text: string, file = 'known_hosts') => {
  const r = parseKnownHosts(text, file);
  assert.deepEqual(r.problems, []);
  return r.entries;
};

test('SHA256 fingerprints match ssh-keygen -lf for ed25519, ecdsa and rsa keys', () => {
  for (const k of [m01, m01Ecdsa, m02Rsa]) {
    assert.equal(fingerprint(k.blob), keygenFingerprint(`${k.path}.pub`));
    assert.match(fingerprint(k.blob), /^SHA256:[A-Za-z0-9+/]{43}$/);
  }
});

test('patterns: *, ?, negation, [host]:port, case-insensitive', () => {
  assert.ok(matchPatternList('labs-k8s-m01', ['labs-k8s-*']));
  assert.ok(matchPatternList('labs-k8s-m01', ['labs-k8s-m0?']));
  assert.ok(!matchPatternList('labs-k8s-m01', ['labs-k8s-?']));
  assert.ok(!matchPatternList('labs-k8s-m01', ['labs-*', '!*-m01']));
  assert.ok(matchPatternList('LABS-K8S-M01', ['labs-k8s-m01']));
  const e = parse(`[10.3.60.51]:2222,10.3.60.51 ${m01.pub}\n`);
  assert.ok(entryMatchesHost(e[0]!, '10.3.60.51', 2222));
  assert.ok(entryMatchesHost(e[0]!, '10.3.60.51', 22));
  assert.ok(!entryMatchesHost(e[0]!, '10.3.60.51', 2200));
});

test('trusted / unknown / changed / revoked over several files, with markers and comments', () => {
  const user = parse(
    [
      '# comment line',
      '',
      `labs-k8s-m01,10.3.60.51 ${m01.pub}`,
      `10.3.60.52 ${m02Rsa.pub}`,
      `@revoked * ${lb.pub}`,
      `  10.3.60.55 ${m01Ecdsa.pub}   # trailing comment`,
    ].join('\n'),
    '/home/u/.ssh/known_hosts',
  );
  const own = parse(`[10.3.60.51]:2222 ${m01Other.pub}\n`, 'own_known_hosts');
  const all = [...user, ...own];
  assert.equal(checkHostKey(all, { host: '10.3.60.51', port: 22, key: m01.blob }).status, 'trusted');
  assert.equal(checkHostKey(all, { host: 'LABS-K8S-M01', port: 22, key: m01.blob }).status, 'trusted');
  const changed = checkHostKey(all, { host: '10.3.60.51', port: 22, key: m01Other.blob });
  assert.equal(changed.status, 'changed');
  assert.equal(changed.entry?.file, '/home/u/.ssh/known_hosts');
  assert.equal(changed.entry?.line, 3);
  assert.equal(changed.fingerprint, keygenFingerprint(`${m01Other.path}.pub`));
  // Same host, a different port: a separate identity (the own file has the other key there).
  assert.equal(checkHostKey(all, { host: '10.3.60.51', port: 2222, key: m01Other.blob }).status, 'trusted');
  assert.equal(checkHostKey(all, { host: '10.3.60.51', port: 2222, key: m01.blob }).status, 'changed');
  // A key of another type than the one on record: unknown, with a note.
  const otherType = checkHostKey(all, { host: '10.3.60.51', port: 22, key: m01Ecdsa.blob });
  assert.equal(otherType.status, 'unknown');
  assert.match(otherType.note ?? '', /other types/);
  assert.equal(checkHostKey(all, { host: '10.3.60.99', port: 22, key: w01.blob }).status, 'unknown');
  // Revoked keys are refused for every host, even one that lists the key as its own.
  const withLb = [...all, ...parse(`10.3.60.50 ${lb.pub}\n`)];
  const rev = checkHostKey(withLb, { host: '10.3.60.50', port: 22, key: lb.blob });
  assert.equal(rev.status, 'revoked');
  assert.equal(rev.entry?.line, 5);
  assert.equal(checkHostKey(all, { host: '10.3.60.55', port: 22, key: m01Ecdsa.blob }).status, 'trusted');
});

test('hashed entries written by ssh-keygen -H are matched, including [host]:port', () => {
  const file = join(d, 'hashed_known_hosts');
  writeFileSync(file, `labs-k8s-m01 ${m01.pub}\n[127.0.0.1]:2222 ${m02Rsa.pub}\n`);
  hashKnownHosts(file);
  const text = readFileSync(file, 'utf8');
  assert.ok(!text.includes('labs-k8s-m01') && text.startsWith('|1|'));
  const entries = parse(text, file);
  assert.equal(checkHostKey(entries, { host: 'labs-k8s-m01', port: 22, key: m01.blob }).status, 'trusted');
  assert.equal(checkHostKey(entries, { host: 'labs-k8s-m02', port: 22, key: m01.blob }).status, 'unknown');
  assert.equal(checkHostKey(entries, { host: '127.0.0.1', port: 2222, key: m02Rsa.blob }).status, 'trusted');
  assert.equal(checkHostKey(entries, { host: '127.0.0.1', port: 22, key: m02Rsa.blob }).status, 'unknown');
});

test('lines we write (hashed and plain) are found by ssh-keygen -F and read back', () => {
  const file = join(d, 'own_written');
  writeFileSync(file, '');
  appendFileSync(file, formatKnownHostsLine('10.3.60.54', 22, w01.blob, { comment: 'added-by-test' }));
  appendFileSync(file, formatKnownHostsLine('127.0.0.1', 2201, m01.blob, { hashed: false }));
  const text = readFileSync(file, 'utf8');
  assert.match(text.split('\n')[0]!, /^\|1\|[A-Za-z0-9+/=]{28}\|[A-Za-z0-9+/=]{28} ssh-ed25519 /);
  assert.match(text.split('\n')[1]!, /^\[127\.0\.0\.1\]:2201 ssh-ed25519 /);
  const found = execFileSync('ssh-keygen', ['-F', '10.3.60.54', '-f', file], { encoding: 'utf8' });
  assert.match(found, /Host 10\.3\.60\.54 found: line 1/);
  const found2 = execFileSync('ssh-keygen', ['-F', '[127.0.0.1]:2201', '-f', file], { encoding: 'utf8' });
  assert.match(found2, /found: line 2/);
  const entries = parse(text, file);
  assert.equal(checkHostKey(entries, { host: '10.3.60.54', port: 22, key: w01.blob }).status, 'trusted');
  assert.equal(entries[0]!.comment, 'added-by-test');
});

test('@cert-authority: a host certificate signed by the CA is verified (signature, principals, validity)', () => {
  const cert = signHostCert(ca, w01, ['labs-k8s-w01', '10.3.60.54']);
  const parsed = parseCertificate(cert.blob)!;
  assert.equal(parsed.type, 2);
  assert.deepEqual(parsed.principals, ['labs-k8s-w01', '10.3.60.54']);
  assert.ok(parsed.publicKey.equals(w01.blob));
  const entries = parse(`@cert-authority *.lab,10.3.60.* ${ca.pub}\n@cert-authority * ${otherCa.pub}\n`);
  const ok = checkHostKey(entries, { host: '10.3.60.54', port: 22, key: cert.blob });
  assert.equal(ok.status, 'trusted');
  assert.equal(ok.fingerprint, keygenFingerprint(`${w01.path}.pub`));
  // Not among the principals.
  const wrongHost = checkHostKey(entries, { host: '10.3.60.55', port: 22, key: cert.blob });
  assert.equal(wrongHost.status, 'unknown');
  assert.match(wrongHost.note ?? '', /valid for labs-k8s-w01, 10\.3\.60\.54, not 10\.3\.60\.55/);
  // The CA line does not cover this host name.
  assert.equal(checkHostKey(parse(`@cert-authority *.lab ${ca.pub}\n`), { host: '10.3.60.54', port: 22, key: cert.blob }).status, 'unknown');
  // Expired.
  assert.match(checkHostKey(entries, { host: '10.3.60.54', port: 22, key: cert.blob, now: new Date(Date.now() + 2 * 3600_000) }).note ?? '', /expired/);
  // A forged certificate: flip one byte of the signed part → the signature does not verify.
  const forged = Buffer.from(cert.blob);
  const idx = forged.indexOf(Buffer.from('labs-k8s-w01'));
  forged[idx] = 'L'.charCodeAt(0);
  const f = checkHostKey(entries, { host: '10.3.60.54', port: 22, key: forged });
  assert.equal(f.status, 'unknown');
  assert.match(f.note ?? '', /signature does not verify/);
  // Revoking the CA revokes its certificates.
  assert.equal(checkHostKey([...entries, ...parse(`@revoked * ${ca.pub}\n`)], { host: '10.3.60.54', port: 22, key: cert.blob }).status, 'revoked');
  // A plain key for a host covered only by a CA line: unknown, and it says why.
  const plain = checkHostKey(entries, { host: '10.3.60.54', port: 22, key: w01.blob });
  assert.equal(plain.status, 'unknown');
  assert.match(plain.note ?? '', /cert-authority/);
});

test('certificates signed by ecdsa and rsa CAs verify too', () => {
  for (const [name, type] of [['ca-ecdsa', 'ecdsa'], ['ca-rsa', 'rsa']] as const) {
    const c = keygen(d, name, type);
    const hostKey = keygen(d, `host-for-${name}`, 'ed25519');
    const cert = signHostCert(c, hostKey, ['h1']);
    assert.equal(checkHostKey(parse(`@cert-authority h1 ${c.pub}\n`), { host: 'h1', port: 22, key: cert.blob }).status, 'trusted', name);
  }
});

test('malformed lines are reported, not fatal', () => {
  const r = parseKnownHosts(`@bogus h ${m01.pub}\nh ssh-ed25519 !!!\nh ssh-rsa ${m01.pub.split(' ')[1]}\n|1|abc|def ${m01.pub}\nonlyhost\n10.0.0.1 ${m01.pub}\n`, 'f');
  assert.equal(r.entries.length, 1);
  assert.deepEqual(r.problems.map((p) => p.line), [1, 2, 3, 4, 5]);
});

test('HostKeyVerifier: unknown → prompt; once is remembered for the session only; remember appends a hashed line', async () => {
  const own = join(d, 'verifier_own_known_hosts');
  const files = new Map<string, string>();
  const calls: string[] = [];
  let answer: 'once' | 'remember' | 'reject' = 'reject';
  const prompt: HostKeyPrompt = {
    unknown: async (host, port, type, fp) => {
      calls.push(`unknown ${host}:${port} ${type} ${fp}`);
      return answer;
    },
    changed: async (host, port, type, fp, det) => {
      calls.push(`changed ${host}:${port} ${type} ${fp} ${det.file}:${det.line}`);
    },
  };
  const store = {
    files: ['user_kh'],
    ownFile: own,
    read: async (p: string) => files.get(p),
    append: async (p: string, t: string) => void files.set(p, (files.get(p) ?? '') + t),
  };
  files.set('user_kh', `10.3.60.51 ${m01.pub}\n`);
  const v = new HostKeyVerifier(store, prompt);
  const hop = (hostname: string) => ({ alias: 'x', hostname, port: 22 });
  assert.equal((await v.verify(hop('10.3.60.51'), m01.blob)).accepted, true);
  assert.equal(calls.length, 0);
  assert.equal((await v.verify(hop('10.3.60.54'), w01.blob)).accepted, false);
  assert.deepEqual(calls, [`unknown 10.3.60.54:22 ssh-ed25519 ${keygenFingerprint(`${w01.path}.pub`)}`]);
  answer = 'once';
  assert.equal((await v.verify(hop('10.3.60.54'), w01.blob)).how, 'once');
  assert.equal((await v.verify(hop('10.3.60.54'), w01.blob)).how, 'once');
  assert.equal(calls.length, 2, 'accepted once is not asked again in the session');
  assert.equal(files.get(own), undefined, 'once writes nothing');
  answer = 'remember';
  assert.equal((await v.verify(hop('10.3.60.53'), m02Rsa.blob)).how, 'remembered');
  assert.match(files.get(own)!, /^\|1\|.* ssh-rsa .* added-by-kubeadm-workbench /);
  const v2 = new HostKeyVerifier(store, prompt);
  assert.equal((await v2.verify(hop('10.3.60.53'), m02Rsa.blob)).how, 'known');
  // Changed: the prompt is told, and the connection refused whatever it does.
  const ch = await v2.verify(hop('10.3.60.51'), m01Other.blob);
  assert.equal(ch.accepted, false);
  assert.equal(ch.check.status, 'changed');
  assert.equal(calls[calls.length - 1], `changed 10.3.60.51:22 ssh-ed25519 ${fingerprint(m01Other.blob)} user_kh:1`);
});

test('CLI prompt: refuses unknown keys unless the exact fingerprint is given', async () => {
  const fp = fingerprint(w01.blob);
  const none = new CliHostKeyPrompt([]);
  assert.equal(await none.unknown('10.3.60.54', 22, 'ssh-ed25519', fp, { alias: 'w01' }), 'reject');
  assert.match(none.messages[0]!, new RegExp(`--accept-new-host-key=${fp.replace(/[+/]/g, '\\$&')}`));
  const other = new CliHostKeyPrompt([fingerprint(m01.blob)]);
  assert.equal(await other.unknown('10.3.60.54', 22, 'ssh-ed25519', fp, { alias: 'w01' }), 'reject');
  const given = new CliHostKeyPrompt([fp]);
  assert.equal(await given.unknown('10.3.60.54', 22, 'ssh-ed25519', fp, { alias: 'w01' }), 'once');
  await given.changed('10.3.60.51', 2222, 'ssh-ed25519', fp, { alias: 'm01', file: '/k', line: 3 });
  assert.match(given.messages[given.messages.length - 1]!, /man-in-the-middle.*ssh-keygen -R '\[10\.3\.60\.51\]:2222' -f \/k/);
});
