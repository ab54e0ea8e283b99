import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { explicitSshFor, expandTokens, parseJumpSpec, resolveHost, SshConfigError, type SshConfigEnv, type SshTarget } from '../../../src/core/ssh/config';
import { tempDir } from './keys';

/** An in-memory file system for the reader callbacks. */
function memEnv(files: Record<string, string>, extra: Partial<SshConfigEnv> = {}): SshConfigEnv {
  return {
    files: ['/home/u/.ssh/config', '/ws/ssh_config'],
    homeDir: '/home/u',
    localUser: 'u',
    readFile: (p) => files[p],
    listDir: (dir) => {
      const prefix = dir.endsWith('/') ? dir : `${dir}/`;
      return [...new Set(Object.keys(files).filter((f) => f.startsWith(prefix)).map((f) => f.slice(prefix.length).split('/')[0]!))];
    },
    ...extra,
  };
}

const host = (name: string, address: string, explicit = {}): SshTarget => ({ name, address, explicit });

test('Host patterns, first value wins, user config before workspace config, defaults', () => {
  const env = memEnv({
    '/home/u/.ssh/config': `
Host labs-k8s-m0?
  User admin
  Port 2201
Host labs-k8s-*
  User ignored-because-first-wins
  IdentityFile ~/.ssh/lab_%r_%h
Host !labs-k8s-w01 *-w0*
  Port 2299
`,
    '/ws/ssh_config': `
Host *
  User ws-user
  Port 2200
  IdentityFile /ws/key
`,
  });
  const m01 = resolveHost(host('labs-k8s-m01', '10.3.60.51'), env);
  assert.equal(m01.hostname, '10.3.60.51');
  assert.equal(m01.user, 'admin');
  assert.equal(m01.port, 2201);
  assert.deepEqual(m01.identityFiles, ['/home/u/.ssh/lab_admin_10.3.60.51', '/ws/key']);
  assert.equal(m01.sources.User, '/home/u/.ssh/config');
  assert.deepEqual(m01.jumps, []);
  const w01 = resolveHost(host('labs-k8s-w01', '10.3.60.54'), env);
  assert.equal(w01.user, 'ignored-because-first-wins');
  assert.equal(w01.port, 2200, 'negated pattern excludes w01 from the 2299 block');
  assert.equal(resolveHost(host('labs-k8s-w02', '10.3.60.55'), env).port, 2299);
  const other = resolveHost(host('elsewhere', '192.0.2.1'), memEnv({}));
  assert.equal(other.user, 'root');
  assert.equal(other.port, 22);
  assert.deepEqual(other.identityFiles, ['/home/u/.ssh/id_ed25519', '/home/u/.ssh/id_ecdsa', '/home/u/.ssh/id_rsa']);
  assert.equal(other.sources.IdentityFile, 'default');
});

test('explicit inventory settings beat every config file; patterns match the name or the address', () => {
  const env = memEnv({
    '/home/u/.ssh/config': `
Host 10.3.60.*
  User by-address
  Port 2202
  HostName bastion-nat-%h.example
  ProxyJump jump1
`,
  });
  const r = resolveHost(host('labs-k8s-m01', '10.3.60.51', { user: 'inv', port: 22, identityFile: '~/.ssh/inv_key', proxyJump: 'none' }), env);
  assert.equal(r.user, 'inv');
  assert.equal(r.port, 22);
  assert.equal(r.sources.User, 'inventory');
  assert.equal(r.hostname, 'bastion-nat-10.3.60.51.example');
  assert.deepEqual(r.identityFiles.slice(0, 1), ['/home/u/.ssh/inv_key']);
  assert.deepEqual(r.jumps, []);
  assert.deepEqual(explicitSshFor({ user: 'root', port: 22 }, { port: 2222 }), { user: 'root', port: 2222 });
  // A negated address excludes the host even when its name matches a positive pattern.
  const neg = memEnv({ '/home/u/.ssh/config': 'Host * !10.3.60.54\n  Port 2000\n' });
  assert.equal(resolveHost(host('labs-k8s-w01', '10.3.60.54'), neg).port, 22);
  assert.equal(resolveHost(host('labs-k8s-w02', '10.3.60.55'), neg).port, 2000);
});

test('ProxyJump chains: comma lists, user@host:port, none, hops resolved through the config, loops refused', () => {
  const env = memEnv({
    '/home/u/.ssh/config': `
Host target
  HostName 10.0.0.9
  ProxyJump ops@jump1:2201,jump2
Host jump1
  HostName 192.0.2.10
  IdentityFile ~/.ssh/jump1_key
Host jump2
  HostName 10.0.0.2
  User j2
  ProxyJump somewhere-else
Host direct
  ProxyJump none
Host loop-a
  ProxyJump loop-b
Host loop-b
  ProxyJump loop-a
Host j0-first
  ProxyJump bastion0
Host chained
  ProxyJump j0-first
`,
  });
  const t = resolveHost(host('target', 'target'), env);
  assert.equal(t.hostname, '10.0.0.9');
  assert.deepEqual(
    t.jumps.map((j) => `${j.user}@${j.hostname}:${j.port}`),
    ['ops@192.0.2.10:2201', 'j2@10.0.0.2:22'],
    "later hops ignore their own ProxyJump, as with ssh -J",
  );
  assert.deepEqual(t.jumps[0]!.identityFiles, ['/home/u/.ssh/jump1_key']);
  assert.deepEqual(resolveHost(host('direct', 'direct'), env).jumps, []);
  assert.throws(() => resolveHost(host('loop-a', 'loop-a'), env), SshConfigError);
  // The first hop's own ProxyJump is followed.
  assert.deepEqual(resolveHost(host('chained', 'chained'), env).jumps.map((j) => j.alias), ['bastion0', 'j0-first']);
  // An inventory host name as a hop uses that host's inventory address and settings.
  const inv = (name: string) => (name === 'labs-k8s-balancer' ? host('labs-k8s-balancer', '10.3.60.50', { user: 'lbuser' }) : undefined);
  const viaInv = resolveHost(host('labs-k8s-w01', '10.3.60.54', { proxyJump: 'labs-k8s-balancer' }), memEnv({}), inv);
  assert.deepEqual(viaInv.jumps.map((j) => `${j.user}@${j.hostname}:${j.port}`), ['lbuser@10.3.60.50:22']);
  assert.deepEqual(parseJumpSpec('ssh://u@[fe80::1]:2222'), { user: 'u', host: 'fe80::1', port: 2222 });
  assert.throws(() => parseJumpSpec('a:99999'), SshConfigError);
});

test('Include: globs relative to ~/.ssh, lexical order, inside Host blocks only when the block applies', () => {
  const env = memEnv({
    '/home/u/.ssh/config': `
Include conf.d/*.conf
Host labs-*
  Include lab-extra
Host *
  User fallback
`,
    '/home/u/.ssh/conf.d/20-b.conf': 'Host labs-k8s-m01\n  Port 2020\n',
    '/home/u/.ssh/conf.d/10-a.conf': 'Host labs-k8s-m01\n  Port 1010\n  User from-a\n',
    '/home/u/.ssh/conf.d/ignored.txt': 'Host *\n  Port 9\n',
    '/home/u/.ssh/lab-extra': 'IdentityFile ~/.ssh/lab\nHost other\n  User nope\n',
  });
  const r = resolveHost(host('labs-k8s-m01', '10.3.60.51'), env);
  assert.equal(r.port, 1010);
  assert.equal(r.user, 'from-a');
  assert.equal(r.sources.Port, '/home/u/.ssh/conf.d/10-a.conf');
  assert.deepEqual(r.identityFiles, ['/home/u/.ssh/lab']);
  const o = resolveHost(host('prod-1', '10.9.9.9'), env);
  assert.deepEqual(o.identityFiles[0], '/home/u/.ssh/id_ed25519');
  assert.equal(o.user, 'fallback');
});

test('Match: host/user/all supported, exec never run', () => {
  const env = memEnv({
    '/home/u/.ssh/config': `
Match exec "touch /tmp/kw-should-not-exist"
  User from-exec
Match host 10.3.60.* user root
  Port 2323
Match all
  IdentityFile ~/.ssh/all
`,
  });
  const r = resolveHost(host('m', '10.3.60.51'), env);
  assert.equal(r.user, 'root');
  assert.equal(r.port, 2323);
  assert.deepEqual(r.identityFiles, ['/home/u/.ssh/all']);
  assert.ok(r.warnings.some((w) => /Match exec is never run/.test(w)));
  assert.equal(expandTokens('%d/%r@%h:%p %% %n %u', { d: '/h', h: 'H', n: 'N', p: 22, r: 'R', u: 'U' }), '/h/R@H:22 % N U');
});

// Oracle: OpenSSH's own resolver (`ssh -G`, which prints the effective config without connecting).
const tmp = tempDir('kw-sshcfg-');
after(tmp.cleanup);

test('agrees with `ssh -G` on HostName, User, Port, IdentityFile and ProxyJump', () => {
  const d = tmp.dir;
  mkdirSync(join(d, 'inc'));
  writeFileSync(join(d, 'inc', 'a.conf'), 'Host web-*\n  User www\n  IdentityFile %d/.ssh/web_%r\n');
  writeFileSync(join(d, 'inc', 'b.conf'), 'Host web-2\n  User never\n  Port 2002\n');
  const cfgPath = join(d, 'config');
  writeFileSync(
    cfgPath,
    `Include ${d}/inc/*.conf
Host web-1 web-2
  HostName %h.internal
  ProxyJump jumpy@bastion:2200,hop2
Host *.internal !db.internal
  Port 2222
Host db
  HostName db.internal
  Port 5022
  User dba
  IdentityFile ~/.ssh/db_key
  IdentityFile ~/.ssh/db_key2
  ProxyJump none
Host *
  User everyone
  IdentityFile ~/.ssh/generic_%h_%p
`,
  );
  const home = process.env.HOME ?? '/root';
  const user = execFileSync('id', ['-un'], { encoding: 'utf8' }).trim();
  const env: SshConfigEnv = {
    files: [cfgPath],
    homeDir: home,
    localUser: user,
    readFile: (p) => {
      try {
        return readFileSync(p, 'utf8');
      } catch {
        return undefined;
      }
    },
    listDir: (p) => {
      try {
        return readdirSync(p);
      } catch {
        return [];
      }
    },
  };
  for (const name of ['web-1', 'web-2', 'db', 'other']) {
    const g = execFileSync('ssh', ['-G', '-F', cfgPath, name], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    const kv = (k: string) => g.split('\n').filter((l) => l.startsWith(`${k} `)).map((l) => l.slice(k.length + 1));
    const r = resolveHost({ name, address: name }, env);
    assert.equal(r.hostname, kv('hostname')[0], `${name} hostname`);
    assert.equal(r.user, kv('user')[0], `${name} user`);
    assert.equal(String(r.port), kv('port')[0], `${name} port`);
    // ssh -G prints IdentityFile with only ~ expanded; its tokens are expanded at connect time with these values.
    const tokens = { d: home, h: kv('hostname')[0]!, n: name, p: Number(kv('port')[0]), r: kv('user')[0]!, u: user };
    assert.deepEqual(r.identityFiles, kv('identityfile').map((f) => expandTokens(f.replace(/^~/, home), tokens)), `${name} identityfile`);
    const pj = kv('proxyjump')[0];
    assert.equal(r.jumps.map((j) => `${j.sources.User === 'inventory' ? `${j.user}@` : ''}${j.alias}${j.sources.Port === 'inventory' ? `:${j.port}` : ''}`).join(',') || undefined, pj, `${name} proxyjump`);
  }
});
