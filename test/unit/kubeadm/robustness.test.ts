import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { lintContainerd } from '../../../src/core/containerd/lint';
import { lintKubeadm } from '../../../src/core/kubeadm/lint';
import { lintText } from '../../../src/core/lint/registry';
import { lintModules, lintSysctl } from '../../../src/core/sysctl/lint';
import { EXAMPLE, exampleInventory } from './helpers';

const inventory = exampleInventory();
const example = readFileSync(join(EXAMPLE, 'kubeadm-config.yaml'), 'utf8');

function timed<T>(fn: () => T, limitMs: number): T {
  const t0 = performance.now();
  const r = fn();
  const ms = performance.now() - t0;
  assert.ok(ms < limitMs, `took ${ms.toFixed(0)} ms (limit ${limitMs})`);
  return r;
}

const all = (path: string, text: string) => [
  lintKubeadm({ path, text }, { inventory }),
  lintContainerd({ path, text }, { inventory }),
  lintSysctl({ path, text }, { inventory }),
  lintModules({ path, text }, { inventory }),
  lintText({ path, text }, { inventory }),
];

describe('bad input: no crash, no hang', () => {
  it('binary data', () => {
    const bin = Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 256)).toString('latin1');
    const [k, c] = timed(() => all('kubeadm-config.yaml', bin), 2000);
    assert.equal(k![0]!.rule, 'lint/not-text');
    assert.equal(c![0]!.rule, 'lint/not-text');
  });

  it('a 5 MB file', () => {
    const big = example.repeat(Math.ceil(5_000_000 / example.length));
    const [k] = timed(() => all('kubeadm-config.yaml', big), 3000);
    assert.equal(k![0]!.rule, 'lint/not-text');
  });

  it('invalid UTF-8 (decoded with replacement characters)', () => {
    const text = Buffer.concat([Buffer.from(example), Buffer.from([0xc3, 0x28, 0xff, 0xfe, 0x0a])]).toString('utf8');
    timed(() => all('kubeadm-config.yaml', text), 2000);
  });

  it('CRLF line endings give the same findings on the same lines', () => {
    const bad = example.replace('cgroupDriver: systemd', 'cgroupDriver: cgroupfs');
    const lf = lintKubeadm({ path: 'kubeadm-config.yaml', text: bad }, { inventory });
    const crlf = lintKubeadm({ path: 'kubeadm-config.yaml', text: bad.replace(/\n/g, '\r\n') }, { inventory });
    assert.deepEqual(crlf.map((f) => [f.rule, f.range.start.line]), lf.map((f) => [f.rule, f.range.start.line]));
    const toml = 'version = 2\r\n[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]\r\n  SystemdCgroup = false\r\n';
    const f = lintContainerd({ path: 'etc/containerd/config.toml', text: toml }, {}).find((x) => x.rule === 'containerd/systemd-cgroup')!;
    assert.equal(f.range.start.line, 2);
    assert.deepEqual(lintSysctl({ path: 'etc/sysctl.d/k8s.conf', text: 'net.bridge.bridge-nf-call-iptables = 1\r\nnet.bridge.bridge-nf-call-ip6tables = 1\r\nnet.ipv4.ip_forward = 1\r\n' }, {}), []);
  });

  it('tabs in YAML indentation are a syntax error, not a crash', () => {
    const f = lintKubeadm({ path: 'kubeadm-config.yaml', text: example.replace('  podSubnet', '\tpodSubnet') }, { inventory });
    assert.ok(f.some((x) => x.rule === 'kubeadm/yaml-syntax'));
  });

  it('YAML alias bombs', () => {
    const bomb = ['apiVersion: kubeadm.k8s.io/v1beta3', 'kind: ClusterConfiguration', 'a: &a ["x","x","x","x","x","x","x","x","x"]'];
    for (let i = 0; i < 30; i++) bomb.push(`${String.fromCharCode(98 + (i % 25))}${i}: &a${i} [*${i === 0 ? 'a' : `a${i - 1}`},*${i === 0 ? 'a' : `a${i - 1}`},*${i === 0 ? 'a' : `a${i - 1}`}]`);
    timed(() => all('kubeadm-config.yaml', bomb.join('\n')), 2000);
  });

  it('deep nesting', () => {
    const deep = 'apiVersion: kubeadm.k8s.io/v1beta3\nkind: ClusterConfiguration\napiServer: ' + '['.repeat(20000) + ']'.repeat(20000) + '\n';
    timed(() => all('kubeadm-config.yaml', deep), 5000);
    const deepBlock = 'apiVersion: kubeadm.k8s.io/v1beta3\nkind: ClusterConfiguration\n' + Array.from({ length: 300 }, (_, i) => `${' '.repeat(i)}k${i}:`).join('\n') + ' x\n';
    timed(() => all('kubeadm-config.yaml', deepBlock), 5000);
    const toml = Array.from({ length: 5000 }, () => '[').join('') + '\n';
    timed(() => all('etc/containerd/config.toml', toml), 5000);
  });

  it('pathological sizes stay fast: many keys, many documents, a 400 KB line, many TOML tables', () => {
    const keys = 'apiVersion: kubeadm.k8s.io/v1beta3\nkind: ClusterConfiguration\n' + Array.from({ length: 30000 }, (_, i) => `k${i}: v`).join('\n') + '\nk1: dup\n';
    assert.ok(keys.length < 512_000);
    const f = timed(() => lintKubeadm({ path: 'kubeadm.yaml', text: keys }, { inventory }), 10000);
    assert.ok(f.length <= 250, `${f.length} findings`);
    const docs = timed(() => lintKubeadm({ path: 'kubeadm.yaml', text: 'a: 1\n---\n'.repeat(20000) }, {}), 2000);
    assert.equal(docs[0]!.rule, 'kubeadm/too-large');
    timed(() => lintKubeadm({ path: 'kubeadm.yaml', text: '---\n'.repeat(100000) }, {}), 2000);
    timed(() => lintKubeadm({ path: 'kubeadm.yaml', text: `apiVersion: kubeadm.k8s.io/v1beta3\nkind: ClusterConfiguration\nclusterName: ${'x'.repeat(400_000)}\n` }, { inventory }), 3000);
    const toml = 'version = 2\n' + Array.from({ length: 20000 }, (_, i) => `[t${i}]\nk = ${i}`).join('\n');
    timed(() => lintContainerd({ path: 'etc/containerd/config.toml', text: toml }, { inventory }), 5000);
    const dupe = lintKubeadm({ path: 'kubeadm.yaml', text: 'apiVersion: kubeadm.k8s.io/v1beta3\nkind: ClusterConfiguration\nclusterName: a\nclusterName: b\n' }, {});
    assert.deepEqual(dupe.map((x) => [x.rule, x.range.start.line]), [['kubeadm/duplicate-field', 3]]);
  });

  it('a file edited into nonsense, one character at a time', () => {
    let text = example;
    for (let i = 0; i < 200; i++) {
      const at = (i * 7919) % text.length;
      text = text.slice(0, at) + '{]:-&*!|>\'"\t'[i % 12] + text.slice(at + 1);
      lintKubeadm({ path: 'kubeadm-config.yaml', text }, { inventory });
    }
  });
});
