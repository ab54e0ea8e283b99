/**
 * The host checks, run for real by /bin/sh on this Debian machine (the lab runs them on its nodes):
 * sysctl values as the kernel reports them, dpkg's installed state, what apt's lists offer.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { all, packagesInstalled, sameContent, sourcesOffer, sysctlApplied, sysctlSettings } from '../../../src/core/phases/checks';
import { LocalExecutor } from '../../../src/adapters/local/localExecutor';
import { sh, type RemoteCommand } from '../../../src/core/ssh/command';
import { tempDir } from '../../tempDir';

const ex = new LocalExecutor();
const passes = async (c: RemoteCommand) => (await ex.exec('local', c, {})).code === 0;

test('sysctlApplied passes only when the kernel reports every value of the file (multi-value settings too)', async () => {
  const range = execFileSync('sysctl', ['-n', 'net.ipv4.ip_local_port_range'], { encoding: 'utf8' }).trim().split(/\s+/).join(' ');
  const file = `# comment\nkernel.ostype = Linux\n-net.ipv4.ip_local_port_range = ${range.replace(' ', '   ')}\n`;
  assert.deepEqual(sysctlSettings(file), [['kernel.ostype', 'Linux'], ['net.ipv4.ip_local_port_range', range.replace(' ', '   ')]]);
  assert.equal(await passes(sysctlApplied(file)), true);
  assert.equal(await passes(sysctlApplied('kernel.ostype = Linux\nnet.ipv4.ip_local_port_range = 1 2\n')), false, 'one value differs');
  assert.equal(await passes(sysctlApplied('kernel.no_such_key_here = 1\n')), false, 'a key the kernel does not have');
});

test('packagesInstalled asks dpkg for "install ok installed"; sourcesOffer asks apt\'s lists, with a version when pinned', async () => {
  assert.equal(await passes(packagesInstalled(['dpkg', 'bash'])), true);
  assert.equal(await passes(packagesInstalled(['dpkg', 'no-such-package-kw'])), false);
  // Without a version, installed is as good as offered (a minimal image's psmisc is in no cluster mirror); with one,
  // only apt's lists count; unknown to both fails.
  assert.equal(await passes(sourcesOffer([{ name: 'bash' }])), true, 'installed, whatever the lists say');
  assert.equal(await passes(sourcesOffer([{ name: 'bash', version: '0.0.1' }])), false, 'the pinned version is not offered');
  assert.equal(await passes(sourcesOffer([{ name: 'bash' }, { name: 'no-such-package-kw' }])), false, 'the containerd of the issue: unknown to apt and dpkg');
  const bash = execFileSync('sh', ['-c', 'apt-cache madison bash | head -1'], { encoding: 'utf8' });
  const version = /\|\s*([^|\s-]+)-/.exec(bash)?.[1];
  // apt's lists are empty where apt-get update never ran: then nothing is offered at any version.
  if (version) assert.equal(await passes(sourcesOffer([{ name: 'bash' }, { name: 'bash', version }])), true);
});

test('all() needs every part: an `a || b` inside one part cannot swallow a failing part after it', async () => {
  const dir = tempDir('kw-checks-');
  writeFileSync(join(dir, 'f'), 'x\n');
  assert.equal(await passes(all(sh`false || true`, sh`false`)), false);
  assert.equal(await passes(all(sh`false || true`, sameContent(join(dir, 'f'), 'x\n'))), true);
  assert.equal(await passes(all(sameContent(join(dir, 'f'), 'x\n'), sameContent(join(dir, 'missing'), ''))), false, 'a missing file is not empty content');
});
