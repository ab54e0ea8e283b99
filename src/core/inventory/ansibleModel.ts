/**
 * Ansible's own inventory model as the importer reads it — groups with children and variables, hosts, each
 * with its position — the Kubespray group names the importer maps, and the reporter of its findings.
 */
import { ZERO_RANGE, type Finding, type Range, type Severity } from '../findings';
import type { AnsibleRuleName } from './ansibleRules';

// ---------------------------------------------------------------------------------------------
// Group names

export const CONTROL_PLANE_GROUPS = ['kube_control_plane', 'kube-master', 'kube_master'];
export const WORKER_GROUPS = ['kube_node', 'kube-node'];
export const ETCD_GROUPS = ['etcd'];
export const CLUSTER_GROUPS = ['k8s_cluster', 'k8s-cluster'];
export const LOADBALANCER_GROUPS = ['haproxy', 'loadbalancer', 'loadbalancers', 'lb'];
export const BASTION_GROUPS = ['bastion'];
export const LEGACY_GROUPS: Record<string, string> = {
  'kube-master': 'kube_control_plane',
  kube_master: 'kube_control_plane',
  'kube-node': 'kube_node',
  'k8s-cluster': 'k8s_cluster',
};

/** Variables this importer reads; any other variable set in the inventory file is reported once as ignored. */
export const USED_VARS = new Set([
  'ansible_host', 'ansible_ssh_host', 'ip', 'access_ip', 'ansible_user', 'ansible_ssh_user', 'remote_user',
  'ansible_port', 'ansible_ssh_port', 'ansible_ssh_private_key_file', 'ansible_private_key_file',
  'ansible_ssh_common_args', 'ansible_ssh_extra_args',
  'loadbalancer_apiserver', 'loadbalancer_apiserver_port', 'apiserver_loadbalancer_domain_name', 'kube_apiserver_port',
  'kube_vip_address', 'kube_pods_subnet', 'kube_service_addresses', 'kube_version', 'kube_network_plugin', 'node_labels',
  'keepalived_interface', 'vrrp_interface', 'keepalived_state', 'vrrp_state', 'keepalived_priority', 'vrrp_priority',
  'keepalived_router_id', 'keepalived_virtual_router_id', 'virtual_router_id', 'vrrp_router_id',
]);
/** Variables that are common in Kubespray inventories and harmless to drop: no finding. */
export const QUIET_VARS = new Set([
  'etcd_member_name', 'ansible_become', 'ansible_become_user', 'ansible_become_method', 'ansible_python_interpreter',
  'ansible_connection', 'ansible_password', 'ansible_become_password', 'ansible_ssh_pass', 'cluster_name',
]);

// ---------------------------------------------------------------------------------------------
// Ansible's own model, with positions

export interface Loc {
  file: string;
  range: Range;
}

export interface Var {
  key: string;
  value: unknown;
  loc: Loc;
  /** Set in the inventory file itself (not a group_vars file): unknown ones are reported. */
  inInventory: boolean;
}

export interface Group {
  name: string;
  hosts: string[];
  children: string[];
  childLocs: Map<string, Loc>;
  vars: Map<string, Var>;
  /** group_vars files, applied after the inventory's own vars of the same group. */
  fileVars: Map<string, Var>;
  loc?: Loc;
}

export interface AHost {
  name: string;
  loc: Loc;
  vars: Map<string, Var>;
}

export class Model {
  readonly groups = new Map<string, Group>();
  readonly hosts = new Map<string, AHost>();

  constructor() {
    this.group('all');
    this.group('ungrouped');
  }

  group(name: string, loc?: Loc): Group {
    let g = this.groups.get(name);
    if (!g) {
      g = { name, hosts: [], children: [], childLocs: new Map(), vars: new Map(), fileVars: new Map() };
      this.groups.set(name, g);
    }
    if (loc && !g.loc) g.loc = loc;
    return g;
  }

  host(name: string, loc: Loc): AHost {
    let h = this.hosts.get(name);
    if (!h) {
      h = { name, loc, vars: new Map() };
      this.hosts.set(name, h);
    }
    return h;
  }

  addHostToGroup(group: string, host: string): void {
    const g = this.group(group);
    if (!g.hosts.includes(host)) g.hosts.push(host);
  }

  addChild(parent: string, child: string, loc: Loc): void {
    const g = this.group(parent);
    this.group(child);
    if (!g.children.includes(child)) {
      g.children.push(child);
      g.childLocs.set(child, loc);
    }
  }
}

export class Reporter {
  readonly findings: Finding[] = [];

  add(rule: AnsibleRuleName, severity: Severity, message: string, loc: Loc | undefined, fallbackFile: string, why?: string): void {
    this.findings.push({
      rule: `ansible/${rule}`,
      severity,
      message,
      range: loc?.range ?? ZERO_RANGE,
      file: loc?.file ?? fallbackFile,
      ...(why ? { why } : {}),
    });
  }
}
