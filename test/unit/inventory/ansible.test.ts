import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expandHostPattern, importAnsibleInventory, jumpFromProxyCommand, type AnsibleImportResult } from '../../../src/core/inventory/ansible';
import { parseInventory } from '../../../src/core/inventory/parse';
import { serializeInventory } from '../../../src/core/inventory/serialize';
import { hostsWithRole, sshFor } from '../../../src/core/inventory/types';

const root = join(__dirname, '../../..');
const fixtures = join(root, 'test/fixtures/ansible');
const read = (p: string): string => readFileSync(join(fixtures, p), 'utf8');
const seedExample = parseInventory(readFileSync(join(root, 'examples/labs-k8s/inventory.yaml'), 'utf8')).inventory!;

/** `line:col rule` with 1-based line and column, as the command line prints them. */
function where(r: AnsibleImportResult): string[] {
  return r.findings.map((f) => `${f.range.start.line + 1}:${f.range.start.character + 1} ${f.severity} ${f.rule}`);
}

function roundTrip(r: AnsibleImportResult): void {
  const text = serializeInventory(r.inventory, 'round trip');
  const back = parseInventory(text);
  assert.deepEqual(back.findings.filter((f) => f.severity === 'error'), [], text);
  assert.deepEqual(back.inventory, r.inventory);
}

test('the seed INI inventory imports into exactly the seed example', () => {
  const r = importAnsibleInventory(read('labs-k8s/inventory.ini'), 'test/fixtures/ansible/labs-k8s/inventory.ini');
  assert.deepEqual(r.findings, []);
  assert.deepEqual(r.missing, []);
  assert.deepEqual(r.inventory, seedExample);
  roundTrip(r);
});

test('the Kubespray hosts.yaml imports hosts, roles and labels; group_vars supply the cluster settings', () => {
  const dir = 'kubespray/inventory/labs-k8s';
  const bare = importAnsibleInventory(read(`${dir}/hosts.yaml`), `${dir}/hosts.yaml`);
  assert.deepEqual(bare.missing, ['kubernetesVersion', 'controlPlaneEndpoint']);
  assert.deepEqual(where(bare), ['1:1 warning ansible/no-version', '1:1 warning ansible/no-endpoint']);

  const r = importAnsibleInventory(read(`${dir}/hosts.yaml`), `${dir}/hosts.yaml`, {
    groupVars: [
      { group: 'all', fileName: `${dir}/group_vars/all/all.yml`, text: read(`${dir}/group_vars/all/all.yml`) },
      { group: 'k8s_cluster', fileName: `${dir}/group_vars/k8s_cluster/k8s-cluster.yml`, text: read(`${dir}/group_vars/k8s_cluster/k8s-cluster.yml`) },
    ],
  });
  assert.deepEqual(r.findings, []);
  assert.deepEqual(r.missing, []);
  const inv = r.inventory;
  assert.deepEqual(inv.cluster, {
    name: 'labs-k8s',
    kubernetesVersion: '1.30.14',
    controlPlaneEndpoint: '10.3.60.100:6443',
    podSubnet: '10.233.64.0/18',
    serviceSubnet: '10.233.0.0/18',
    cni: 'calico',
  });
  assert.deepEqual(inv.ssh, { user: 'debian' });
  assert.deepEqual(inv.hosts.map((h) => `${h.name}=${h.address} ${h.roles.join(',')}`), [
    'labs-k8s-balancer=10.3.60.50 loadbalancer',
    'labs-k8s-m01=10.3.60.51 control-plane',
    'labs-k8s-m02=10.3.60.52 control-plane',
    'labs-k8s-m03=10.3.60.53 control-plane',
    'labs-k8s-w01=10.3.60.54 worker',
    'labs-k8s-w02=10.3.60.55 worker',
  ]);
  assert.deepEqual(inv.hosts[0]!.vrrp, { state: 'MASTER', priority: 100, interface: 'ens192' });
  assert.deepEqual(inv.hosts[4]!.labels, { 'node-role.kubernetes.io/ingress': '', 'topology.kubernetes.io/zone': 'rack-a' });
  roundTrip(r);
});

test('a [bastion] host becomes the proxyJump of every cluster host and is not imported itself', () => {
  const r = importAnsibleInventory(read('bastion/inventory.ini'), 'bastion/inventory.ini', { kubernetesVersion: 'v1.30.14' });
  assert.deepEqual(where(r), ['17:1 info ansible/no-vrrp']);
  const inv = r.inventory;
  assert.equal(inv.cluster.name, 'bastion');
  assert.equal(inv.cluster.kubernetesVersion, '1.30.14');
  assert.equal(inv.cluster.controlPlaneEndpoint, '10.20.0.100:6443');
  assert.deepEqual(inv.ssh, { user: 'debian', identityFile: '~/.ssh/lab', proxyJump: 'ops@203.0.113.10:2222' });
  assert.ok(!inv.hosts.some((h) => h.name === 'bastion'));
  assert.deepEqual(inv.hosts.map((h) => h.name), ['lb1', 'cp1', 'cp2', 'cp3', '10.20.0.21', '10.20.0.22']);
  assert.deepEqual(inv.hosts.map((h) => h.address), ['10.20.0.5', '10.20.0.11', '10.20.0.12', '10.20.0.13', '10.20.0.21', '10.20.0.22']);
  assert.deepEqual(sshFor(inv, inv.hosts[1]!), { user: 'debian', port: 22, identityFile: '~/.ssh/lab', proxyJump: 'ops@203.0.113.10:2222' });
  roundTrip(r);
});

test('the broken inventory yields findings at the right lines and still imports the usable hosts', () => {
  const r = importAnsibleInventory(read('broken/inventory.ini'), 'broken/inventory.ini');
  assert.deepEqual(where(r), [
    '1:1 warning ansible/no-version',
    '1:1 warning ansible/no-endpoint',
    '3:1 info ansible/stacked-etcd',
    '3:28 error ansible/port',
    '4:1 info ansible/stacked-etcd',
    '4:1 error ansible/no-address',
    '5:1 info ansible/stacked-etcd',
    '8:1 error ansible/host-range',
    '9:27 error ansible/ini-syntax',
    '10:1 warning ansible/host-renamed',
    '13:1 warning ansible/no-role',
    '16:1 warning ansible/external-etcd',
    '21:1 error ansible/children-cycle',
    '22:1 error ansible/ini-section',
    '25:1 warning ansible/cni',
    '26:1 warning ansible/version',
  ]);
  // Ranges are 0-based internally and cover the offending token.
  const port = r.findings.find((f) => f.rule === 'ansible/port')!;
  assert.deepEqual(port.range, { start: { line: 2, character: 27 }, end: { line: 2, character: 43 } });
  assert.equal(port.file, 'broken/inventory.ini');
  assert.deepEqual(r.inventory.hosts.map((h) => `${h.name} ${h.roles.join(',')}`), ['cp1 control-plane', 'cp3 control-plane', 'w1 worker', 'worker-2 worker', 'etcd1 etcd']);
  assert.equal(r.inventory.hosts[0]!.ssh, undefined, 'a bad port is dropped, not imported');
  assert.deepEqual(r.missing, ['kubernetesVersion', 'controlPlaneEndpoint']);
});

test('legacy group names, ranges, :vars precedence and host-line ports', () => {
  const ini = [
    '[kube-master]', //                                   1
    'master[1:3] ansible_host=10.1.0.9', //                2
    '[kube-node]', //                                     3
    'node-[a:b]:2200 ansible_host=10.1.0.20', //           4
    'node-c ip=10.1.0.23 ansible_host=203.0.113.23', //    5
    '[k8s-cluster:children]', //                          6
    'kube-master', //                                     7
    'kube-node', //                                       8
    '[kube-node:vars]', //                                9
    'ansible_user=node-admin', //                         10
    '[all:vars]', //                                      11
    'ansible_user=admin ; the default', //                12
    'loadbalancer_apiserver={address: 10.1.0.100, port: 8443}', // 13
  ].join('\n');
  const r = importAnsibleInventory(ini, 'site/hosts', { kubernetesVersion: '1.31.2' });
  assert.deepEqual(where(r), [
    '1:2 info ansible/legacy-group',
    '3:2 info ansible/legacy-group',
    '5:21 warning ansible/ssh-address',
    '6:2 info ansible/legacy-group',
  ]);
  const inv = r.inventory;
  assert.equal(inv.cluster.name, 'site');
  assert.equal(inv.cluster.controlPlaneEndpoint, '10.1.0.100:8443');
  assert.deepEqual(inv.hosts.map((h) => h.name), ['master1', 'master2', 'master3', 'node-a', 'node-b', 'node-c']);
  // The three masters share one address in this (deliberately odd) file; the parser reports that later.
  assert.equal(inv.hosts[5]!.address, '10.1.0.23', 'ip wins over ansible_host');
  // kube-node:vars (depth 2) beats all:vars (depth 0); the per-host port stays per host.
  assert.deepEqual(inv.ssh, {});
  assert.deepEqual(inv.hosts[0]!.ssh, { user: 'admin' });
  assert.deepEqual(inv.hosts[3]!.ssh, { user: 'node-admin', port: 2200 });
  assert.deepEqual(inv.hosts[5]!.ssh, { user: 'node-admin' });
});

test('YAML inventories: vars precedence, unknown keys, list-shaped hosts and syntax errors become findings', () => {
  const yaml = [
    'all:', //                                       1
    '  vars:', //                                    2
    '    ansible_port: 22', //                       3
    '    kube_version: 1.30.2', //                   4
    '    apiserver_loadbalancer_domain_name: api.lab', // 5
    '  children:', //                                6
    '    kube_control_plane:', //                    7
    '      hosts:', //                               8
    '        cp[1:3]:', //                           9
    '      vars:', //                                10
    '        ansible_port: 2222', //                 11
    '    kube_node:', //                             12
    '      hosts:', //                               13
    '        - w1', //                               14
    '      hostvars: {}', //                         15
    '    lb:', //                                    16
    '      hosts:', //                               17
    '        10.9.0.5:', //                          18
    '          ansible_port: 70000', //              19
    '          vrrp_interface: eth0', //             20
    '          node_taints: [a]', //                 21
  ].join('\n');
  const r = importAnsibleInventory(yaml, 'inv.yml');
  assert.deepEqual(where(r), [
    '7:5 error ansible/no-control-plane',
    '9:9 error ansible/no-address',
    '9:9 error ansible/no-address',
    '9:9 error ansible/no-address',
    '14:9 error ansible/yaml-structure',
    '15:7 warning ansible/yaml-structure',
    '19:25 error ansible/port',
    '21:24 info ansible/ignored-var',
  ]);
  const inv = r.inventory;
  assert.equal(inv.cluster.kubernetesVersion, '1.30.2');
  assert.deepEqual(inv.hosts.map((h) => h.name), ['10.9.0.5']);
  assert.deepEqual(inv.hosts[0]!.vrrp, { state: 'MASTER', priority: 100, interface: 'eth0' });
  assert.deepEqual(inv.ssh, {}, "the host's bad port overrides all:vars and is dropped");
  // The endpoint is a domain name here; it is kept, with the API port default.
  assert.equal(inv.cluster.controlPlaneEndpoint, 'api.lab:6443');
  assert.deepEqual(r.missing, []);

  const syntax = importAnsibleInventory('all:\n  hosts: {\n', 'bad.yaml');
  assert.ok(syntax.findings.some((f) => f.rule === 'ansible/yaml-syntax' && f.severity === 'error'));
  const notMap = importAnsibleInventory('- a\n- b\n', 'bad.yaml');
  assert.deepEqual(where(notMap).slice(0, 1), ['1:1 error ansible/yaml-structure']);
  assert.equal(notMap.inventory.hosts.length, 0);
});

test('ProxyJump and ProxyCommand in ansible_ssh_common_args become per-host proxyJump', () => {
  const ini = [
    '[kube_control_plane]',
    "cp1 ansible_host=10.0.0.11 ansible_ssh_common_args='-o ProxyCommand=\"ssh -W %h:%p -q -p 2200 jump@198.51.100.7\"'",
    'cp2 ansible_host=10.0.0.12 ansible_ssh_common_args="-o ProxyJump=admin@198.51.100.9"',
    'cp3 ansible_host=10.0.0.13 ansible_ssh_common_args="-J ops@bastion.lab"',
    '[kube_node]',
    'w1 ansible_host=10.0.0.21',
    "w2 ansible_host=10.0.0.22 ansible_ssh_extra_args='-o ProxyCommand=\"nc -X 5 -x proxy:1080 %h %p\"'",
  ].join('\n');
  const r = importAnsibleInventory(ini, 'x.ini', { kubernetesVersion: '1.30.14', controlPlaneEndpoint: '10.0.0.100:6443' });
  assert.deepEqual(where(r), ['7:27 warning ansible/proxy-command']);
  assert.deepEqual(r.inventory.hosts.map((h) => h.ssh?.proxyJump), ['jump@198.51.100.7:2200', 'admin@198.51.100.9', 'ops@bastion.lab', undefined, undefined]);
  assert.deepEqual(r.inventory.ssh, {});
  roundTrip(r);
});

test('control-plane nodes that are also in kube_node get both roles; a domain endpoint keeps its port', () => {
  const ini = '[kube_control_plane]\n10.0.0.1\n[kube_node]\n10.0.0.1\n10.0.0.2\n[all:vars]\napiserver_loadbalancer_domain_name=api.lab\nloadbalancer_apiserver_port=8443\nkube_version=1.30.1\n';
  const r = importAnsibleInventory(ini, 'x.ini');
  assert.deepEqual(r.findings, []);
  assert.deepEqual(r.inventory.hosts.map((h) => h.roles), [['control-plane', 'worker'], ['worker']]);
  assert.equal(r.inventory.cluster.controlPlaneEndpoint, 'api.lab:8443');
  assert.equal(hostsWithRole(r.inventory, 'worker').length, 2);
  roundTrip(r);
});

test('a children cycle in YAML is reported and does not hang', () => {
  const yaml = 'all:\n  children:\n    a:\n      children:\n        b:\n          children:\n            a:\n    kube_control_plane:\n      hosts:\n        10.0.0.1:\n';
  const r = importAnsibleInventory(yaml, 'c.yaml', { kubernetesVersion: '1.30.1', controlPlaneEndpoint: 'vip:6443' });
  assert.deepEqual(where(r), ['7:13 error ansible/children-cycle']);
  assert.equal(r.inventory.hosts.length, 1);
});

test('an empty file and garbage never throw', () => {
  for (const text of ['', '\n\n', '[', '[kube_node]\n=', 'all: 3', '{{{', '\u0000\u0001', '[kube_node]\nw[1:3\n']) {
    for (const format of ['ini', 'yaml'] as const) {
      const r = importAnsibleInventory(text, 'x', { format });
      assert.ok(Array.isArray(r.findings));
      assert.ok(r.findings.some((f) => f.severity === 'error'), `${format}: ${JSON.stringify(text)}`);
    }
  }
});

test('host patterns expand like Ansible', () => {
  assert.deepEqual(expandHostPattern('node[01:03]', undefined, undefined), ['node01', 'node02', 'node03']);
  assert.deepEqual(expandHostPattern('n[1:5:2].lab', undefined, undefined), ['n1.lab', 'n3.lab', 'n5.lab']);
  assert.deepEqual(expandHostPattern('w-[a:c]', undefined, undefined), ['w-a', 'w-b', 'w-c']);
  assert.deepEqual(expandHostPattern('r[1:2]-[a:b]', undefined, undefined), ['r1-a', 'r1-b', 'r2-a', 'r2-b']);
  assert.deepEqual(expandHostPattern('plain', undefined, undefined), ['plain']);
});

test('ProxyCommand destinations become ProxyJump syntax', () => {
  assert.equal(jumpFromProxyCommand('ssh -W %h:%p bastion'), 'bastion');
  assert.equal(jumpFromProxyCommand('ssh -o StrictHostKeyChecking=no -W %h:%p -p 2222 ops@10.0.0.1'), 'ops@10.0.0.1:2222');
  assert.equal(jumpFromProxyCommand('/usr/bin/ssh -l ops -W %h:%p -i ~/.ssh/k 10.0.0.1'), 'ops@10.0.0.1');
  assert.equal(jumpFromProxyCommand('ssh -W %h:%p ssh://ops@b.lab:2200'), 'ops@b.lab:2200');
  assert.equal(jumpFromProxyCommand('nc %h %p'), undefined);
  assert.equal(jumpFromProxyCommand('ssh bastion nc %h %p'), undefined);
});
