import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { and, CommandBuildError, quote, raw, secret, sh, sudo } from '../../../src/core/ssh/command';
import { batchScript, expectedOutput, hostilePieces, makeCase, prng } from './fuzz';
import { tempDir } from '../../tempDir';

const canaryDir = tempDir('kw-fuzz-canary-');
const CANARY = join(canaryDir, 'pwned');
after(() => rmSync(canaryDir, { recursive: true, force: true }));
const PIECES = hostilePieces(CANARY);

const SHELLS = ['/bin/sh', ...(existsSync('/bin/bash') ? ['/bin/bash'] : [])];
const CASES = 6000;
const BATCH = 40;

test(`quoting fuzz: ${CASES} hostile cases arrive as exactly one argument each, in ${SHELLS.join(' and ')}`, () => {
  const r = prng(0x5eed);
  const cases = Array.from({ length: CASES }, () => makeCase(r, PIECES));
  let checked = 0;
  for (const shell of SHELLS) {
    for (let i = 0; i < cases.length; i += BATCH) {
      const batch = cases.slice(i, i + BATCH);
      // Each case is its own command in the script, separated by a record separator the values cannot forge
      // without the test noticing (the expected bytes are compared exactly).
      const script = batchScript(batch);
      const res = spawnSync(shell, ['-c', script], { cwd: canaryDir, env: { PATH: '/usr/bin:/bin', HOME: canaryDir } });
      assert.equal(res.status, 0, `${shell} failed on batch ${i}: ${res.stderr.toString()}`);
      const expected = expectedOutput(batch);
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

test('a NUL byte or a lone surrogate cannot be an argument: refused, not truncated or altered', () => {
  assert.throws(() => sh`echo ${'a\0b'}`, CommandBuildError);
  assert.throws(() => quote('\0'), CommandBuildError);
  assert.throws(() => sh`echo ${secret('x\0')}`, CommandBuildError);
  // Lone surrogates cannot be encoded (they would arrive changed); proper pairs are fine.
  assert.throws(() => sh`echo ${'a\ud800b'}`, CommandBuildError);
  assert.throws(() => sh`echo ${'\udc00'}`, CommandBuildError);
  assert.equal(sh`echo ${'😀'}`.text, `echo '😀'`);
});

test('every value is quoted; constant text only through raw()', () => {
  assert.equal(sh`ls ${'/tmp/a b'}`.text, `ls '/tmp/a b'`);
  assert.equal(sh`echo ${"it's"}`.text, `echo 'it'\\''s'`);
  assert.equal(sh`echo ${''}`.text, `echo ''`);
  assert.equal(sh`echo ${'-n'}`.text, `echo '-n'`);
  assert.equal(sh`echo ${'plain.value-1'}`.text, 'echo plain.value-1');
  assert.equal(sh`echo ${'$(id)'}`.text, `echo '$(id)'`);
  assert.equal(sh`a ${raw('&&')} b`.text, 'a && b');
  // raw() takes a string literal only: a string from anywhere else is a compile error (npm run typecheck), so input
  // cannot reach the shell unquoted through it.
  const fromInput: string = '$(id)';
  // @ts-expect-error a plain string is refused
  assert.equal(sh`echo ${raw(fromInput)}`.text, 'echo $(id)');
  // @ts-expect-error a template with a substitution is a plain string too
  assert.equal(raw(`x ${fromInput}`).text, 'x $(id)');
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
