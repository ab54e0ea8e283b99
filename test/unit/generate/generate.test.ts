import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { generateClusterConfigs } from '../../../src/core/generate/index';
import type { Inventory } from '../../../src/core/inventory/types';
import { crossFileFindings } from '../../../src/core/lint/crossFile';
import { detectKind, lintText } from '../../../src/core/lint/registry';
import { EXAMPLE, exampleInventory, fixture } from '../kubeadm/helpers';

const inventory = exampleInventory();

function variants(): Array<[string, Inventory]> {
  const c = inventory.cluster;
  return [
    ['1.30 (v1beta3)', inventory],
    ['1.31 (v1beta4)', { ...inventory, cluster: { ...c, kubernetesVersion: '1.31.4' } }],
    ['1.34 air-gapped', { ...inventory, cluster: { ...c, kubernetesVersion: '1.34.12', imageRepository: 'registry.local:5000/k8s', registryMirrors: { 'docker.io': ['mirror.local:5000'] } } }],
  ];
}

describe('generateClusterConfigs', () => {
  for (const [name, inv] of variants()) {
    for (const layout of [2, 3] as const) {
      it(`${name}, containerd layout ${layout}: every file passes every rule`, () => {
        const files = generateClusterConfigs(inv, { containerdLayout: layout });
        const paths = files.map((f) => f.path);
        for (const p of ['kubeadm-config.yaml', 'etc/containerd/config.toml', 'etc/sysctl.d/99-kubernetes-cri.conf', 'etc/modules-load.d/k8s.conf', 'etc/sysctl.d/99-loadbalancer.conf']) assert.ok(paths.includes(p), p);
        for (const f of files) {
          const findings = lintText(f, { inventory: inv, siblings: files });
          assert.deepEqual(findings.map((x) => `${x.rule}: ${x.message}`), [], f.path);
        }
        assert.deepEqual(crossFileFindings(files), []);
        const kubeadm = files.find((f) => f.path === 'kubeadm-config.yaml')!.text;
        assert.match(kubeadm, inv.cluster.kubernetesVersion.startsWith('1.30') ? /kubeadm\.k8s\.io\/v1beta3/ : /kubeadm\.k8s\.io\/v1beta4/);
        assert.equal(detectKind('kubeadm-config.yaml', kubeadm), 'kubeadm');
      });
    }
  }

  it('writes the HAProxy and Keepalived files of the other generators, keepalived per balancer', () => {
    const files = generateClusterConfigs(inventory);
    assert.ok(files.some((f) => f.path === 'haproxy.cfg'));
    assert.ok(files.some((f) => f.path === 'keepalived.conf' && f.host === 'labs-k8s-balancer'));
  });

  it('every example file lints clean against the example inventory', () => {
    const walk = (d: string): string[] => readdirSync(d).flatMap((n) => (statSync(join(d, n)).isDirectory() ? walk(join(d, n)) : [join(d, n)]));
    const files = walk(EXAMPLE).map((p) => ({ path: relative(EXAMPLE, p), text: readFileSync(p, 'utf8') }));
    for (const f of files) assert.deepEqual(lintText(f, { inventory, inventoryPath: 'inventory.yaml', siblings: files }).map((x) => `${x.rule}: ${x.message}`), [], f.path);
    // Without the inventory, the files still agree with each other.
    assert.deepEqual(crossFileFindings(files.filter((f) => f.path !== 'inventory.yaml')), []);
    assert.deepEqual(crossFileFindings(files, { inventory, inventoryPath: 'inventory.yaml' }), []);
  });
});

describe('cross-file', () => {
  const files = generateClusterConfigs(inventory);
  const kubeadm = files.find((f) => f.path === 'kubeadm-config.yaml')!;
  const flannel = { path: 'kube-flannel.yml', text: fixture('kubeadm', 'kube-flannel.yml') };

  it('the flannel manifest must carry the inventory pod subnet; the finding points at its Network line', () => {
    const changed = { ...flannel, text: flannel.text.replace('10.244.0.0/16', '10.200.0.0/16') };
    assert.equal(detectKind(changed.path, changed.text), 'cni-manifest');
    const f = lintText(changed, { inventory, siblings: [kubeadm, changed] });
    assert.equal(f.length, 1);
    assert.equal(f[0]!.rule, 'cross-file/pod-subnet');
    assert.equal(f[0]!.range.start.line, changed.text.split('\n').findIndex((l) => l.includes('"Network"')));
  });

  it('without an inventory, files are compared with kubeadm-config.yaml', () => {
    const haproxy = files.find((f) => f.path === 'haproxy.cfg')!;
    const keepalived = files.find((f) => f.path === 'keepalived.conf')!;
    const badHaproxy = { ...haproxy, text: haproxy.text.replace(/bind 10\.3\.60\.100:6443/, 'bind 10.3.60.101:6443') };
    const badKeepalived = { ...keepalived, text: keepalived.text.replace(/10\.3\.60\.100/, '10.3.60.102') };
    const badFlannel = { ...flannel, text: flannel.text.replace('10.244.0.0/16', '10.245.0.0/16') };
    const all = [kubeadm, badHaproxy, badKeepalived, badFlannel];
    const found = crossFileFindings(all);
    const by = (file: string) => found.filter((f) => f.file === file).map((f) => f.rule);
    assert.deepEqual(by('haproxy.cfg'), ['cross-file/vip']);
    assert.deepEqual(by('keepalived.conf'), ['cross-file/vip']);
    assert.deepEqual(by('kube-flannel.yml'), ['cross-file/pod-subnet']);
    assert.deepEqual(crossFileFindings([kubeadm, haproxy, keepalived, flannel]), []);
    const vipLine = found.find((f) => f.file === 'haproxy.cfg')!.range.start.line;
    assert.match(badHaproxy.text.split('\n')[vipLine]!, /bind 10\.3\.60\.101:6443/);
  });

  it('kubeadm podSubnet differing from the inventory is a cross-file finding', () => {
    const bad = { ...kubeadm, text: kubeadm.text.replace('podSubnet: 10.244.0.0/16', 'podSubnet: 10.200.0.0/16') };
    const rules = lintText(bad, { inventory, siblings: [bad, { ...flannel, text: flannel.text.replace('10.244.0.0/16', '10.200.0.0/16') }] }).map((f) => f.rule);
    assert.deepEqual(rules, ['cross-file/pod-subnet']);
  });
});

describe('cluster.apiServerAuditLog', () => {
  it('off: no policy file and no audit flags; on: the policy and the API server flags and mounts that use it', () => {
    const off = generateClusterConfigs(inventory);
    assert.equal(off.find((f) => f.path.includes('audit')), undefined);
    assert.doesNotMatch(off.find((f) => f.path === 'kubeadm-config.yaml')!.text, /audit/);
    for (const [name, inv] of variants()) {
      const files = generateClusterConfigs({ ...inv, cluster: { ...inv.cluster, apiServerAuditLog: true } });
      const policy = files.find((f) => f.path === 'etc/kubernetes/audit/policy.yaml');
      assert.ok(policy, `${name}: the policy is written`);
      assert.match(policy.text, /kind: Policy/);
      const kubeadm = files.find((f) => f.path === 'kubeadm-config.yaml')!.text;
      const cluster = parseAllDocuments(kubeadm).map((d) => d.toJS() as Record<string, any>).find((d) => d.kind === 'ClusterConfiguration')!; // eslint-disable-line @typescript-eslint/no-explicit-any
      const args = Array.isArray(cluster.apiServer.extraArgs) ? Object.fromEntries(cluster.apiServer.extraArgs.map((a: { name: string; value: string }) => [a.name, a.value])) : cluster.apiServer.extraArgs;
      assert.equal(args['audit-policy-file'], '/etc/kubernetes/audit/policy.yaml', name);
      assert.equal(args['audit-log-path'], '/var/log/kubernetes/audit/audit.log', name);
      assert.deepEqual(cluster.apiServer.extraVolumes.map((v: { hostPath: string }) => v.hostPath), ['/etc/kubernetes/audit', '/var/log/kubernetes/audit'], name);
      for (const f of files) assert.deepEqual(lintText(f, { inventory: inv, siblings: files }).map((x) => `${x.rule}: ${x.message}`), [], `${name}: ${f.path}`);
    }
  });
});
