/**
 * One input per rule that the fixture corpus and the other unit tests do not name: each case is linted (or
 * imported) for real and must report its rule, so a declared rule is known to be emitted.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Finding } from '../../../src/core/findings';
import { importAnsibleInventory } from '../../../src/core/inventory/ansible';
import { parseInventory } from '../../../src/core/inventory/parse';
import { lintText } from '../../../src/core/lint/registry';
import type { FileKind, SourceFile } from '../../../src/core/lint/types';

const ROOT = join(__dirname, '../../..');
const example = (name: string) => readFileSync(join(ROOT, 'examples/labs-k8s', name), 'utf8');
const INVENTORY = example('inventory.yaml');
const KUBEADM = example('kubeadm-config.yaml');
const HAPROXY = example('haproxy.cfg');
const ANSIBLE = readFileSync(join(ROOT, 'test/fixtures/ansible/labs-k8s/inventory.ini'), 'utf8');

const inventory = () => parseInventory(INVENTORY).inventory!;
const inv = (text: string): Finding[] => parseInventory(text).findings;
const lint = (path: string, text: string, siblings: SourceFile[] = [], kind?: FileKind): Finding[] => lintText({ path, text }, { inventory: inventory(), siblings }, kind);
/** Without an inventory the files are compared with each other (with one, each is compared with it instead). */
const lintAlone = (path: string, text: string, siblings: SourceFile[]): Finding[] => lintText({ path, text }, { siblings });
const ansible = (text: string, name = 'inventory.ini'): Finding[] => importAnsibleInventory(text, name).findings;

/** Replaces `from` with `to` and fails loudly when `from` is not there (a changed example must not empty a case). */
function edit(text: string, from: string | RegExp, to: string): string {
  const out = text.replace(from, to);
  if (out === text) throw new Error(`case input: ${String(from)} not found`);
  return out;
}

export const RULE_CASES: Record<string, () => Finding[]> = {
  'inventory/not-a-map': () => inv('- a\n- b\n'),
  'inventory/type': () => inv(edit(INVENTORY, '  name: labs-k8s\n', '  name: [a, b]\n')),
  'inventory/version': () => inv(edit(INVENTORY, '"1.30.14"', '"1.30"')),
  'inventory/cidr': () => inv(edit(INVENTORY, 'podSubnet: 10.244.0.0/16', 'podSubnet: 10.244.0.0/33')),
  'inventory/cni': () => inv(edit(INVENTORY, 'cni: flannel', 'cni: weave')),
  'inventory/image-repository': () => inv(edit(INVENTORY, '  cni: flannel\n', '  cni: flannel\n  imageRepository: "bad repo!"\n')),
  'inventory/url': () => inv(edit(INVENTORY, '  cni: flannel\n', '  cni: flannel\n  packages: { kubernetesAptKey: "ftp://example.com/key.gpg" }\n')),
  'inventory/plain-http': () => inv(edit(INVENTORY, '  cni: flannel\n', '  cni: flannel\n  packages: { kubernetesAptKey: "http://example.com/key.gpg" }\n')),
  'inventory/preflight-check': () => inv(edit(INVENTORY, '  cni: flannel\n', '  cni: flannel\n  ignorePreflightErrors: ["no such check!"]\n')),
  'inventory/audit-log': () => inv(edit(INVENTORY, '  cni: flannel\n', '  cni: flannel\n  apiServerAuditLog: "yes"\n')),
  'inventory/ssh-user': () => inv(edit(INVENTORY, 'user: root', 'user: "ro ot"')),
  'inventory/proxy-jump': () => inv(edit(INVENTORY, 'port: 22,', 'port: 22, proxyJump: "a b c",')),
  'inventory/identity-file': () => inv(edit(INVENTORY, 'identityFile: ~/.ssh/id_ed25519', 'identityFile: "id\\u0001"')),
  'inventory/port': () => inv(edit(INVENTORY, 'port: 22,', 'port: 70000,')),
  'inventory/etcd-role': () => inv(edit(INVENTORY, 'roles: [control-plane] }\n  - { name: labs-k8s-m02', 'roles: [control-plane, etcd] }\n  - { name: labs-k8s-m02')),
  'inventory/vrrp-state': () => inv(edit(INVENTORY, 'state: MASTER', 'state: LEADER')),
  'inventory/range': () => inv(edit(INVENTORY, 'priority: 100', 'priority: 300')),
  'inventory/vrrp-role': () => inv(edit(INVENTORY, "roles: [worker] }\n  - { name: labs-k8s-w02", "roles: [worker], vrrp: { state: BACKUP, priority: 90, interface: ens192 } }\n  - { name: labs-k8s-w02")),
  'inventory/label': () => inv(edit(INVENTORY, "roles: [worker] }\n  - { name: labs-k8s-w02", "roles: [worker], labels: { 'bad key!': x } }\n  - { name: labs-k8s-w02")),
  'inventory/even-control-plane': () => inv(edit(INVENTORY, 'roles: [worker] }\n  - { name: labs-k8s-w02', 'roles: [control-plane] }\n  - { name: labs-k8s-w02')),
  'inventory/endpoint-is-host': () => inv(edit(INVENTORY, '10.3.60.100:6443', '10.3.60.54:6443')),
  'cross-file/port': () => lintAlone('haproxy.cfg', HAPROXY, [{ path: 'kubeadm-config.yaml', text: edit(KUBEADM, '10.3.60.100:6443', '10.3.60.100:7443') }]),
  'cross-file/control-planes': () => lintAlone('kubeadm-config.yaml', edit(KUBEADM, '    - 10.3.60.53\n', ''), [{ path: 'haproxy.cfg', text: HAPROXY }]),
  'kubeadm/not-a-map': () => lint('kubeadm-config.yaml', `${KUBEADM}\n---\n- a list\n`),
  'kubeadm/missing-type-meta': () => lint('kubeadm-config.yaml', `${KUBEADM}\n---\nkind: ClusterConfiguration\n`),
  'kubeadm/image-repository': () => {
    const mirrored = parseInventory(edit(INVENTORY, '  cni: flannel\n', '  cni: flannel\n  imageRepository: registry.example.com/k8s\n')).inventory!;
    return lintText({ path: 'kubeadm-config.yaml', text: KUBEADM }, { inventory: mirrored });
  },
  'kubeadm/node-name': () => lint('kubeadm-config.yaml', edit(KUBEADM, /nodeRegistration:\n(\s+)name: \S+/, 'nodeRegistration:\n$1name: nobody')),
  'kubeadm/unsafe-skip-ca': () => lint('kubeadm-join.yaml', 'apiVersion: kubeadm.k8s.io/v1beta3\nkind: JoinConfiguration\ndiscovery:\n  bootstrapToken:\n    apiServerEndpoint: 10.3.60.100:6443\n    token: abcdef.0123456789abcdef\n    unsafeSkipCAVerification: true\n'),
  'keepalived/no-instance': () => lint('keepalived.conf', 'global_defs {\n  router_id lb1\n}\nvrrp_script chk {\n  script "/usr/bin/true"\n}\n'),
  'ansible/empty': () => ansible('', 'hosts.yaml'),
  'ansible/no-hosts': () => ansible('[all:vars]\nkube_version=v1.30.14\n'),
  'ansible/unsupported-group': () => ansible(edit(ANSIBLE, '[calico_rr]\n', '[calico_rr]\nlabs-k8s-w02\n')),
  'ansible/outside-k8s-cluster': () => ansible(edit(ANSIBLE, '[k8s_cluster:children]\nkube_control_plane\nkube_node\n', '[k8s_cluster:children]\nkube_control_plane\n')),
  'ansible/host-name': () => ansible(edit(ANSIBLE, '[kube_node]\nlabs-k8s-w[01:02]\n', '[kube_node]\nlabs-k8s-w[01:02]\nw03- ansible_host=10.3.60.56\n')),
  'ansible/var-type': () => ansible(edit(ANSIBLE, 'loadbalancer_apiserver={"address": "10.3.60.100", "port": 6443}', 'loadbalancer_apiserver=10.3.60.100')),
  'ansible/template': () => ansible(edit(ANSIBLE, 'kube_version=v1.30.14', 'kube_version="{{ version }}"')),
  'ansible/address': () => ansible(edit(ANSIBLE, 'labs-k8s-w02 ansible_host=10.3.60.55', 'labs-k8s-w02 ansible_host=10.3.60.55 ip=not-an-address')),
  'ansible/bastion': () => ansible(`${ANSIBLE}\n[bastion]\nb1 ansible_host=10.3.60.60\nb2 ansible_host=10.3.60.61\n`),
  'ansible/vrrp': () => ansible(edit(ANSIBLE, 'keepalived_interface=ens192', 'keepalived_interface=ens192 keepalived_state=LEADER')),
  'ansible/endpoint': () => ansible(edit(ANSIBLE, 'loadbalancer_apiserver={"address": "10.3.60.100", "port": 6443}', 'apiserver_loadbalancer_domain_name=a]b')),
  'ansible/endpoint-is-node': () => ansible(edit(ANSIBLE, '"address": "10.3.60.100"', '"address": "10.3.60.51"')),
  'ansible/cidr': () => ansible(edit(ANSIBLE, 'kube_pods_subnet=10.244.0.0/16', 'kube_pods_subnet=10.244.0.0')),
};
