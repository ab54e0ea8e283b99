/**
 * Every step of every plan the engine makes (bring-up, and a join of each joinable host) either has a check
 * that asks the host whether its effect is in place, or says why it runs every time. A resumed run skips
 * only what a check confirms on the host: a step with neither would fall back on trusting the ledger, which
 * is how a rebuilt host broke a resumed bring-up (apt sources "done" on a bare host).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseInventory } from '../../../src/core/inventory/parse';
import type { Inventory } from '../../../src/core/inventory/types';
import type { Plan, Step } from '../../../src/core/plan/types';
import { BRING_UP_PHASES, buildBringUpPlan } from '../../../src/engine/bringUp';
import { phaseConfigs, phaseSources } from '../../../src/engine/inputs';
import { joinableHosts, joinPhases, narrowToJoin } from '../../../src/engine/join';
import { tempDir } from '../../tempDir';

const seed = parseInventory(readFileSync(join(__dirname, '../../../examples/labs-k8s/inventory.yaml'), 'utf8')).inventory!;

/** The lab's shape: two balancers, air-gapped package sources with keys, a CNI manifest file. */
const labText = `cluster:
  name: labs-k8s
  kubernetesVersion: "1.34.2"
  controlPlaneEndpoint: 10.3.60.100:6443
  podSubnet: 10.244.0.0/16
  serviceSubnet: 10.96.0.0/12
  cni: flannel
  packages:
    kubernetesApt: "deb [signed-by=/etc/apt/keyrings/kubernetes-apt-keyring.gpg] http://10.3.60.1:8080/kubernetes/core:/stable:/v1.34/deb/ /"
    kubernetesAptKey: http://10.3.60.1:8080/kubernetes/core:/stable:/v1.34/deb/Release.key
    kubernetesAptKeySha256: 3b5e1f0c9a7d2e4b6c8a0f1e3d5b7a9c2e4f6a8b0c1d3e5f7a9b2c4d6e8f0a1b
    debianApt: "deb [signed-by=/usr/share/keyrings/kwlab-debian-archive-keyring.gpg] http://10.3.60.1:8080/debian bookworm main"
  ignorePreflightErrors: [SystemVerification]
  cniManifest: kube-flannel.yml
ssh: { user: root, port: 22 }
hosts:
  - { name: labs-k8s-balancer, address: 10.3.60.50, roles: [loadbalancer], vrrp: { state: MASTER, priority: 100, interface: ens192 } }
  - { name: labs-k8s-balancer2, address: 10.3.60.56, roles: [loadbalancer], vrrp: { state: BACKUP, priority: 90, interface: ens192 } }
  - { name: labs-k8s-m01, address: 10.3.60.51, roles: [control-plane] }
  - { name: labs-k8s-m02, address: 10.3.60.52, roles: [control-plane] }
  - { name: labs-k8s-m03, address: 10.3.60.53, roles: [control-plane] }
  - { name: labs-k8s-w01, address: 10.3.60.54, roles: [worker] }
  - { name: labs-k8s-w02, address: 10.3.60.55, roles: [worker] }
`;
const lab = parseInventory(labText).inventory!;

async function plansOf(inv: Inventory): Promise<[string, Plan][]> {
  const dir = tempDir('kw-stepchecks-');
  writeFileSync(join(dir, 'kube-flannel.yml'), 'apiVersion: v1\nkind: List\nitems: []\n');
  const sources = await phaseSources(inv, dir, (f) => readFile(f, 'utf8'));
  const configs = phaseConfigs(inv);
  const hooks = { saveAdminKubeconfig: async () => undefined };
  const plans: [string, Plan][] = [[`${inv.cluster.name} bring-up`, buildBringUpPlan(inv, [...BRING_UP_PHASES], configs, sources, hooks)]];
  for (const host of joinableHosts(inv)) {
    plans.push([`join of ${host}`, narrowToJoin(inv, [host], buildBringUpPlan(inv, joinPhases(inv, [host]), configs, sources, hooks))]);
  }
  return plans;
}

/** `phase/key` without the host, e.g. `join-control-plane/etcd-healthy-*`. */
function kind(step: Step): string {
  return step.id.replace(`/${step.host}/`, '/').replace(/labs-k8s-\w+$/, '*');
}

/**
 * The steps that run every time, each for the reason its `rerun` gives (the report lists them). A new one
 * is a conscious choice: add it here with the reason in the step.
 */
const ALWAYS_RERUN = [
  'init/admin-kubeconfig', // a secret the ledger never keeps, merged into the user's kubeconfig
  'init/api-ready', // gate
  'join-control-plane/ca-hash', // reads the CA, which a rebuilt cluster has anew
  'join-control-plane/certificate-key', // secret, expires (skipped by skipWhen within an hour of init)
  'join-control-plane/etcd-healthy-*', // gate
  'join-control-plane/ready-*', // gate
  'join-control-plane/token', // secret, expires
  'join-workers/ca-hash',
  'join-workers/ready-*', // gate
  'join-workers/token',
  'loadbalancer/vip', // gate
  'verify/ready', // gate
];

test('every step of every plan (bring-up, each join) has a check that asks the host, or a reason to run every time', async () => {
  const rerun = new Map<string, string>();
  let steps = 0;
  for (const inv of [seed, lab]) {
    for (const [name, plan] of await plansOf(inv)) {
      for (const step of plan.phases.flatMap((p) => p.steps)) {
        steps++;
        const where = `${name}: ${step.id} (${step.title})`;
        assert.ok(step.check || step.rerun, `${where} has neither a check nor a reason to run every time: a resumed run would have to trust the ledger`);
        assert.ok(!(step.check && step.rerun), `${where} has both a check and a reason to run every time`);
        if (step.rerun) {
          assert.ok(step.rerun.length >= 20, `${where}: say why it runs every time`);
          rerun.set(kind(step), step.rerun);
        }
      }
    }
  }
  console.log(`${steps} steps walked; run every time:\n${[...rerun].map(([k, why]) => `  ${k}: ${why}`).join('\n')}`);
  assert.deepEqual([...rerun.keys()].sort(), ALWAYS_RERUN);
});

test('the steps that change a host (files, package installs, services, kubeadm) all have a check', async () => {
  for (const [name, plan] of await plansOf(lab)) {
    for (const step of plan.phases.flatMap((p) => p.steps)) {
      const changes = Boolean(step.files?.length) || /apt-get|kubeadm init --|kubeadm join|systemctl (restart|enable)|kubectl .*apply|sysctl -q -p|swapoff/.test(typeof step.run === 'function' ? step.planDisplay ?? '' : step.run?.display ?? '');
      if (changes) assert.ok(step.check, `${name}: ${step.id} changes the host and has no check`);
    }
  }
});

test('every host is given an install marker before anything else, by the prepare phase (nodes) or the load balancer phase (balancers)', async () => {
  const [, plan] = (await plansOf(lab))[0]!;
  for (const host of lab.hosts) {
    const first = plan.phases.flatMap((p) => p.steps).find((s) => s.host === host.name);
    assert.equal(first?.id.replace(`/${host.name}/`, '/'), host.roles.includes('loadbalancer') ? 'loadbalancer/install-marker' : 'prepare/install-marker', host.name);
  }
});
