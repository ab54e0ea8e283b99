/**
 * The skew policy as a matrix: every control-plane version, target and kubelet version across 1.30–1.36. A target
 * that skips a minor is refused; for every target that is accepted, the plan's order (control plane first, one
 * at a time, then kubelets) never has a kubelet newer than an API server, or more than three minors older, at any
 * step. The walk is shown to catch a wrong order (kubelets first), so a passing matrix means something.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildUpgradePlan, versionChanges } from '../../../src/core/upgrade/plan';
import { targetPackageSource } from '../../../src/core/upgrade/packageSource';
import { buildControlPlane } from '../../../src/core/live/controlPlane';
import { formatVersion, parseVersion, skewAlongPlan, skewNotes, targetProblems, type KubeVersion, type NodeVersion } from '../../../src/core/upgrade/versions';
import { CPS, lab, recordingHooks, WORKERS } from './fixtures';

const inv = lab();
const v = (minor: number, patch = 4): KubeVersion => ({ major: 1, minor, patch });
const MINORS = [30, 31, 32, 33, 34, 35, 36];

function input(current: KubeVersion, target: KubeVersion, workerKubelet: KubeVersion, cpKubelet = current) {
  const apiServers: NodeVersion[] = CPS.map((node) => ({ node, version: current }));
  const kubelets: NodeVersion[] = [...CPS.map((node) => ({ node, version: cpKubelet })), ...WORKERS.map((node) => ({ node, version: workerKubelet }))];
  return { apiServers, kubelets, target };
}

test('versions: v-prefixed, bare, Debian package and kubelet forms parse; garbage does not', () => {
  assert.deepEqual(parseVersion('v1.33.13'), { major: 1, minor: 33, patch: 13 });
  assert.deepEqual(parseVersion('1.34.12-1.1'), { major: 1, minor: 34, patch: 12 });
  assert.equal(formatVersion(parseVersion('1.34.0')!), 'v1.34.0');
  for (const bad of ['', 'latest', '1.34', 'v1.34.x', '1.34.1; rm -rf /', undefined]) assert.equal(parseVersion(bad), undefined, String(bad));
});

test('matrix 1.30–1.36: minor skips and downgrades refused; every accepted plan keeps every kubelet between three minors older and the API servers', () => {
  let accepted = 0;
  let refusedSkips = 0;
  for (const c of MINORS) {
    for (const t of MINORS) {
      for (const k of [26, 27, ...MINORS]) {
        for (const targetPatch of [2, 9]) {
          const current = v(c);
          const target = v(t, targetPatch);
          const kubelet = v(k);
          const problems = targetProblems(input(current, target, kubelet));
          if (t - c > 1) {
            assert.ok(problems.some((p) => /skips \d+ minor/.test(p.message)), `${c}→${t} must be refused as a skip`);
            refusedSkips++;
            continue;
          }
          if (t < c || (t === c && targetPatch < 4)) {
            assert.ok(problems.some((p) => /downgrade/.test(p.message)), `${c}→${formatVersion(target)} is a downgrade`);
            continue;
          }
          if (k > c) {
            assert.ok(problems.length > 0, `a kubelet at 1.${k} with the API servers at 1.${c} is refused`);
            continue;
          }
          if (t - k > 3) {
            assert.ok(problems.some((p) => /minors behind/.test(p.message)), `kubelet 1.${k} under a 1.${t} control plane is refused`);
            continue;
          }
          assert.deepEqual(problems, [], `${c}→${formatVersion(target)} with workers' kubelets at 1.${k}`);
          accepted++;
          const plan = buildUpgradePlan({ inventory: inv, target, source: targetPackageSource(inv, target), maxUnavailable: 2 }, recordingHooks());
          assert.deepEqual(skewAlongPlan(input(current, target, kubelet), versionChanges(plan)), [], `plan ${c}→${t}, kubelets 1.${k}`);
        }
      }
    }
  }
  assert.ok(accepted > 50 && refusedSkips > 50, `accepted ${accepted}, refused skips ${refusedSkips}`);
});

test('the walk catches a plan that upgrades a kubelet before the last API server', () => {
  const current = v(33);
  const target = v(34, 12);
  const plan = buildUpgradePlan({ inventory: inv, target, source: targetPackageSource(inv, target) }, recordingHooks());
  const changes = versionChanges(plan);
  assert.equal(changes.filter((c) => c.kind === 'apiserver').length, 3);
  assert.equal(changes.filter((c) => c.kind === 'kubelet').length, 6);
  const kubeletsFirst = [...changes.filter((c) => c.kind === 'kubelet'), ...changes.filter((c) => c.kind === 'apiserver')];
  const problems = skewAlongPlan(input(current, target, current), kubeletsFirst);
  assert.match(problems[0]!.message, /after upgrade\/labs-k8s-m01\/kubelet-restart: the kubelet on labs-k8s-m01 \(v1\.34\.12\) is newer than an API server \(v1\.33\.4\)/);
});

test('a kubelet three minors behind is allowed to stay through a patch upgrade but not past the next minor', () => {
  assert.deepEqual(targetProblems(input(v(33), v(33, 9), v(30))), []);
  assert.match(targetProblems(input(v(33), v(34, 1), v(30)))[0]!.message, /labs-k8s-w01 is v1\.30\.4: 4 minors behind v1\.34\.1/);
});

test('an interrupted upgrade (one API server at the target already) can be finished, not skipped past', () => {
  const mixed = { apiServers: [{ node: 'labs-k8s-m01', version: v(34, 12) }, { node: 'labs-k8s-m02', version: v(33) }], kubelets: [{ node: 'labs-k8s-m01', version: v(33) }], target: v(34, 12) };
  assert.deepEqual(targetProblems(mixed), []);
  assert.match(targetProblems({ ...mixed, target: v(35, 0) }).map((p) => p.message).join('\n'), /skips 1 minor version/);
});

test('the Control Plane rows\' skew notes: read from the API\'s kube-apiserver image and kubelet version; an upgrade half-way and a kubelet ahead are named', () => {
  const node = (name: string, kubelet: string) => ({ metadata: { name, labels: { 'node-role.kubernetes.io/control-plane': '' } }, status: { conditions: [{ type: 'Ready', status: 'True' }], nodeInfo: { kubeletVersion: kubelet } } });
  const apiserver = (nodeName: string, tag: string) => ({
    metadata: { name: `kube-apiserver-${nodeName}`, namespace: 'kube-system', labels: { component: 'kube-apiserver' } },
    spec: { nodeName, containers: [{ name: 'kube-apiserver', image: `registry.k8s.io/kube-apiserver:${tag}` }] },
    status: { phase: 'Running' },
  });
  const model = buildControlPlane({
    now: Date.now(),
    nodes: [node('m01', 'v1.34.12'), node('m02', 'v1.34.12'), node('m03', 'v1.33.13')] as never,
    pods: [apiserver('m01', 'v1.34.12'), apiserver('m02', 'v1.33.13'), apiserver('m03', 'v1.33.13')] as never,
    daemonSets: [], deployments: [],
  });
  assert.deepEqual(model.nodes.map((n) => n.apiServerVersion), ['v1.34.12', 'v1.33.13', 'v1.33.13']);
  const notes = skewNotes(model.nodes.map((n) => ({ name: n.name, kubelet: n.kubeletVersion, apiServer: n.apiServerVersion })));
  assert.match(notes.get('m01')!, /kubelet v1\.34\.12 newer than the API server v1\.33\.13/);
  assert.match(notes.get('m02')!, /API server v1\.33\.13 behind v1\.34\.12 on another node[\s\S]*kubelet v1\.34\.12 newer/);
  assert.match(notes.get('m03')!, /API server v1\.33\.13 behind v1\.34\.12/);
  assert.equal(skewNotes([{ name: 'a', kubelet: 'v1.33.2', apiServer: 'v1.33.13' }, { name: 'w', kubelet: 'v1.30.1' }]).size, 0, 'a patch behind and three minors behind are within the policy');
  assert.match(skewNotes([{ name: 'a', apiServer: 'v1.34.0' }, { name: 'w', kubelet: 'v1.30.1' }]).get('w')!, /more than 3 minors behind/);
});
