/**
 * The `.kubeadm-workbench/` folder is untrusted input (issue 34): what a repository brings into it — ledgers, locks,
 * a VRRP password, a .gitignore, links and FIFOs at our file names — is checked, named and never acted on; what we
 * write there is signed with this user's key (outside the workspace) and never goes through a link. Each test failed
 * on the code before: planted runs were resumed, temp files had fixed names, a committed .gitignore stayed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, linkSync, lstatSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createLedger, findResumable, loadLedger } from '../../../src/engine/state/runLedger';
import { HostLocks } from '../../../src/engine/state/hostLocks';
import { RunLogFile } from '../../../src/engine/state/runLogFile';
import { ensureStateFolder, STATE_GITIGNORE, vrrpAuthPass } from '../../../src/engine/stateFolder';
import { stateKey, stateKeyPath } from '../../../src/adapters/fs/stateKey';
import { redact } from '../../../src/core/ssh/redact';
import { tempDir } from '../../tempDir';

function state(): { dir: string; runs: string; outside: string } {
  const root = tempDir('kw-state-');
  const dir = join(root, '.kubeadm-workbench');
  mkdirSync(dir, { mode: 0o700 });
  const outside = join(tempDir('kw-state-outside-'), 'victim');
  writeFileSync(outside, 'untouched\n');
  return { dir, runs: join(dir, 'runs'), outside };
}

test('a run is resumed only from a ledger this user signed: unsigned, edited, foreign-key, linked and FIFO ledgers are named with why', async () => {
  const s = state();
  const ours = createLedger(s.runs, 'up', 'fp1', new Date('2026-01-01T00:00:00Z'));
  await ours.mark('prepare/a/x', { state: 'failed', error: 'killed' });
  const text = readFileSync(ours.file, 'utf8');
  assert.match(text, /"signature": "hmac-sha256:[0-9a-f]{64}"/);
  const plant = (runId: string, body: string) => writeFileSync(join(s.runs, `${runId}.json`), body);
  const data = JSON.parse(text) as Record<string, unknown>;
  const { signature: _drop, ...unsigned } = data;
  plant('2026-02-01T00-00-00-000Z-up', JSON.stringify({ ...unsigned, runId: '2026-02-01T00-00-00-000Z-up' }));
  plant('2026-03-01T00-00-00-000Z-up', JSON.stringify({ ...data, runId: '2026-03-01T00-00-00-000Z-up' })); // a signature of another record
  plant('2026-04-01T00-00-00-000Z-up', JSON.stringify({ ...data, steps: {} }).replace(/"runId":"[^"]+"/, '"runId":"2026-04-01T00-00-00-000Z-up"'));
  symlinkSync(ours.file, join(s.runs, '2026-05-01T00-00-00-000Z-up.json'));
  execFileSync('mkfifo', [join(s.runs, '2026-06-01T00-00-00-000Z-up.json')]);
  plant('2026-07-01T00-00-00-000Z-up', '{"runId": 1');
  plant('2026-08-01T00-00-00-000Z-up', JSON.stringify({ ...unsigned, runId: '2026-08-01T00-00-00-000Z-up', extra: 'x' }));

  const found = await findResumable(s.runs, 'up', 'fp1');
  assert.equal(found.ledger?.data.runId, ours.data.runId, 'only the run this user made here');
  const why = Object.fromEntries(found.refused.map((r) => [r.file.split('/').pop()!.slice(0, 7), r.why]));
  assert.match(why['2026-02']!, /not signed/);
  assert.match(why['2026-03']!, /signature is not this user's/);
  assert.match(why['2026-04']!, /signature is not this user's/);
  assert.match(why['2026-05']!, /symlink/);
  assert.match(why['2026-06']!, /FIFO/);
  assert.match(why['2026-07']!, /not JSON/);
  assert.match(why['2026-08']!, /unknown field "extra"/);

  // Another user's key (another machine, or the key deleted): our own ledger is foreign to it.
  const before = process.env.XDG_STATE_HOME;
  process.env.XDG_STATE_HOME = tempDir('kw-state-otherkey-');
  try {
    await assert.rejects(loadLedger(ours.file), /its signature is not this user's on this machine/);
  } finally {
    process.env.XDG_STATE_HOME = before;
  }
});

test('ledger saves go through unique temp files: a link at the old fixed temp name is never written through', async () => {
  const s = state();
  const ledger = createLedger(s.runs, 'up', 'fp');
  mkdirSync(s.runs, { mode: 0o700 });
  symlinkSync(s.outside, `${ledger.file}.${process.pid}.tmp`); // the name the old code wrote to
  await Promise.all([ledger.mark('a', { state: 'done' }), ledger.mark('b', { state: 'done' }), ledger.recordHosts({})]);
  assert.equal(readFileSync(s.outside, 'utf8'), 'untouched\n');
  assert.deepEqual(Object.keys((await loadLedger(ledger.file)).data.steps).sort(), ['a', 'b']);
  assert.equal(statSync(ledger.file).mode & 0o777, 0o600);
  // A link put in place of the ledger meanwhile stops the save: nothing is written through it.
  const other = createLedger(s.runs, 'up', 'fp', new Date('2026-01-02T00:00:00Z'));
  symlinkSync(s.outside, other.file);
  await assert.rejects(other.mark('a', { state: 'done' }), /is a symlink: not writing through it/);
  assert.equal(readFileSync(s.outside, 'utf8'), 'untouched\n');
});

test("a resumed run's log must be its own regular file: a planted link or hard link is refused, a new run's log is created new", async () => {
  const s = state();
  mkdirSync(s.runs, { mode: 0o700 });
  const log = join(s.runs, 'r.log');
  symlinkSync(s.outside, log);
  await assert.rejects(RunLogFile.open(log, true), /is a symlink: not followed/);
  await assert.rejects(RunLogFile.open(log, false), /EEXIST|symlink/);
  const hard = join(s.runs, 'h.log');
  const mine = join(tempDir('kw-state-hard-'), 'mine');
  writeFileSync(mine, 'mine\n');
  linkSync(mine, hard);
  await assert.rejects(RunLogFile.open(hard, true), /2 hard links: not appended to/);
  assert.equal(readFileSync(s.outside, 'utf8'), 'untouched\n');
  assert.equal(readFileSync(mine, 'utf8'), 'mine\n');
});

test('host locks: a planted link is not followed, an unsigned lock naming a live pid is no owner, another user\'s lock is refused', async () => {
  const s = state();
  const locks = join(s.dir, 'locks');
  mkdirSync(locks, { mode: 0o700 });
  symlinkSync(s.outside, join(locks, 'm01.lock'));
  writeFileSync(join(locks, 'm02.lock'), JSON.stringify({ pid: 1, runId: 'planted', since: '2026-01-01T00:00:00Z' }));
  const held = new HostLocks(locks, 'run-1');
  await held.acquire('m01');
  await held.acquire('m02');
  assert.equal(readFileSync(s.outside, 'utf8'), 'untouched\n');
  assert.match(readFileSync(join(locks, 'm01.lock'), 'utf8'), /"runId":"run-1".*"signature":"hmac-sha256:/);
  await assert.rejects(new HostLocks(locks, 'run-2').acquire('m01'), /m01 is being changed by another run \(run-1/);
  await held.releaseAll();
  writeFileSync(join(locks, 'm03.lock'), '{}');
  chownSync(join(locks, 'm03.lock'), 65534, 65534);
  await assert.rejects(new HostLocks(locks, 'run-3').acquire('m03'), /belongs to another user .*another user's run may be changing this host/);
});

test('the state folder: a link in its place is refused; its .gitignore is ours (a committed empty one, or a link, is rewritten)', async () => {
  const s = state();
  writeFileSync(join(s.dir, '.gitignore'), '');
  await ensureStateFolder(s.dir);
  assert.equal(readFileSync(join(s.dir, '.gitignore'), 'utf8'), STATE_GITIGNORE);
  const other = state();
  symlinkSync(other.outside, join(other.dir, '.gitignore'));
  await ensureStateFolder(other.dir);
  assert.equal(readFileSync(other.outside, 'utf8'), 'untouched\n', 'the link is replaced, its target untouched');
  assert.equal(readFileSync(join(other.dir, '.gitignore'), 'utf8'), STATE_GITIGNORE);
  const linked = join(tempDir('kw-state-'), '.kubeadm-workbench');
  symlinkSync(tempDir('kw-state-elsewhere-'), linked);
  await assert.rejects(ensureStateFolder(linked), /is a symlink, not a folder/);
  chmodSync(s.dir, 0o755);
  await ensureStateFolder(s.dir);
  assert.equal(statSync(s.dir).mode & 0o777, 0o700);
});

test('the VRRP password: made signed and 0600, registered for redaction at once; a planted one is refused, never used', async () => {
  const s = state();
  const pass = await vrrpAuthPass(s.dir);
  assert.match(pass, /^[A-Za-z0-9_-]{8}$/);
  assert.equal(await vrrpAuthPass(s.dir), pass, 'made once, then reused');
  assert.equal(statSync(join(s.dir, 'vrrp-auth-pass')).mode & 0o777, 0o600);
  assert.equal(redact(`keepalived said ${pass}`), 'keepalived said ***', 'registered with the redactor when it was made');

  const planted = state();
  writeFileSync(join(planted.dir, 'vrrp-auth-pass'), 'known123\n', { mode: 0o600 });
  await assert.rejects(vrrpAuthPass(planted.dir), /vrrp-auth-pass is not used: it is not signed.*delete it to make a new one/);
  chmodSync(join(planted.dir, 'vrrp-auth-pass'), 0o644);
  await assert.rejects(vrrpAuthPass(planted.dir), /mode 0644, expected 0600/);
});

test('the signing key lives outside the workspace: made once, 0600 in a 0700 folder; a key others can read is refused', async () => {
  const home = tempDir('kw-state-keyhome-');
  const path = stateKeyPath({ XDG_STATE_HOME: join(home, 'state') }, home);
  assert.equal(path, join(home, 'state', 'kubeadm-workbench', 'state-key'));
  assert.equal(stateKeyPath({}, home), join(home, '.local', 'state', 'kubeadm-workbench', 'state-key'));
  const key = await stateKey(path);
  assert.equal(key.length, 32);
  assert.equal(statSync(path).mode & 0o777, 0o600);
  assert.equal(statSync(join(home, 'state', 'kubeadm-workbench')).mode & 0o777, 0o700);
  const other = join(tempDir('kw-state-keyhome-'), 'k', 'state-key');
  mkdirSync(join(other, '..'), { recursive: true, mode: 0o700 });
  writeFileSync(other, `${'a'.repeat(64)}\n`, { mode: 0o644 });
  await assert.rejects(stateKey(other), /can be read or written by other users/);
  assert.ok(existsSync(path) && lstatSync(path).isFile());
  assert.deepEqual(readdirSync(join(home, 'state', 'kubeadm-workbench')), ['state-key']);
});
