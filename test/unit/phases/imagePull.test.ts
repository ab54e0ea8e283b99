/**
 * The prepare step that pulls a node's images, run by the real runner against fake `crictl` and `kubeadm`
 * (shell scripts on PATH over a folder that stands for containerd's image store).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseInventory } from '../../../src/core/inventory/parse';
import type { PhaseConfigs, PhaseSources } from '../../../src/core/phases/configs';
import { imagesBesideInitPhase, preparePhase } from '../../../src/core/phases/bringUp';
import { imagePullStep, manifestImages } from '../../../src/core/phases/imagePull';
import { createLedger } from '../../../src/engine/state/runLedger';
import { HostLocks } from '../../../src/engine/state/hostLocks';
import { LocalExecutor } from '../../../src/adapters/local/localExecutor';
import { runPlan, type RunEvent, type StepExecutor } from '../../../src/core/plan/runner';
import type { Step } from '../../../src/core/plan/types';
import { quote } from '../../../src/core/ssh/command';
import { tempDir } from '../../tempDir';

const parsed = parseInventory(readFileSync(join(__dirname, '../../../examples/labs-k8s/inventory.yaml'), 'utf8')).inventory!;
const inv = { ...parsed, cluster: { ...parsed.cluster, imageRepository: 'registry.lab:5000' } };
const manifest = [
  'apiVersion: apps/v1', 'kind: DaemonSet', 'metadata: {name: kube-flannel-ds}', 'spec:', '  template:', '    spec:',
  '      initContainers:', '      - {name: install-cni-plugin, image: registry.lab:5000/flannel/flannel-cni-plugin:v1.7.1}',
  '      - {name: install-cni, image: registry.lab:5000/flannel/flannel:v0.27.0}',
  '      containers:', '      - {name: kube-flannel, image: registry.lab:5000/flannel/flannel:v0.27.0}', '---', 'kind: ConfigMap', 'data: {a: b}',
].join('\n');
const sources: PhaseSources = { cniManifest: manifest };
const K8S = [`kube-apiserver:v${inv.cluster.kubernetesVersion}`, 'etcd:3.5.15-0', 'coredns/coredns:v1.11.3', 'pause:3.9'].map((i) => `registry.lab:5000/${i}`);

/** A folder per node: `store/` holds one file per image containerd has, `pulls` logs every pull. */
function node() {
  const dir = tempDir('kw-images-');
  const store = join(dir, 'store');
  const key = 'printf %s "$1" | tr "/:" "__"';
  writeFileSync(join(dir, 'crictl'), `#!/bin/sh
k() { ${key}; }
mkdir -p ${store}
case "$1" in
  inspecti) test -e "${store}/$(k "$3")" ;;
  pull) touch "${store}/$(k "$2")"; echo "crictl $2" >> ${dir}/pulls ;;
  *) exit 2 ;;
esac
`);
  writeFileSync(join(dir, 'kubeadm'), `#!/bin/sh
k() { ${key}; }
mkdir -p ${store}
case "$1 $2 $3" in
  "config images list") printf '%s\\n' ${K8S.join(' ')} ;;
  "config images pull") for i in ${K8S.join(' ')}; do touch "${store}/$(k "$i")"; echo "kubeadm $i" >> ${dir}/pulls; done ;;
  *) exit 2 ;;
esac
`);
  chmodSync(join(dir, 'crictl'), 0o755);
  chmodSync(join(dir, 'kubeadm'), 0o755);
  const local = new LocalExecutor();
  const executor: StepExecutor = {
    exec: (host, command, io) => local.exec(host, { ...command, text: `PATH=${quote(dir)}:"$PATH"; ${command.text}` }, io),
    upload: async () => undefined,
  };
  const pulls = () => (existsSync(join(dir, 'pulls')) ? readFileSync(join(dir, 'pulls'), 'utf8').trim().split('\n') : []);
  const drop = (image: string) => rmSync(join(store, image.replace(/[/:]/g, '_')));
  return { dir, executor, pulls, drop };
}

async function runStep(step: Omit<Step, 'id' | 'phase' | 'host'>, n: ReturnType<typeof node>) {
  const plan = { fingerprint: 'img', phases: [{ phase: 'prepare' as const, title: 'Prepare', order: 'parallel' as const, warnings: [], steps: [{ ...step, id: 'prepare/h/images', phase: 'prepare' as const, host: 'h' }] }] };
  const ledger = createLedger(join(n.dir, 'runs'), 'up', plan.fingerprint);
  const ends: string[] = [];
  const result = await runPlan(plan, {
    executor: n.executor, ledger, locks: new HostLocks(join(n.dir, 'locks'), ledger.data.runId), maxParallelHosts: 1,
    onEvent: (e: RunEvent) => { if (e.type === 'step-end') ends.push(e.state); },
  });
  assert.equal(result.ok, true, result.failed?.error);
  return ends[0];
}

test('the CNI manifest\'s images: containers and init containers of every document, each once', () => {
  assert.deepEqual(manifestImages(manifest), ['registry.lab:5000/flannel/flannel-cni-plugin:v1.7.1', 'registry.lab:5000/flannel/flannel:v0.27.0']);
  assert.deepEqual(manifestImages('kind: List\n'), []);
});

test('a control-plane node pulls kubeadm\'s images for the version and the CNI\'s during prepare; a second run finds them and skips', async () => {
  const n = node();
  const step = imagePullStep(inv, true, sources);
  assert.equal(await runStep(step, n), 'done');
  assert.deepEqual(n.pulls(), [...K8S.map((i) => `kubeadm ${i}`), 'crictl registry.lab:5000/flannel/flannel-cni-plugin:v1.7.1', 'crictl registry.lab:5000/flannel/flannel:v0.27.0']);
  assert.match(String((step.run as { display: string }).display), new RegExp(`kubeadm config images pull --kubernetes-version v${inv.cluster.kubernetesVersion.replace(/\./g, '\\.')} --image-repository registry\\.lab:5000 `));
  assert.equal(await runStep(step, n), 'skipped', 'a resumed run skips it: containerd has every image');
  assert.equal(n.pulls().length, 6, 'nothing pulled again');
  // One image gone (pruned by hand): the step runs again.
  n.drop('registry.lab:5000/etcd:3.5.15-0');
  assert.equal(await runStep(step, n), 'done');
});

test('a worker pulls the sandbox image, kube-proxy and the CNI\'s images, not the control plane\'s; one missing makes it run again', async () => {
  const n = node();
  const step = imagePullStep(inv, false, sources);
  assert.equal(await runStep(step, n), 'done');
  assert.deepEqual(n.pulls(), ['registry.lab:5000/pause:3.9', `registry.lab:5000/kube-proxy:v${inv.cluster.kubernetesVersion}`, 'registry.lab:5000/flannel/flannel-cni-plugin:v1.7.1', 'registry.lab:5000/flannel/flannel:v0.27.0'].map((i) => `crictl ${i}`));
  assert.equal(await runStep(step, n), 'skipped');
  n.drop('registry.lab:5000/flannel/flannel:v0.27.0');
  assert.equal(await runStep(step, n), 'done');
  assert.equal(n.pulls().at(-1), 'crictl registry.lab:5000/flannel/flannel:v0.27.0', 'only the missing one is pulled');
});

test('the first control-plane node pulls its images as its last prepare step; every other node in the phase beside init', () => {
  const configs = { modules: 'x\n', nodeSysctl: 'x = 1\n', balancerSysctl: '', containerdConfig: 'version = 2\n', containerdHosts: {}, haproxyConfig: '', keepalivedConfig: {}, kubeadmInitConfig: '' } as PhaseConfigs;
  const steps = preparePhase(inv, configs, sources).steps;
  const first = inv.hosts.find((h) => h.roles.includes('control-plane'))!.name;
  const pulls = imagesBesideInitPhase(inv, sources);
  assert.deepEqual(pulls.overlaps, ['init']);
  const nodes = [...new Set(steps.map((s) => s.host))];
  assert.deepEqual(pulls.steps.map((s) => s.host), nodes.filter((h) => h !== first));
  for (const host of nodes) {
    const keys = steps.filter((s) => s.host === host).map((s) => s.id.split('/')[2]);
    assert.equal(keys.at(-1), host === first ? 'images' : 'kube-packages', host);
    const pull = host === first ? steps.find((s) => s.id === `prepare/${host}/images`) : pulls.steps.find((s) => s.id === `prepare/${host}/images`);
    const run = (pull!.run as { display: string }).display;
    assert.equal(run.includes('kubeadm config images pull'), host.includes('-m0'), `${host}: control-plane images only on control-plane nodes`);
  }
});
