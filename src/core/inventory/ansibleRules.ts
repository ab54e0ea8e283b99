/**
 * Every rule the Ansible (Kubespray) inventory importer reports, with its severity and why — the table hovers,
 * SARIF and the Diagnostics webview read. A rule reported at another severity in one case says so at the call.
 */
import type { Severity } from '../findings';
import { ruleTable, type RuleRow } from '../lint/ruleTable';

const DOCS = 'https://docs.ansible.com/ansible/latest/inventory_guide/intro_inventory.html';
const KUBESPRAY = 'https://github.com/kubernetes-sigs/kubespray/blob/master/docs/ansible/inventory.md';

const r = <const N extends string>(id: N, severity: Severity, title: string, why: string, docs = DOCS): RuleRow<`ansible/${N}`> => ({ id: `ansible/${id}`, severity, title, why, docs });

export const ANSIBLE = ruleTable([
  // reading the file (INI or YAML) and group_vars
  r('ini-section', 'error', 'INI sections are [group], [group:vars] or [group:children].', 'Ansible refuses any other section type, so the hosts under it would not be in the inventory Ansible sees either.'),
  r('ini-syntax', 'error', 'INI lines are a host with key=value variables, a child group or a variable.', 'A line the importer cannot read would leave a host or variable out of the imported inventory.'),
  r('host-range', 'error', 'Host ranges like node[01:03] are well formed and small.', 'A malformed or huge range cannot be expanded into the hosts Ansible would see.'),
  r('yaml-syntax', 'error', 'A YAML inventory or group_vars file is valid YAML.', 'Nothing can be imported from a file that does not parse.'),
  r('yaml-structure', 'error', 'A YAML inventory is groups of hosts, children and vars, as Ansible reads it.', 'Parts Ansible would reject or ignore are not imported, so the result would differ from what Kubespray deploys.'),
  r('empty', 'error', 'The inventory has content.', 'An empty file has no hosts to import.'),
  // the groups and hosts
  r('no-hosts', 'error', 'The inventory defines hosts.', 'Without hosts there is no cluster to import.', KUBESPRAY),
  r('no-control-plane', 'error', 'Some host is in kube_control_plane.', 'kubeadm init runs on the first control-plane host; without one the imported inventory cannot be brought up.', KUBESPRAY),
  r('no-role', 'warning', 'Every host is in a Kubernetes group.', 'A host in no kube_control_plane, kube_node, etcd or load-balancer group has no role to set up, so it is left out.', KUBESPRAY),
  r('children-cycle', 'error', 'Group children form no cycle.', 'Ansible refuses a group that is its own ancestor; the link is ignored so the import can go on.'),
  r('legacy-group', 'info', 'Legacy Kubespray group names are read as their current names.', 'kube-master and kube-node were renamed; the importer reads them the way current Kubespray does.', KUBESPRAY),
  r('unsupported-group', 'info', 'Groups without a counterpart here are named.', 'Hosts only in such a group (calico_rr) get nothing from it in this tool.', KUBESPRAY),
  r('external-etcd', 'warning', 'etcd runs on the control-plane nodes.', 'This tool builds stacked etcd on the control-plane nodes; an etcd-only host is not set up as one.', KUBESPRAY),
  r('stacked-etcd', 'info', 'Every control-plane node runs an etcd member.', 'With stacked etcd each control-plane node is a member, also those Kubespray had outside the etcd group.', KUBESPRAY),
  r('outside-k8s-cluster', 'warning', 'Imported hosts are in k8s_cluster.', 'Kubespray sets up only hosts in k8s_cluster; importing others changes which machines the cluster has.', KUBESPRAY),
  r('host-renamed', 'warning', 'Host names are lowercase DNS names.', 'The host name becomes the Kubernetes Node name, which must be a lowercase DNS-1123 name.'),
  r('host-name', 'error', 'Host names can become Kubernetes node names.', 'A host whose name cannot be a Node name cannot join the cluster, so it is not imported.'),
  // the variables
  r('var-type', 'warning', 'Variables have the type the importer reads.', 'A list or mapping where a single value is expected cannot be placed in inventory.yaml; it is ignored.'),
  r('template', 'warning', 'Imported values are plain, not Jinja templates.', 'The importer cannot evaluate a template, so the value it stands for has to be set by hand.'),
  r('ignored-var', 'info', 'Variables without a counterpart are named.', 'inventory.yaml has no field for them, so their effect in Kubespray is not reproduced.'),
  r('address', 'warning', 'Host addresses are IPv4 addresses.', 'The inventory takes canonical IPv4 addresses only; another value is ignored.'),
  r('no-address', 'error', 'Every host has an IPv4 address (ip or ansible_host).', 'A host without an address cannot be reached or put into the configs, so it is not imported.'),
  r('ssh-address', 'warning', 'The SSH address is the cluster address.', 'This tool connects to the cluster address; when Ansible used another one, the host may be unreachable from here.'),
  r('port', 'error', 'Ports are TCP ports (1–65535).', 'A port outside 1–65535 cannot be connected to, so the default is used instead.'),
  r('proxy-command', 'warning', 'ProxyCommand is of the form `ssh -W %h:%p [user@]bastion`.', 'Only that form maps onto ssh.proxyJump; another command has to be translated by hand.'),
  r('bastion', 'warning', 'There is at most one bastion.', 'ssh.proxyJump takes one jump host for all hosts; the other bastions are not used.', KUBESPRAY),
  r('no-vrrp', 'info', 'Load balancers have their VRRP settings.', 'Keepalived needs the interface, state and priority of each balancer before bring-up.'),
  r('vrrp', 'warning', 'VRRP state, priority and router id are in Keepalived\'s ranges.', 'Keepalived refuses other values; the importer uses a safe one instead and says which.'),
  r('version', 'warning', 'kube_version is a full version like v1.30.14.', 'kubeadm, kubelet and kubectl are pinned to an exact version; another value is ignored.', KUBESPRAY),
  r('no-version', 'warning', 'The inventory gives kube_version.', 'Without it cluster.kubernetesVersion must be set by hand before bring-up.', KUBESPRAY),
  r('endpoint', 'warning', 'The API server endpoint is host:port.', 'controlPlaneEndpoint goes into kubeadm-config.yaml, haproxy.cfg and keepalived.conf; another form is not imported.', KUBESPRAY),
  r('no-endpoint', 'warning', 'The inventory names the API server load balancer.', 'Without it cluster.controlPlaneEndpoint must be set to the VIP by hand before bring-up.', KUBESPRAY),
  r('endpoint-is-node', 'warning', 'The API server endpoint is the VIP, not a control-plane node.', 'If the endpoint is a node address, the whole cluster stays tied to that node and loses its API when the node goes down.', KUBESPRAY),
  r('cidr', 'warning', 'Pod and service networks are IPv4 CIDRs.', 'kubeadm needs a CIDR; another value is ignored and the default is used.', KUBESPRAY),
  r('cni', 'warning', 'kube_network_plugin is a supported network plugin.', 'The plan applies only the manifests of the plugins it supports; another is replaced by the default.', KUBESPRAY),
]);

export const ANSIBLE_RULES = ANSIBLE.rules;
export type AnsibleRuleId = Parameters<typeof ANSIBLE.finding>[0];
export type AnsibleRuleName = AnsibleRuleId extends `ansible/${infer N}` ? N : never;
