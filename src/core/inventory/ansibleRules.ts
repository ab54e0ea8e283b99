/**
 * Every rule the Ansible (Kubespray) inventory importer reports, with its severity and why — the table hovers,
 * SARIF and the Diagnostics webview read. A rule reported at another severity in one case says so at the call.
 */
import type { Severity } from '../findings';
import { ruleTable, type RuleRow } from '../lint/ruleTable';
import { msg, type Message } from '../l10n';

const DOCS = 'https://docs.ansible.com/ansible/latest/inventory_guide/intro_inventory.html';
const KUBESPRAY = 'https://github.com/kubernetes-sigs/kubespray/blob/master/docs/ansible/inventory.md';

const r = <const N extends string>(id: N, severity: Severity, title: Message, why: Message, docs = DOCS): RuleRow<`ansible/${N}`> => ({ id: `ansible/${id}`, severity, title, why, docs });

export const ANSIBLE = ruleTable([
  // reading the file (INI or YAML) and group_vars
  r('ini-section', 'error', msg('INI sections are [group], [group:vars] or [group:children].'), msg('Ansible refuses any other section type, so the hosts under it would not be in the inventory Ansible sees either.')),
  r('ini-syntax', 'error', msg('INI lines are a host with key=value variables, a child group or a variable.'), msg('A line the importer cannot read would leave a host or variable out of the imported inventory.')),
  r('host-range', 'error', msg('Host ranges like node[01:03] are well formed and small.'), msg('A malformed or huge range cannot be expanded into the hosts Ansible would see.')),
  r('yaml-syntax', 'error', msg('A YAML inventory or group_vars file is valid YAML.'), msg('Nothing can be imported from a file that does not parse.')),
  r('yaml-structure', 'error', msg('A YAML inventory is groups of hosts, children and vars, as Ansible reads it.'), msg('Parts Ansible would reject or ignore are not imported, so the result would differ from what Kubespray deploys.')),
  r('empty', 'error', msg('The inventory has content.'), msg('An empty file has no hosts to import.')),
  // the groups and hosts
  r('no-hosts', 'error', msg('The inventory defines hosts.'), msg('Without hosts there is no cluster to import.'), KUBESPRAY),
  r('no-control-plane', 'error', msg('Some host is in kube_control_plane.'), msg('kubeadm init runs on the first control-plane host; without one the imported inventory cannot be brought up.'), KUBESPRAY),
  r('no-role', 'warning', msg('Every host is in a Kubernetes group.'), msg('A host in no kube_control_plane, kube_node, etcd or load-balancer group has no role to set up, so it is left out.'), KUBESPRAY),
  r('children-cycle', 'error', msg('Group children form no cycle.'), msg('Ansible refuses a group that is its own ancestor; the link is ignored so the import can go on.')),
  r('legacy-group', 'info', msg('Legacy Kubespray group names are read as their current names.'), msg('kube-master and kube-node were renamed; the importer reads them the way current Kubespray does.'), KUBESPRAY),
  r('unsupported-group', 'info', msg('Groups without a counterpart here are named.'), msg('Hosts only in such a group (calico_rr) get nothing from it in this tool.'), KUBESPRAY),
  r('external-etcd', 'warning', msg('etcd runs on the control-plane nodes.'), msg('This tool builds stacked etcd on the control-plane nodes; an etcd-only host is not set up as one.'), KUBESPRAY),
  r('stacked-etcd', 'info', msg('Every control-plane node runs an etcd member.'), msg('With stacked etcd each control-plane node is a member, also those Kubespray had outside the etcd group.'), KUBESPRAY),
  r('outside-k8s-cluster', 'warning', msg('Imported hosts are in k8s_cluster.'), msg('Kubespray sets up only hosts in k8s_cluster; importing others changes which machines the cluster has.'), KUBESPRAY),
  r('host-renamed', 'warning', msg('Host names are lowercase DNS names.'), msg('The host name becomes the Kubernetes Node name, which must be a lowercase DNS-1123 name.')),
  r('host-name', 'error', msg('Host names can become Kubernetes node names.'), msg('A host whose name cannot be a Node name cannot join the cluster, so it is not imported.')),
  // the variables
  r('var-type', 'warning', msg('Variables have the type the importer reads.'), msg('A list or mapping where a single value is expected cannot be placed in inventory.yaml; it is ignored.')),
  r('template', 'warning', msg('Imported values are plain, not Jinja templates.'), msg('The importer cannot evaluate a template, so the value it stands for has to be set by hand.')),
  r('ignored-var', 'info', msg('Variables without a counterpart are named.'), msg('inventory.yaml has no field for them, so their effect in Kubespray is not reproduced.')),
  r('address', 'warning', msg('Host addresses are IPv4 addresses.'), msg('The inventory takes canonical IPv4 addresses only; another value is ignored.')),
  r('no-address', 'error', msg('Every host has an IPv4 address (ip or ansible_host).'), msg('A host without an address cannot be reached or put into the configs, so it is not imported.')),
  r('ssh-address', 'warning', msg('The SSH address is the cluster address.'), msg('This tool connects to the cluster address; when Ansible used another one, the host may be unreachable from here.')),
  r('port', 'error', msg('Ports are TCP ports (1–65535).'), msg('A port outside 1–65535 cannot be connected to, so the default is used instead.')),
  r('proxy-command', 'warning', msg('ProxyCommand is of the form `ssh -W %h:%p [user@]bastion`.'), msg('Only that form maps onto ssh.proxyJump; another command has to be translated by hand.')),
  r('bastion', 'warning', msg('There is at most one bastion.'), msg('ssh.proxyJump takes one jump host for all hosts; the other bastions are not used.'), KUBESPRAY),
  r('no-vrrp', 'info', msg('Load balancers have their VRRP settings.'), msg('Keepalived needs the interface, state and priority of each balancer before bring-up.')),
  r('vrrp', 'warning', msg("VRRP state, priority and router id are in Keepalived's ranges."), msg('Keepalived refuses other values; the importer uses a safe one instead and says which.')),
  r('version', 'warning', msg('kube_version is a full version like v1.30.14.'), msg('kubeadm, kubelet and kubectl are pinned to an exact version; another value is ignored.'), KUBESPRAY),
  r('no-version', 'warning', msg('The inventory gives kube_version.'), msg('Without it cluster.kubernetesVersion must be set by hand before bring-up.'), KUBESPRAY),
  r('endpoint', 'warning', msg('The API server endpoint is host:port.'), msg('controlPlaneEndpoint goes into kubeadm-config.yaml, haproxy.cfg and keepalived.conf; another form is not imported.'), KUBESPRAY),
  r('no-endpoint', 'warning', msg('The inventory names the API server load balancer.'), msg('Without it cluster.controlPlaneEndpoint must be set to the VIP by hand before bring-up.'), KUBESPRAY),
  r('endpoint-is-node', 'warning', msg('The API server endpoint is the VIP, not a control-plane node.'), msg('If the endpoint is a node address, the whole cluster stays tied to that node and loses its API when the node goes down.'), KUBESPRAY),
  r('cidr', 'warning', msg('Pod and service networks are IPv4 CIDRs.'), msg('kubeadm needs a CIDR; another value is ignored and the default is used.'), KUBESPRAY),
  r('cni', 'warning', msg('kube_network_plugin is a supported network plugin.'), msg('The plan applies only the manifests of the plugins it supports; another is replaced by the default.'), KUBESPRAY),
]);

export const ANSIBLE_RULES = ANSIBLE.rules;
export type AnsibleRuleId = Parameters<typeof ANSIBLE.finding>[0];
export type AnsibleRuleName = AnsibleRuleId extends `ansible/${infer N}` ? N : never;
