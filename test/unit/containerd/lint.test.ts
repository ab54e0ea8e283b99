import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { lintContainerd } from '../../../src/core/containerd/lint';
import { containerdLinter } from '../../../src/core/containerd/linter';
import { pauseVersionFor } from '../../../src/core/containerd/pause';
import { generateContainerdConfig } from '../../../src/core/generate/containerd';
import { detectKind } from '../../../src/core/lint/registry';
import { applyEdits, EXAMPLE, exampleInventory, fixture } from '../kubeadm/helpers';

const inventory = exampleInventory();
const path = 'etc/containerd/config.toml';
const example = readFileSync(join(EXAMPLE, path), 'utf8');
const lint = (text: string, inv = inventory, siblings: { path: string; text: string }[] = []) => lintContainerd({ path, text }, { inventory: inv, siblings });

describe('containerd linter', () => {
  it('the example is clean and detected', () => {
    assert.deepEqual(lint(example), []);
    assert.equal(detectKind(path, example), 'containerd');
  });

  it('pause versions per Kubernetes minor', () => {
    assert.equal(pauseVersionFor('1.24.17'), '3.7');
    assert.equal(pauseVersionFor('1.25.16'), '3.8');
    assert.equal(pauseVersionFor('1.26.0'), '3.9');
    assert.equal(pauseVersionFor('1.30.14'), '3.9');
    assert.equal(pauseVersionFor('v1.31.0'), '3.10');
    assert.equal(pauseVersionFor('1.33.1'), '3.10');
    assert.equal(pauseVersionFor('1.34.12'), '3.10.1');
  });

  it('SystemdCgroup false or missing, with fixes (v2 and v3 layouts)', () => {
    for (const layout of [2, 3] as const) {
      const good = generateContainerdConfig(inventory, { layout });
      assert.deepEqual(lint(good), [], `layout ${layout}`);
      const off = good.replace('SystemdCgroup = true', 'SystemdCgroup = false');
      const f = lint(off).find((x) => x.rule === 'containerd/systemd-cgroup')!;
      assert.equal(f.range.start.line, off.split('\n').findIndex((l) => l.includes('SystemdCgroup')));
      assert.deepEqual(lint(applyEdits(off, f.fixes![0]!.edits)), []);
      const missing = good.replace('  SystemdCgroup = true\n', '');
      const g = lint(missing).find((x) => x.rule === 'containerd/systemd-cgroup')!;
      assert.deepEqual(lint(applyEdits(missing, g.fixes![0]!.edits)), [], `layout ${layout} missing`);
      const noTable = good.replace(/\n\[[^\n]*runc\.options\]\n  SystemdCgroup = true\n/, '\n');
      const h = lint(noTable).find((x) => x.rule === 'containerd/systemd-cgroup')!;
      assert.deepEqual(lint(applyEdits(noTable, h.fixes![0]!.edits)), [], `layout ${layout} no table`);
    }
  });

  it('sandbox image must be the pause of the Kubernetes version', () => {
    const old = example.replace('pause:3.9', 'pause:3.8');
    const f = lint(old).find((x) => x.rule === 'containerd/sandbox-image')!;
    assert.match(f.message, /pause:3\.9/);
    assert.deepEqual(lint(applyEdits(old, f.fixes![0]!.edits)), []);
    const v3 = generateContainerdConfig({ ...inventory, cluster: { ...inventory.cluster, kubernetesVersion: '1.34.12' } }, { layout: 3 });
    assert.ok(lint(v3).some((x) => x.rule === 'containerd/sandbox-image'), '3.10.1 vs 1.30 inventory');
    const missing = example.replace(/  sandbox_image = .*\n/, '');
    const g = lint(missing).find((x) => x.rule === 'containerd/sandbox-image')!;
    assert.deepEqual(lint(applyEdits(missing, g.fixes![0]!.edits)), []);
  });

  it('Docker\'s default config: CRI disabled, no version', () => {
    const r = lint(fixture('containerd', 'docker-default.toml')).map((x) => x.rule);
    assert.ok(r.includes('containerd/cri-disabled'));
    assert.ok(r.includes('containerd/version'));
  });

  it('`containerd config default` of 1.7: exactly the two edits the seed makes', () => {
    const text = fixture('containerd', 'containerd-1.7-default.toml');
    const found = lint(text);
    assert.deepEqual(found.map((x) => x.rule).sort(), ['containerd/sandbox-image', 'containerd/systemd-cgroup']);
    let fixed = text;
    for (const f of found) fixed = applyEdits(fixed, f.fixes![0]!.edits);
    assert.deepEqual(lint(fixed), []);
    assert.match(fixed, /^\s+SystemdCgroup = true$/m);
    assert.match(fixed, /sandbox_image = "registry\.k8s\.io\/pause:3\.9"/);
  });

  it('containerd 2.x default (version 3, literal strings): SystemdCgroup missing, pause newer than 1.30 uses', () => {
    const text = fixture('containerd', 'containerd-2.x-default.toml');
    const found = lint(text);
    assert.deepEqual(found.map((x) => x.rule).sort(), ['containerd/sandbox-image', 'containerd/systemd-cgroup']);
    let fixed = text;
    for (const f of found) fixed = applyEdits(fixed, f.fixes![0]!.edits);
    assert.deepEqual(lint(fixed), []);
    const v131 = { ...inventory, cluster: { ...inventory.cluster, kubernetesVersion: '1.31.4' } };
    assert.deepEqual(lint(text, v131).map((x) => x.rule), ['containerd/systemd-cgroup']);
  });

  it('layout mismatch and TOML syntax errors', () => {
    assert.ok(lint(example.replace('version = 2', 'version = 3')).some((x) => x.rule === 'containerd/layout'));
    const f = lint('version = 2\n[plugins\nx = 1\n').find((x) => x.rule === 'containerd/toml-syntax')!;
    assert.equal(f.range.start.line, 1);
  });

  it('registry mirrors need config_path and hosts.toml', () => {
    const inv = { ...inventory, cluster: { ...inventory.cluster, registryMirrors: { 'docker.io': ['mirror.local:5000'] } } };
    const f = lint(example, inv).find((x) => x.rule === 'containerd/registry-config-path')!;
    const fixed = applyEdits(example, f.fixes![0]!.edits);
    assert.deepEqual(lint(fixed, inv), []);
    assert.ok(lint(fixed, inv, [{ path: 'etc/containerd/certs.d/quay.io/hosts.toml', text: '' }]).some((x) => x.rule === 'containerd/registry-hosts'));
    assert.deepEqual(lint(fixed, inv, [{ path: 'etc/containerd/certs.d/docker.io/hosts.toml', text: '' }]), []);
    const legacy = example + '\n[plugins."io.containerd.grpc.v1.cri".registry.mirrors."docker.io"]\n  endpoint = ["https://mirror.local"]\n';
    assert.ok(lint(legacy).some((x) => x.rule === 'containerd/deprecated-mirrors'));
  });

  it('without an inventory, the Kubernetes version comes from kubeadm-config.yaml', () => {
    const kubeadm = readFileSync(join(EXAMPLE, 'kubeadm-config.yaml'), 'utf8');
    assert.deepEqual(lintContainerd({ path, text: example }, { siblings: [{ path: 'kubeadm-config.yaml', text: kubeadm }] }), []);
    assert.ok(lintContainerd({ path, text: example }, { siblings: [{ path: 'kubeadm-config.yaml', text: kubeadm.replace('v1.30.14', 'v1.31.1') }] }).some((x) => x.rule === 'containerd/sandbox-image'));
  });

  it('a config for hosts that are not Kubernetes nodes is not asked what the nodes need', () => {
    const off = example.replace('SystemdCgroup = true', 'SystemdCgroup = false');
    const rules = (p: string, text: string) => containerdLinter.lint({ path: p, text }, { inventory }).map((f) => f.rule);
    assert.ok(rules(path, off).includes('containerd/systemd-cgroup'));
    assert.deepEqual(rules('hosts/labs-k8s-balancer/etc/containerd/config.toml', off), []);
    assert.deepEqual(rules(path, '# kubeadm-workbench: roles=loadbalancer\n' + off), []);
    // syntax still counts there
    assert.deepEqual(rules('hosts/labs-k8s-balancer/etc/containerd/config.toml', 'version = 2\n[plugins\n'), ['containerd/toml-syntax']);
  });
});
