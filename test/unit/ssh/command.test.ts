import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { and, CommandBuildError, quote, raw, secret, sh, sudo, type RemoteCommand } from '../../../src/core/ssh/command';

/** mulberry32: a small seeded PRNG so every run fuzzes the same cases (and a failure is reproducible). */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const canaryDir = mkdtempSync(join(tmpdir(), 'kw-fuzz-canary-'));
const CANARY = join(canaryDir, 'pwned');
after(() => rmSync(canaryDir, { recursive: true, force: true }));

/** Pieces hostile to shells: quoting, expansion, separators, redirections, option-looking text, unicode. */
const HOSTILE = [
  "'", '"', '`', '\\', '$', '$(', ')', '${', '}', '$((1+1))', '$HOME', '$0', '$@', '$*', '$?', '!', '!!', '\n', '\r', '\t', ' ', '  ',
  ';', '&', '&&', '|', '||', '<', '>', '>>', '2>&1', '*', '?', '[', ']', '[a-z]', '{a,b}', '~', '~root', '#', '%', '=', '-', '--', '-rf',
  '--token=', '-e', '-n', '\\n', "'\\''", "'\"'\"'", `$(touch ${CANARY})`, `\`touch ${CANARY}\``, `'; touch ${CANARY}; '`,
  `"; touch ${CANARY}; "`, `\n touch ${CANARY}\n`, `$(printf x)`, 'é', 'ß', 'Ω', '中文', '😀', '\u202e', '\u200b', '\u00a0', 'ﬁ',
  'labs-k8s-m01', '10.3.60.51', '/etc/kubernetes/pki', 'a b', 'IFS', '\u0001', '\u001b[31m', '\u007f', '%s', '%n', '\\0',
];

function hostile(r: () => number): string {
  const n = Math.floor(r() * 6);
  let s = '';
  for (let i = 0; i < n; i++) {
    if (r() < 0.75) s += HOSTILE[Math.floor(r() * HOSTILE.length)]!;
    else s += String.fromCodePoint(r() < 0.8 ? 0x20 + Math.floor(r() * 0x5f) : 0xa0 + Math.floor(r() * 0x2ff00));
  }
  // Skip the surrogate range (not encodable as UTF-8 on its own).
  return s.replace(/[\ud800-\udfff]/g, (c) => (/[\ud800-\udbff][\udc00-\udfff]/.test(c) ? c : 'x'));
}

function fixSurrogates(s: string): string {
  return Buffer.from(s, 'utf8').toString('utf8');
}

interface Case {
  values: string[];
  cmd: RemoteCommand;
}

/** One case: printf every value NUL-terminated; nested cases go through an extra `sh -c` (like sudo does). */
function makeCase(r: () => number): Case {
  const count = 1 + Math.floor(r() * 4);
  const values = Array.from({ length: count }, () => fixSurrogates(hostile(r)));
  const kind = r();
  let cmd: RemoteCommand;
  if (kind < 0.5) cmd = sh`printf '%s\\0' ${values}`;
  else if (kind < 0.7) cmd = sh`printf '%s\\0' ${values.map((v) => secret(v))}`;
  else if (kind < 0.9) cmd = sh`sh -c ${sh`printf '%s\\0' ${values}`.text}`;
  else cmd = sh`sh -c ${sh`sh -c ${sh`printf '%s\\0' ${values}`.text}`.text}`;
  return { values, cmd };
}

const SHELLS = ['/bin/sh', ...(existsSync('/bin/bash') ? ['/bin/bash'] : [])];
const CASES = 6000;
const BATCH = 40;

test(`quoting fuzz: ${CASES} hostile cases arrive as exactly one argument each, in ${SHELLS.join(' and ')}`, () => {
  const r = prng(0x5eed);
  const cases = Array.from({ length: CASES }, () => makeCase(r));
  let checked = 0;
  for (const shell of SHELLS) {
    for (let i = 0; i < cases.length; i += BATCH) {
      const batch = cases.slice(i, i + BATCH);
      // Each case is its own command in the script, separated by a record separator the values cannot forge
      // without the test noticing (the expected bytes are compared exactly).
      const script = batch.map((c) => `${c.cmd.text}\nprintf '\\036\\n'`).join('\n');
      const res = spawnSync(shell, ['-c', script], { cwd: canaryDir, env: { PATH: '/usr/bin:/bin', HOME: canaryDir } });
      assert.equal(res.status, 0, `${shell} failed on batch ${i}: ${res.stderr.toString()}`);
      const expected = Buffer.concat(batch.map((c) => Buffer.from(`${c.values.map((v) => `${v}\0`).join('')}\x1e\n`, 'utf8')));
      if (!res.stdout.equals(expected)) {
        // Find the first case that differs and show it.
        for (const c of batch) {
          const one = spawnSync(shell, ['-c', c.cmd.text], { cwd: canaryDir, env: { PATH: '/usr/bin:/bin', HOME: canaryDir } });
          const want = Buffer.from(c.values.map((v) => `${v}\0`).join(''), 'utf8');
          assert.deepEqual(one.stdout.toString('utf8').split('\0'), want.toString('utf8').split('\0'), `escape with ${shell}: ${JSON.stringify(c.values)} → ${JSON.stringify(c.cmd.text)}`);
        }
        assert.fail('batch output differs');
      }
      checked += batch.length;
    }
  }
  assert.equal(checked, CASES * SHELLS.length);
  assert.equal(existsSync(CANARY), false, 'a hostile value ran a command');
  assert.deepEqual(readdirSync(canaryDir), [], 'a hostile value created a file');
});

test('a NUL byte cannot be an argument: refused, not truncated', () => {
  assert.throws(() => sh`echo ${'a\0b'}`, CommandBuildError);
  assert.throws(() => quote('\0'), CommandBuildError);
  assert.throws(() => sh`echo ${secret('x\0')}`, CommandBuildError);
});

test('every value is quoted; constant text only through raw()', () => {
  assert.equal(sh`ls ${'/tmp/a b'}`.text, `ls '/tmp/a b'`);
  assert.equal(sh`echo ${"it's"}`.text, `echo 'it'\\''s'`);
  assert.equal(sh`echo ${''}`.text, `echo ''`);
  assert.equal(sh`echo ${'-n'}`.text, `echo '-n'`);
  assert.equal(sh`echo ${'plain.value-1'}`.text, 'echo plain.value-1');
  assert.equal(sh`echo ${'$(id)'}`.text, `echo '$(id)'`);
  assert.equal(sh`a ${raw('&&')} b`.text, 'a && b');
  assert.equal(sh`echo ${['a b', 'c']}`.text, `echo 'a b' c`);
  assert.equal(sh`echo ${3} ${true}`.text, 'echo 3 true');
  // A nested command is spliced as the (already safe) command it is, not re-quoted.
  assert.equal(sh`sudo ${sh`echo ${'x y'}`}`.text, `sudo echo 'x y'`);
  // Objects that are not one of the allowed kinds are refused.
  assert.throws(() => sh`echo ${{ text: 'x' } as never}`, CommandBuildError);
  assert.equal(and(sh`a`, sh`b ${'c d'}`).text, `a && b 'c d'`);
});

test('secrets are quoted like values and masked in display', () => {
  const token = 'abcdef.0123456789abcdef';
  const c = sh`kubeadm join ${'10.3.60.100:6443'} --token ${secret(token)} --discovery-token-ca-cert-hash ${'sha256:' + 'a'.repeat(64)}`;
  assert.equal(c.text, `kubeadm join 10.3.60.100:6443 --token ${token} --discovery-token-ca-cert-hash sha256:${'a'.repeat(64)}`);
  assert.equal(c.display, `kubeadm join 10.3.60.100:6443 --token *** --discovery-token-ca-cert-hash sha256:${'a'.repeat(64)}`);
  assert.equal(String(c), c.display);
  assert.deepEqual(c.secrets, [token]);
  const outer = sh`timeout 60 ${c}`;
  assert.deepEqual(outer.secrets, [token]);
  assert.ok(!outer.display.includes(token));
});

test('sudo: password only on stdin, never in the command text', () => {
  const inner = sh`systemctl restart ${'kubelet'}`;
  const withPw = sudo(inner, { password: "pa ss'word" });
  assert.equal(withPw.text, `sudo -S -k -p '' -- sh -c 'systemctl restart kubelet'`);
  assert.ok(!withPw.text.includes('pa ss'));
  assert.equal(withPw.stdinPrefix, "pa ss'word\n");
  assert.ok(withPw.secrets.includes("pa ss'word"));
  assert.ok(!withPw.display.includes('pa ss'));
  const noPw = sudo(inner);
  assert.equal(noPw.text, `sudo -n -- sh -c 'systemctl restart kubelet'`);
  assert.equal(noPw.stdinPrefix, undefined);
  assert.equal(sudo(inner, { user: 'etcd' }).text, `sudo -n -u etcd -- sh -c 'systemctl restart kubelet'`);
  assert.throws(() => sudo(inner, { password: 'a\nb' }), CommandBuildError);
});
