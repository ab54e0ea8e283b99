import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseInventory } from '../../../src/core/inventory/parse';
import { caCertHash, initPhase, joinControlPlanePhase, joinWorkersPhases, loadBalancerPhase, preparePhase, sameContent } from '../../../src/core/phases/bringUp';
import type { PhaseConfigs, PhaseSources } from '../../../src/core/phases/configs';
import { renderPlan } from '../../../src/core/plan/types';
import { LocalExecutor } from '../../../src/core/plan/localExecutor';

const inv = parseInventory(readFileSync(join(__dirname, '../../../examples/labs-k8s/inventory.yaml'), 'utf8')).inventory!;
const configs: PhaseConfigs = {
  modules: 'overlay\nbr_netfilter\n', nodeSysctl: 'net.ipv4.ip_forward = 1\n', balancerSysctl: 'net.ipv4.ip_nonlocal_bind = 1\n',
  containerdConfig: 'version = 2\n', containerdHosts: {}, haproxyConfig: 'global\n', keepalivedConfig: { 'labs-k8s-balancer': 'vrrp_instance X {}\n' }, kubeadmInitConfig: 'kind: InitConfiguration\n',
};
const sources: PhaseSources = { cniManifest: 'kind: List\n', ignorePreflightErrors: ['SystemVerification'] };

test('the CA hash equals the one kubeadm documents (openssl pipeline over the public key)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kw-ca-'));
  execSync(`openssl req -x509 -newkey rsa:2048 -nodes -keyout ${dir}/ca.key -out ${dir}/ca.crt -subj /CN=kubernetes -days 1 2>/dev/null`);
  const expected = execSync(`openssl x509 -pubkey -noout -in ${dir}/ca.crt | openssl rsa -pubin -outform der 2>/dev/null | sha256sum`, { encoding: 'utf8' }).split(' ')[0];
  assert.equal(caCertHash(readFileSync(`${dir}/ca.crt`, 'utf8')), `sha256:${expected}`);
});

test('sameContent compares a host file by hash on the host', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kw-same-'));
  execSync(`printf 'version = 2\\n' > ${dir}/config.toml`);
  const ex = new LocalExecutor();
  assert.equal((await ex.exec('local', sameContent(`${dir}/config.toml`, 'version = 2\n'), {})).code, 0);
  assert.notEqual((await ex.exec('local', sameContent(`${dir}/config.toml`, 'version = 3\n'), {})).code, 0);
});

test('prepare covers every node and not the balancer, with pinned, held packages', () => {
  const phase = preparePhase(inv, configs, sources);
  const hosts = new Set(phase.steps.map((s) => s.host));
  assert.deepEqual([...hosts], ['labs-k8s-m01', 'labs-k8s-m02', 'labs-k8s-m03', 'labs-k8s-w01', 'labs-k8s-w02']);
  const text = renderPlan({ fingerprint: 'x', phases: [phase] });
  assert.match(text, /kubelet=1\.30\.14-\\?\*? ?/);
  assert.match(text, /apt-mark hold kubelet kubeadm kubectl/);
  assert.match(text, /swapoff -a/);
});

test('the load balancer phase validates HAProxy before replacing its config and checks the VIP on the MASTER', () => {
  const text = renderPlan({ fingerprint: 'x', phases: [loadBalancerPhase(inv, configs, sources)] });
  assert.match(text, /haproxy -c -q -f \/etc\/haproxy\/haproxy\.cfg\.kubeadm-workbench && mv/);
  assert.match(text, /\[labs-k8s-balancer\] VIP 10\.3\.60\.100 is up on the MASTER/);
});

test('control-plane joins are serial with an etcd health gate after each, secrets never in the plan', () => {
  const phase = joinControlPlanePhase(inv, sources);
  assert.equal(phase.order, 'serial');
  const order = phase.steps.map((s) => `${s.host}:${s.id.split('/').pop()}`);
  assert.deepEqual(order, [
    'labs-k8s-m01:ca-hash', 'labs-k8s-m01:token', 'labs-k8s-m01:certificate-key',
    'labs-k8s-m01:forget-partial-labs-k8s-m02', 'labs-k8s-m02:join', 'labs-k8s-m01:etcd-healthy-labs-k8s-m02', 'labs-k8s-m01:ready-labs-k8s-m02',
    'labs-k8s-m01:forget-partial-labs-k8s-m03', 'labs-k8s-m03:join', 'labs-k8s-m01:etcd-healthy-labs-k8s-m03', 'labs-k8s-m01:ready-labs-k8s-m03',
  ]);
  assert.match(phase.warnings[0]!, /tolerates no failure/);
  const text = renderPlan({ fingerprint: 'x', phases: [phase, ...joinWorkersPhases(inv, sources)] });
  assert.match(text, /--token \*\*\* .* --control-plane --certificate-key \*\*\*/);
  // With values a join command quotes and hides its secrets.
  const join = phase.steps.find((s) => s.id.endsWith('m02/join'))!;
  const cmd = (join.run as (v: { get(k: string): string | undefined }) => { text: string; display: string })({ get: (k) => ({ token: 'abcdef.0123456789abcdef', caHash: 'sha256:' + 'a'.repeat(64), certificateKey: 'f'.repeat(64) })[k] });
  assert.match(cmd.text, /abcdef\.0123456789abcdef/);
  assert.doesNotMatch(cmd.display, /0123456789abcdef|ffffffff/);
});

test('workers get credentials first, then join in parallel, then are checked Ready', () => {
  const phases = joinWorkersPhases(inv, sources);
  assert.deepEqual(phases.map((p) => p.order), ['serial', 'parallel', 'serial']);
  assert.deepEqual(phases[1]!.steps.map((s) => s.host), ['labs-k8s-w01', 'labs-k8s-w02']);
  const init = initPhase(inv, configs, sources, { saveAdminKubeconfig: async () => {} });
  assert.match(renderPlan({ fingerprint: 'x', phases: [init] }), /kubeadm init --config \/root\/kubeadm-config\.yaml --upload-certs --ignore-preflight-errors=SystemVerification/);
});

test('the user\'s extra kubeadm documents replace a generated one of the same kind and append new kinds', async () => {
  const { mergeKubeadmDocuments } = await import('../../../src/core/generate/mergeDocuments.js');
  const generated = '# header\napiVersion: kubeadm.k8s.io/v1beta4\nkind: InitConfiguration\n---\napiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\ncgroupDriver: systemd\n';
  const extra = 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\ncgroupDriver: systemd\nmaxPods: 50\n---\napiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nconntrack:\n  maxPerCore: 0\n';
  const merged = mergeKubeadmDocuments(generated, extra);
  assert.equal((merged.match(/kind: KubeletConfiguration/g) ?? []).length, 1);
  assert.match(merged, /maxPods: 50/);
  assert.match(merged, /kind: KubeProxyConfiguration\nconntrack:\n  maxPerCore: 0/);
  assert.match(merged, /^# header/);
  assert.throws(() => mergeKubeadmDocuments(generated, 'foo: [1'), /kubeadm extra config/);
  assert.throws(() => mergeKubeadmDocuments(generated, 'foo: 1\n'), /apiVersion and kind/);
});

test('an interrupted join\'s member is removed only when etcd lists it unstarted at the host\'s peer URL', async () => {
  const { writeFileSync, chmodSync } = await import('node:fs');
  const { sh } = await import('../../../src/core/ssh/command.js');
  const forget = joinControlPlanePhase(inv, sources).steps.find((s) => s.id.endsWith('forget-partial-labs-k8s-m02'))!;
  const ex = new LocalExecutor();
  const withMembers = async (list: string): Promise<number | null> => {
    // A stand-in kubectl that prints etcdctl's member list: below the lab test that runs the real one.
    const dir = mkdtempSync(join(tmpdir(), 'kw-kubectl-'));
    writeFileSync(join(dir, 'kubectl'), `#!/bin/sh\ncat <<'EOF'\n${list}\nEOF\n`);
    chmodSync(join(dir, 'kubectl'), 0o755);
    return (await ex.exec('local', sh`PATH=${dir}:"$PATH"; ${forget.check!}`, {})).code;
  };
  const healthy = 'a1, started, labs-k8s-m01, https://10.3.60.51:2380, https://10.3.60.51:2379, false\nb2, started, labs-k8s-m02, https://10.3.60.52:2380, https://10.3.60.52:2379, false';
  assert.equal(await withMembers(healthy), 0, 'a started member is left alone (check satisfied, step skipped)');
  const partial = 'a1, started, labs-k8s-m01, https://10.3.60.51:2380, https://10.3.60.51:2379, false\nb2, unstarted, , https://10.3.60.52:2380, , false';
  assert.notEqual(await withMembers(partial), 0, 'an unstarted member at m02\'s peer URL is removed');
  const other = 'a1, started, labs-k8s-m01, https://10.3.60.51:2380, https://10.3.60.51:2379, false\nc3, unstarted, , https://10.3.60.53:2380, , false';
  assert.equal(await withMembers(other), 0, 'another host\'s unstarted member is not this step\'s business');
});
