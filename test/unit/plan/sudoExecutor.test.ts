/**
 * The SSH executor's sudo path through a real shell: a local transport runs each command with /bin/sh,
 * and a stand-in `sudo` on PATH checks the password line on stdin like `sudo -S` (and refuses `-n` when a
 * password is required). The lab's join-as-a-sudo-user test runs the same path against real sudo and sshd.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { SshExecutor, SudoRefused } from '../../../src/core/plan/sshExecutor';
import { sh, type RemoteCommand } from '../../../src/core/ssh/command';
import { RemoteCommandError, type ExecOptions, type ExecResult, type SshTransport } from '../../../src/core/ssh/transport';
import { hostsNeedingSudo, sudoUnlessRoot } from '../../../src/engine/become';
import { tempDir } from '../../tempDir';

const dir = tempDir('kw-sudo-');
const bin = join(dir, 'bin');
const tmp = join(dir, 'tmp');
mkdirSync(bin);
mkdirSync(tmp);
// A stand-in for sudo: -S reads one password line from stdin and compares it with $FAKE_SUDO_PASSWORD;
// -n fails when a password is required. Then it runs `sh -c TEXT` with the rest of stdin.
writeFileSync(join(bin, 'sudo'), `#!/bin/sh
mode=n
while [ $# -gt 0 ]; do
  case "$1" in
    -S) mode=S ;; -n) mode=n ;; -k) ;; -p) shift ;; --) shift; break ;;
  esac
  shift
done
if [ -n "$FAKE_SUDO_PASSWORD" ]; then
  if [ $mode = n ]; then echo 'sudo: a password is required' >&2; exit 1; fi
  IFS= read -r pw
  if [ "$pw" != "$FAKE_SUDO_PASSWORD" ]; then echo 'sudo: 1 incorrect password attempt' >&2; exit 1; fi
fi
echo "$*" >> "${dir}/sudo.log"
exec "$@"
`);
chmodSync(join(bin, 'sudo'), 0o755);

class LocalShellTransport implements SshTransport {
  readonly commands: RemoteCommand[] = [];
  /** What reaches the remote stdin of the command's own input (a lost tail, a flipped byte). */
  mangle: (stdin: string) => string = (x) => x;
  constructor(private readonly password: string) {}
  exec(host: string, command: RemoteCommand, opts: ExecOptions = {}): Promise<ExecResult> {
    this.commands.push(command);
    return new Promise((resolve, reject) => {
      const child = spawn('/bin/sh', ['-c', command.text], { env: { PATH: `${bin}:/usr/bin:/bin`, TMPDIR: tmp, FAKE_SUDO_PASSWORD: this.password } });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => {
        stdout += d;
        opts.onStdout?.(d.toString());
      });
      child.stderr.on('data', (d: Buffer) => (stderr += d));
      child.stdin.on('error', () => undefined); // a command that never reads stdin exits first
      const input = opts.stdin;
      if (input !== undefined && typeof input === 'object' && 'pipe' in input) {
        // A stream (a snapshot): the prefix line, then the stream as it comes.
        child.stdin.write(command.stdinPrefix ?? '');
        input.pipe(child.stdin);
      } else child.stdin.end([command.stdinPrefix ?? '', this.mangle(String(input ?? ''))].join(''));
      child.on('close', (code) => {
        const result = { code, signal: null, stdout, stderr };
        if (!(opts.okCodes ?? [0]).includes(code ?? -1)) reject(new RemoteCommandError(host, command, result));
        else resolve(result);
      });
    });
  }
  async close(): Promise<void> {}
}

const users: Record<string, string> = { 'labs-k8s-w02': 'kwadmin', 'labs-k8s-m01': 'root' };
const loginUser = (h: string) => users[h]!;

test('root logins run commands as they are; other logins go through sudo -S with the password on stdin only', async () => {
  const transport = new LocalShellTransport('s3cret pw');
  const ex = new SshExecutor(transport, sudoUnlessRoot(loginUser, 's3cret pw'));
  assert.equal((await ex.exec('labs-k8s-m01', sh`echo plain`, {})).code, 0);
  assert.doesNotMatch(transport.commands.at(-1)!.text, /sudo/);
  let out = '';
  const r = await ex.exec('labs-k8s-w02', sh`echo ${'as root'}; exit 3`, { onStdout: (s) => (out += s) });
  assert.equal(r.code, 3, 'the step\'s own exit code comes through sudo');
  assert.equal(out, 'as root\n');
  // the first sudo command probes `sudo -n true` (it fails here: this sudo needs the password)
  assert.equal(transport.commands[1]!.text, 'sudo -n -- sh -c true');
  assert.equal(transport.commands[1]!.stdinPrefix, undefined);
  for (const c of transport.commands.slice(2)) {
    assert.match(c.text, /^sudo -S -k -p '' -- sh -c /);
    assert.doesNotMatch(c.text, /s3cret/);
    assert.doesNotMatch(c.display, /s3cret/);
    assert.equal(c.stdinPrefix, 's3cret pw\n');
  }
});

test('an upload as a sudo user lands atomically with its mode, and the staging file is gone', async () => {
  const transport = new LocalShellTransport('pw');
  const ex = new SshExecutor(transport, sudoUnlessRoot(loginUser, 'pw'));
  const target = join(dir, 'etc', 'kubernetes', 'kubeadm-config.yaml');
  const content = 'kind: InitConfiguration\n# a line that starts like a password: pw\n';
  await ex.upload('labs-k8s-w02', { path: target, content, mode: 0o600 });
  assert.equal(readFileSync(target, 'utf8'), content, 'the content, without the password line');
  assert.equal(statSync(target).mode & 0o777, 0o600);
  assert.deepEqual(readdirSync(tmp), [], 'the staged copy was removed');
  assert.deepEqual(readdirSync(join(dir, 'etc', 'kubernetes')), ['kubeadm-config.yaml']);
});

test('an upload that arrives different (a lost tail, a changed byte) never replaces the target, as root or through sudo', async () => {
  const transport = new LocalShellTransport('pw');
  const ex = new SshExecutor(transport, sudoUnlessRoot(loginUser, 'pw'));
  const content = 'apiVersion: v1\nkind: Config\n'.repeat(2000);
  for (const [host, name] of [['labs-k8s-m01', 'as-root.yaml'], ['labs-k8s-w02', 'through-sudo.yaml']] as const) {
    const target = join(dir, 'uploads', name);
    mkdirSync(join(dir, 'uploads'), { recursive: true });
    writeFileSync(target, 'the old file\n');
    for (const mangle of [(x: string) => x.slice(0, x.length - 100), (x: string) => x.replace('Config', 'Cunfig')]) {
      transport.mangle = mangle;
      await assert.rejects(ex.upload(host, { path: target, content, mode: 0o644 }), (e: Error) => {
        assert.ok(e instanceof RemoteCommandError, String(e));
        assert.match(e.message, /the uploaded file arrived different \(SHA-256 mismatch\)/);
        return true;
      });
      assert.equal(readFileSync(target, 'utf8'), 'the old file\n', `${host}: the target is untouched`);
      assert.deepEqual(readdirSync(join(dir, 'uploads')).sort(), ['as-root.yaml', 'through-sudo.yaml'].filter((f) => f <= name), `${host}: no temp file left`);
    }
    transport.mangle = (x) => x;
    await ex.upload(host, { path: target, content, mode: 0o644 });
    assert.equal(readFileSync(target, 'utf8'), content);
  }
  assert.deepEqual(readdirSync(tmp), [], 'no staged copy left');
});

test('a wrong sudo password stops at the first step with the host named, before anything runs', async () => {
  const transport = new LocalShellTransport('right');
  const ex = new SshExecutor(transport, sudoUnlessRoot(loginUser, 'wrong'));
  await assert.rejects(ex.exec('labs-k8s-w02', sh`touch ${join(dir, 'should-not-exist')}`, {}), (e: Error) => {
    assert.ok(e instanceof SudoRefused);
    assert.match(e.message, /^labs-k8s-w02: cannot become root: sudo refused the password/);
    assert.match(e.message, /incorrect password/);
    assert.doesNotMatch(e.message, /wrong/);
    return true;
  });
  assert.equal(existsSync(join(dir, 'should-not-exist')), false);
  // No password at all where sudo needs one: sudo -n fails and says so.
  const noPw = new SshExecutor(new LocalShellTransport('right'), sudoUnlessRoot(loginUser));
  await assert.rejects(noPw.exec('labs-k8s-w02', sh`true`, {}), /needs a password here \(none was given\).*a password is required/);
});

test('hostsNeedingSudo names the plan\'s non-root hosts with their users', () => {
  const plan = { fingerprint: 'x', phases: [{ phase: 'prepare' as const, title: 'p', order: 'parallel' as const, warnings: [], steps: [
    { id: 'a', phase: 'prepare' as const, host: 'labs-k8s-m01', title: 'a' },
    { id: 'b', phase: 'prepare' as const, host: 'labs-k8s-w02', title: 'b' },
  ] }] };
  assert.deepEqual([...hostsNeedingSudo(plan, loginUser)], [['labs-k8s-w02', 'kwadmin']]);
});

test('regression (issue 11, finding 10): where sudo needs no password, the password never reaches the command\'s stdin', async () => {
  const transport = new LocalShellTransport(''); // NOPASSWD: this sudo never reads a password line
  const ex = new SshExecutor(transport, sudoUnlessRoot(loginUser, 's3cret pw'));
  let out = '';
  // a step that reads its stdin, like a `drain --then` command would
  const r = await ex.exec('labs-k8s-w02', sh`cat`, { onStdout: (s) => (out += s) });
  assert.equal(r.code, 0);
  assert.equal(out, '', 'the command read nothing: no password line was sent');
  assert.ok(transport.commands.every((c) => !c.stdinPrefix), 'no command carried the password on stdin');
  assert.match(transport.commands.at(-1)!.text, /^sudo -n -- sh -c /);
});

test('a streamed file through sudo: the password line goes to sudo and the stream to the file, checked by size and SHA-256; none is sent when sudo needs none', async () => {
  const bytes = Buffer.concat([Buffer.from('pw\nnot a password line either\n'), randomBytes(300_000)]);
  const file = (path: string, sha256 = createHash('sha256').update(bytes).digest('hex')) => ({ path, mode: 0o600, size: bytes.length, sha256, label: 'snapshot.db', open: async () => Readable.from([bytes.subarray(0, 70_000), bytes.subarray(70_000)]) });
  for (const password of ['pw', '']) {
    const transport = new LocalShellTransport(password);
    const ex = new SshExecutor(transport, sudoUnlessRoot(loginUser, password || 'unneeded'));
    const target = join(dir, 'streamed', `snapshot-${password || 'nopasswd'}.db`);
    await ex.uploadStream('labs-k8s-w02', file(target));
    assert.ok(readFileSync(target).equals(bytes), `byte for byte, no password line in it (${password || 'NOPASSWD'})`);
    assert.equal(statSync(target).mode & 0o777, 0o600);
    const sent = transport.commands.at(-1)!;
    assert.equal(sent.stdinPrefix, password ? 'pw\n' : undefined, 'the password only when sudo asks for one');
    await assert.rejects(ex.uploadStream('labs-k8s-w02', file(`${target}.bad`, '0'.repeat(64))), /the file arrived different/);
    assert.equal(existsSync(`${target}.bad`), false);
  }
});
