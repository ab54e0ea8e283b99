import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sh, secret } from '../../../src/core/ssh/command';
import { LineRedactor, Redactor, redact } from '../../../src/core/ssh/redact';
import { formatRunLine, RunOutput, type RunLine } from '../../../src/core/ssh/runLog';
import { RunLogFile } from '../../../src/engine/state/runLogFile';
import { mkdirSync } from 'node:fs';
import { readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../../tempDir';

const TOKEN = 'abcdef.0123456789abcdef';
const CERT_KEY = 'f'.repeat(8) + '0123456789abcdef'.repeat(3) + 'a1b2c3d4';
const HASH = `sha256:${'0a1b2c3d'.repeat(8)}`;

test('bootstrap tokens, certificate keys and secret flags are redacted; the CA hash is kept', () => {
  const line = `kubeadm join 10.3.60.100:6443 --token ${TOKEN} --discovery-token-ca-cert-hash ${HASH} --control-plane --certificate-key ${CERT_KEY}`;
  const out = redact(line);
  assert.equal(out, `kubeadm join 10.3.60.100:6443 --token *** --discovery-token-ca-cert-hash ${HASH} --control-plane --certificate-key ***`);
  assert.equal(redact(`--token=${TOKEN}`), '--token=***');
  assert.equal(redact(`--token 'weird value'`), '--token ***');
  assert.equal(redact(`[upload-certs] Using certificate key:\n${CERT_KEY}\n`), '[upload-certs] Using certificate key:\n***\n');
  assert.equal(redact(`TOKEN     TTL\n${TOKEN}   23h`), 'TOKEN     TTL\n***   23h');
  assert.equal(redact(`  token: ${TOKEN}\n  certificateKey: "${CERT_KEY}"`), '  token: ***\n  certificateKey: ***');
  assert.equal(redact('password: hunter2'), 'password: ***');
  assert.equal(redact('--password=hunter2 rest'), '--password=*** rest');
  // Not secrets: a sha256 digest, short hex, ordinary words.
  assert.equal(redact(`image@sha256:${'ab'.repeat(32)}`), `image@sha256:${'ab'.repeat(32)}`);
  assert.equal(redact('etcd member 8e9e05c52164694d started'), 'etcd member 8e9e05c52164694d started');
});

test('values passed as secret() are redacted wherever they appear', () => {
  const cmd = sh`echo ${secret('s3cr3t-value')}`;
  const r = new Redactor(cmd.secrets);
  assert.equal(r.redact('the value s3cr3t-value appears twice: s3cr3t-value'), 'the value *** appears twice: ***');
});

test('streaming: a secret split across chunks is still redacted', () => {
  const text = `line one\nkubeadm join --token ${TOKEN} --certificate-key ${CERT_KEY}\nmy-secret-pw in output\n`;
  const secrets = ['my-secret-pw'];
  const expected = new Redactor(secrets).redact(text);
  for (let size = 1; size <= 40; size++) {
    const lr = new LineRedactor(new Redactor(secrets));
    let out = '';
    for (let i = 0; i < text.length; i += size) out += lr.push(text.slice(i, i + size));
    out += lr.end();
    assert.equal(out, expected, `chunk size ${size}`);
    assert.ok(!out.includes(TOKEN) && !out.includes(CERT_KEY) && !out.includes('my-secret-pw'));
  }
});

test('a very long line without newline is emitted early but never splits a secret', () => {
  const secretValue = 'Z'.repeat(300);
  const lr = new LineRedactor(new Redactor([secretValue]), 1000);
  let out = '';
  const text = `${'x '.repeat(2000)}${secretValue}${' y'.repeat(2000)}`;
  for (let i = 0; i < text.length; i += 7) out += lr.push(text.slice(i, i + 7));
  out += lr.end();
  assert.ok(!out.includes('ZZZZZZZZZZ'));
  assert.ok(out.includes('***'));
});

test('RunOutput: host-prefixed, redacted lines to every sink, per host and stream', () => {
  const out = new RunOutput();
  const lines: RunLine[] = [];
  out.addSink((l) => lines.push(l));
  const cmd = sh`kubeadm join --token ${secret(TOKEN)}`;
  const m01 = out.forCommand('labs-k8s-m01', cmd);
  const m02 = out.forCommand('labs-k8s-m02');
  m01.onStdout('joining with abcdef.01234');
  m02.onStdout('hello from m02\npartial');
  m01.onStdout('56789abcdef\ndone\n');
  m02.onStderr('warn\n');
  m02.end();
  m01.end();
  out.message('run finished', undefined);
  const text = lines.map((l) => formatRunLine(l, { markStderr: true }));
  assert.deepEqual(text, [
    '[labs-k8s-m02] hello from m02',
    '[labs-k8s-m01] joining with ***',
    '[labs-k8s-m01] done',
    '[labs-k8s-m02] ! warn',
    '[labs-k8s-m02] partial',
    'run finished',
  ]);
});

test('RunLogFile: 0600 file with timestamped, host-prefixed, redacted lines', async () => {
  const dir = tempDir('kw-runlog-');
  try {
    const out = new RunOutput(['sudo-pw-1']);
    mkdirSync(join(dir, 'runs'), { mode: 0o700 });
    const file = await RunLogFile.open(join(dir, 'runs', 'run-1.log'), false);
    out.addSink(file.sink);
    const s = out.forCommand('labs-k8s-w01');
    s.onStdout(`token ${TOKEN} and sudo-pw-1\n`);
    s.onStderr('warning: x\n');
    s.end();
    out.message('failed: kubeadm join exited 1', 'labs-k8s-w01', 'error');
    await file.close();
    const text = readFileSync(file.path, 'utf8');
    assert.equal(statSync(file.path).mode & 0o777, 0o600);
    const lines = text.trimEnd().split('\n').map((l) => l.replace(/^\d{4}-\d\d-\d\dT[\d:.]+Z /, ''));
    assert.deepEqual(lines, ['[labs-k8s-w01] token *** and ***', '[labs-k8s-w01] ! warning: x', '[labs-k8s-w01] ERROR failed: kubeadm join exited 1']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('property: random text with secrets, random chunking — streamed output equals whole-text redaction and leaks nothing', () => {
  let seed = 0xc0ffee;
  const r = () => {
    seed = (seed + 0x6d2b79f5) >>> 0;
    let t = seed;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const pick = <T,>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)]!;
  const hex = () => Array.from({ length: 64 }, () => pick('0123456789abcdef'.split(''))).join('');
  const alnum = (n: number) => Array.from({ length: n }, () => pick('abcdefghijklmnopqrstuvwxyz0123456789'.split(''))).join('');
  const CASES = 2000;
  for (let c = 0; c < CASES; c++) {
    const literal = `pw-${alnum(8)}`;
    const tok = `${alnum(6)}.${alnum(16)}`;
    const ck = hex();
    const filler = () => pick(['ok ', 'kubelet ', 'é ', '\n', '\r\n', '  ', 'sha256:' + hex() + ' ', 'x=1 ', '\t']);
    let text = '';
    const n = 5 + Math.floor(r() * 20);
    for (let i = 0; i < n; i++) text += pick([filler, filler, () => `--token ${tok} `, () => `${ck}\n`, () => ` ${literal} `, () => `token: ${tok}\n`])();
    const whole = new Redactor([literal]).redact(text);
    const lr = new LineRedactor(new Redactor([literal]), 64 + Math.floor(r() * 200));
    let out = '';
    for (let i = 0; i < text.length; ) {
      const size = 1 + Math.floor(r() * 30);
      out += lr.push(text.slice(i, i + size));
      i += size;
    }
    out += lr.end();
    for (const secretValue of [literal, tok, ck]) assert.ok(!out.includes(secretValue), `case ${c}: leaked ${secretValue} in ${JSON.stringify(out)}`);
    if (!text.includes('\n') || text.length < 64) continue;
    assert.equal(out.replace(/\s+/g, ' '), whole.replace(/\s+/g, ' '), `case ${c}`);
  }
});

test('a huge line without whitespace streams in linear time', () => {
  const lr = new LineRedactor(new Redactor(['never-there']), 1024);
  const chunk = 'QUJD'.repeat(1024); // 4 KiB of base64, no whitespace
  const t0 = Date.now();
  let out = '';
  for (let i = 0; i < 1024; i++) out += lr.push(chunk); // 4 MiB
  out += lr.end();
  assert.equal(out.length, 4 * 1024 * 1024);
  assert.ok(Date.now() - t0 < 3000, `took ${Date.now() - t0} ms`);
});
