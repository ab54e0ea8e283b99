/**
 * Where the cursor is while a YAML file is being typed: the path, key or value, the word typed, the keys the mapping
 * already has (also below the cursor), in block and flow style, in the half-typed states a completion meets.
 * The last `|` marks the cursor in each text.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { yamlCursor, yamlFieldAt, type YamlCursor } from '../../../src/core/yaml/cursor';

function at(marked: string): YamlCursor | undefined {
  const offset = marked.lastIndexOf('|');
  assert.ok(offset >= 0, 'no cursor mark');
  return yamlCursor(marked.slice(0, offset) + marked.slice(offset + 1), offset);
}

function brief(c: YamlCursor | undefined): string {
  return c ? `${c.at} ${JSON.stringify(c.path)} "${c.prefix}"${c.flow ? ' flow' : ''} [${c.existingKeys.join(',')}]` : 'none';
}

const inventory = readFileSync(join(__dirname, '../../../examples/labs-k8s/inventory.yaml'), 'utf8');
const kubeadm = readFileSync(join(__dirname, '../../../examples/labs-k8s/kubeadm-config.yaml'), 'utf8');

test('block mappings: a key being typed, an empty line, a value; the keys around the cursor count', () => {
  assert.equal(brief(at('cluster:\n  name: a\n  ku|\n  cni: flannel\n')), 'key ["cluster"] "ku" [name,cni]');
  assert.equal(brief(at('cluster:\n  name: a\n  |\n  cni: flannel\nssh: {}\n')), 'key ["cluster"] "" [name,cni]');
  assert.equal(brief(at('cluster:\n  |\n')), 'key ["cluster"] "" []');
  assert.equal(brief(at('cluster:\n  name: a\n|\nhosts: []\n')), 'key [] "" [cluster,hosts]');
  assert.equal(brief(at('cluster:\n  cni: fl|\n')), 'value ["cluster","cni"] "fl" []');
  assert.equal(brief(at('cluster:\n  cni: |\n')), 'value ["cluster","cni"] "" []');
  assert.equal(brief(at('|')), 'key [] "" []');
  assert.equal(brief(at('clu|')), 'key [] "clu" []');
});

test('sequences: block items of mappings, compact sequences, scalar items', () => {
  const hosts = 'hosts:\n  - name: m1\n    address: 10.0.0.1\n    |\n  - name: m2\n';
  assert.equal(brief(at(hosts)), 'key ["hosts",0] "" [name,address]');
  assert.equal(brief(at('hosts:\n  - name: m1\n  - |\n')), 'value ["hosts",1] "" []');
  assert.equal(brief(at('hosts:\n  - name: m1\n  - na|\n')), 'value ["hosts",1] "na" []');
  assert.equal(brief(at('hosts:\n- name: m1\n  ro|\n')), 'key ["hosts",0] "ro" [name]');
  assert.equal(brief(at('hosts:\n- name: m1\n|\n')), 'key [] "" [hosts]');
  assert.equal(brief(at('hosts:\n  - name: m1\n    roles:\n      - control-plane\n      - wo|\n')), 'value ["hosts",0,"roles",1] "wo" []');
  assert.equal(brief(at('a:\n  - x\n  - y\nb: |\n')), 'value ["b"] "" []');
});

test("flow style as the example inventory writes its hosts: keys, values, nested flow, over two lines", () => {
  assert.equal(brief(at('hosts:\n  - { name: m1, ro| }\n')), 'key ["hosts",0] "ro" flow [name]');
  assert.equal(brief(at('hosts:\n  - { name: m1, roles: [con| }\n')), 'value ["hosts",0,"roles",0] "con" flow []');
  assert.equal(brief(at('hosts:\n  - { name: m1, roles: [worker, |] }\n')), 'value ["hosts",0,"roles",1] "" flow []');
  assert.equal(brief(at('hosts:\n  - { name: a }\n  - { name: b, address: x,\n      vrrp: { state: MA| } }\n')), 'value ["hosts",1,"vrrp","state"] "MA" flow []');
  assert.equal(brief(at('ssh: { user: root, | }\n')), 'key ["ssh"] "" flow [user]');
  const marked = inventory.replace('roles: [control-plane] }\n  - { name: labs-k8s-m03', 'roles: [control-plane], | }\n  - { name: labs-k8s-m03');
  assert.equal(brief(at(marked)), 'key ["hosts",2] "" flow [name,address,roles]');
});

test('quoted keys and values, comments, block scalars and documents', () => {
  assert.equal(brief(at('"cluster":\n  \'name\': a\n  |\n')), 'key ["cluster"] "" [name]');
  assert.equal(at('cluster: # the cluster |\n'), undefined, 'in a comment');
  assert.equal(at('motd: |\n  hello |\n'), undefined, 'in a block scalar');
  assert.equal(brief(at('motd: |\n  hello\nnext|\n')), 'key [] "next" [motd]');
  const two = 'apiVersion: kubeadm.k8s.io/v1beta4\nkind: InitConfiguration\n---\napiVersion: kubeadm.k8s.io/v1beta4\nkind: ClusterConfiguration\nnetworking:\n  |\n';
  const c = at(two)!;
  assert.equal(brief(c), 'key ["networking"] "" []');
  assert.deepEqual(c.documentRoot, { apiVersion: 'kubeadm.k8s.io/v1beta4', kind: 'ClusterConfiguration' });
  assert.equal(brief(at('apiVersion: kubeadm.k8s.io/v1beta4\nkind: Init|\n')), 'value ["kind"] "Init" []');
});

test('the example files: the fields under the cursor for hovers, keys and values, block and flow', () => {
  const field = (text: string, word: string, nth = 0) => {
    let i = -1;
    for (let n = 0; n <= nth; n++) i = text.indexOf(word, i + 1);
    const f = yamlFieldAt(text, i + 1);
    return f && `${f.on} ${JSON.stringify(f.path)} ${text.slice(f.start, f.end)}`;
  };
  assert.equal(field(inventory, 'controlPlaneEndpoint'), 'key ["cluster","controlPlaneEndpoint"] controlPlaneEndpoint');
  assert.equal(field(inventory, '10.3.60.100:6443'), 'value ["cluster","controlPlaneEndpoint"] 10.3.60.100:6443');
  assert.equal(field(inventory, 'identityFile'), 'key ["ssh","identityFile"] identityFile');
  assert.equal(field(inventory, 'state'), 'key ["hosts",0,"vrrp","state"] state');
  assert.equal(field(inventory, 'MASTER'), 'value ["hosts",0,"vrrp","state"] MASTER');
  assert.equal(field(inventory, 'roles', 4), 'key ["hosts",4,"roles"] roles');
  assert.equal(field(inventory, 'worker]'), 'value ["hosts",4,"roles",0] worker');
  assert.equal(field(inventory, 'seed topology'), undefined, 'a comment');
  assert.equal(field(kubeadm, 'certSANs'), 'key ["apiServer","certSANs"] certSANs');
  assert.equal(field(kubeadm, 'criSocket'), 'key ["nodeRegistration","criSocket"] criSocket');
  assert.equal(field(kubeadm, 'cgroupDriver'), 'key ["cgroupDriver"] cgroupDriver');
  const f = yamlFieldAt(kubeadm, kubeadm.indexOf('cgroupDriver') + 2)!;
  assert.deepEqual(f.documentRoot, { apiVersion: 'kubelet.config.k8s.io/v1beta1', kind: 'KubeletConfiguration', cgroupDriver: 'systemd' });
});
