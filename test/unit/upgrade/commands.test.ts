/**
 * The upgrade's checks run by a real shell: a check inside the gate's `if` must make the condition false, never end
 * the gate's shell (a bare `exit` in a loop did, and the first gate on the lab failed instead of saying "no").
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { leasesHeld, packagesAtTarget, reportAtTarget, staticPodsAtTarget } from '../../../src/core/upgrade/commands';
import { and } from '../../../src/core/ssh/command';
import { tempDir } from '../../tempDir';

const target = { major: 1, minor: 34, patch: 12 };

/** The command under sh, with a PATH whose kubectl, dpkg-query and apt-mark fail (as on a host without them). */
function sh(text: string): { code: number | null; stdout: string } {
  const bin = tempDir('kw-upgrade-bin-');
  for (const tool of ['kubectl', 'dpkg-query', 'apt-mark']) spawnSync('sh', ['-c', `printf '#!/bin/sh\\nexit 1\\n' > ${bin}/${tool} && chmod +x ${bin}/${tool}`]);
  const r = spawnSync('sh', ['-c', text], { encoding: 'utf8', env: { PATH: `${bin}:/usr/bin:/bin` } });
  return { code: r.status, stdout: r.stdout };
}

test('a gate over checks that fail prints at-target=no and exits 0 (not the shell ended by the check\'s exit)', () => {
  for (const check of [staticPodsAtTarget(target), packagesAtTarget(['kubeadm'], target), leasesHeld(), and(staticPodsAtTarget(target), packagesAtTarget(['kubelet', 'kubectl'], target))]) {
    const r = sh(reportAtTarget(check).text);
    assert.deepEqual(r, { code: 0, stdout: 'at-target=no\n' }, check.text);
  }
});

test('each check alone still fails with a non-zero exit', () => {
  for (const check of [staticPodsAtTarget(target), packagesAtTarget(['kubeadm'], target), leasesHeld()]) assert.notEqual(sh(check.text).code, 0, check.text);
});
