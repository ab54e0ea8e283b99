import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildScheduleInstallPlan, buildScheduleRemovePlan, parseInterval, parseScheduleStatus, scheduleWarning, serviceUnit, timerUnit } from '../../../src/core/backup/schedule';

test('interval: 12h, 30m, 1h30m, 45s; nonsense refused', () => {
  assert.equal(parseInterval('12h'), 43_200);
  assert.equal(parseInterval('1h30m'), 5400);
  assert.equal(parseInterval('45s'), 45);
  for (const bad of ['', '12', 'h', '1d', '-5m', '0s']) assert.equal(parseInterval(bad), undefined, bad);
});

test('units: the timer fires at the interval, the service keeps N; the install plan writes both and enables the timer', () => {
  assert.match(timerUnit(43_200), /OnUnitActiveSec=43200s/);
  assert.match(timerUnit(20), /OnActiveSec=20s\nOnUnitActiveSec=20s/);
  assert.match(serviceUnit(5), /ExecStart=\/bin\/sh \/usr\/local\/lib\/kubeadm-workbench\/etcd-snapshot\.sh 5\n/);
  const plan = buildScheduleInstallPlan(['m01', 'm02'], { intervalSeconds: 43_200, keep: 5 }, 'f');
  const step = plan.phases[0]!.steps[1]!;
  assert.equal(step.host, 'm02');
  assert.deepEqual(step.files!.map((f) => [f.path, f.mode.toString(8)]), [
    ['/usr/local/lib/kubeadm-workbench/etcd-snapshot.sh', '700'],
    ['/etc/systemd/system/kubeadm-workbench-etcd-snapshot.service', '644'],
    ['/etc/systemd/system/kubeadm-workbench-etcd-snapshot.timer', '644'],
  ]);
  assert.match((step.run as { display: string }).display, /systemctl enable --now kubeadm-workbench-etcd-snapshot\.timer/);
  assert.match((buildScheduleRemovePlan(['m01'], 'f').phases[0]!.steps[0]!.run as { display: string }).display, /systemctl disable --now kubeadm-workbench-etcd-snapshot\.timer/);
});

test('status: newest snapshot age; a warning past two intervals or with the timer off', () => {
  const now = Date.parse('2026-11-30T12:00:00Z');
  const s = parseScheduleStatus('m01', `active active\n${now / 1000 - 3600} 2502688 etcd-20261130T110000Z.db\n${now / 1000 - 50_000} 2502688 etcd-20261129T220000Z.db\n`, now);
  assert.equal(s.timerActive, true);
  assert.equal(s.snapshots.length, 2);
  assert.equal(s.newestAgeSeconds, 3600);
  assert.equal(scheduleWarning(s, 43_200), undefined);
  assert.match(scheduleWarning({ ...s, newestAgeSeconds: 90_000 }, 43_200)!, /older|more than two intervals/);
  assert.match(scheduleWarning(parseScheduleStatus('m02', 'active inactive\n', now), 43_200)!, /m02: the etcd snapshot timer is not active/);
});
