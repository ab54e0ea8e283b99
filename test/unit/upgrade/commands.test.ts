/**
 * The upgrade's checks run by a real shell: a check inside the gate's `if` must make the condition false, never end
 * the gate's shell (a bare `exit` in a loop did, and the first gate on the lab failed instead of saying "no").
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { leadersRenewing, packagesAtTarget, reportAtTarget, staticPodsAtTarget } from '../../../src/core/upgrade/commands';
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
  for (const check of [staticPodsAtTarget(target), packagesAtTarget(['kubeadm'], target), leadersRenewing(0), and(staticPodsAtTarget(target), packagesAtTarget(['kubelet', 'kubectl'], target))]) {
    const r = sh(reportAtTarget(check).text);
    assert.deepEqual(r, { code: 0, stdout: 'at-target=no\n' }, check.text);
  }
});

test('each check alone still fails with a non-zero exit', () => {
  for (const check of [staticPodsAtTarget(target), packagesAtTarget(['kubeadm'], target), leadersRenewing(0)]) assert.notEqual(sh(check.text).code, 0, check.text);
});

/** A kubectl that answers each lease read from a script of answers, one per call (a counter file beside it). */
function leaseReads(answers: readonly string[][]): { code: number | null; stderr: string } {
  const bin = tempDir('kw-lease-bin-');
  const lines = answers.flat().map((a, i) => `${i}) printf '%s' '${a}';;`).join(' ');
  writeFileSync(join(bin, 'kubectl'), `#!/bin/sh\nn=$(cat ${bin}/n 2>/dev/null || echo 0); echo $((n + 1)) > ${bin}/n\ncase $n in ${lines} *) exit 1;; esac\n`, { mode: 0o755 });
  const r = spawnSync('sh', ['-c', leadersRenewing(0).text], { encoding: 'utf8', env: { PATH: `${bin}:/usr/bin:/bin` } });
  return { code: r.status, stderr: r.stderr };
}

test('the leader leases pass only when each names a holder that renewed it between two reads', () => {
  const first = ['m01_a 2026-12-05T00:28:00.000001Z', 'm03_b 2026-12-05T00:28:00.500000Z'];
  // Both renewed (the controller-manager by a new holder after the old one's lease expired): the gate passes.
  assert.deepEqual(leaseReads([first, ['m01_a 2026-12-05T00:28:02.000001Z', 'm02_c 2026-12-05T00:28:16.000000Z']]), { code: 0, stderr: '' });
  // The controller-manager's holder stopped: its name stays on the lease, unrenewed — the gate waits.
  const stale = leaseReads([first, ['m01_a 2026-12-05T00:28:02.000001Z', first[1]!]]);
  assert.equal(stale.code, 1);
  assert.match(stale.stderr, /^kube-controller-manager: its holder m03_b did not renew it in 0 s/);
  // Nobody holds the scheduler's lease.
  const nobody = leaseReads([first, [' ', 'm03_b 2026-12-05T00:28:02.500000Z']]);
  assert.deepEqual(nobody, { code: 1, stderr: 'kube-scheduler is held by nobody\n' });
  // The API does not answer: not passed.
  assert.equal(leaseReads([first]).code, 1);
});
