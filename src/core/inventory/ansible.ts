/**
 * Imports an Ansible or Kubespray inventory (INI or YAML) into the inventory model.
 *
 * The importer mirrors what Ansible itself would build — groups, `:children`, `:vars`, host ranges,
 * variable precedence by group depth — and then maps Kubespray's groups and variables onto the model:
 *   kube_control_plane (kube-master) → control-plane, kube_node (kube-node) → worker,
 *   haproxy / loadbalancer(s) / lb → loadbalancer, etcd outside the control plane → etcd (warned),
 *   bastion → ssh.proxyJump for every other host.
 * It never throws on bad input: everything it cannot use becomes a finding with a position.
 *
 * Stages: ./ansibleIni.ts or ./ansibleYaml.ts read the text into Ansible's model (./ansibleModel.ts),
 * ./ansibleGroups.ts resolves the group tree, ./ansibleImporter.ts maps it onto ours; the rules are in
 * ./ansibleRules.ts.
 */
import type { Finding } from '../findings';
import type { Cni, Inventory } from './types';
import { Importer } from './ansibleImporter';
import { readIni } from './ansibleIni';
import { Model, Reporter } from './ansibleModel';
import { readGroupVars, readYaml } from './ansibleYaml';

export { expandHostPattern, shellSplit } from './ansibleIni';
export { ANSIBLE_IMPORTED_VARS, jumpFromProxyCommand } from './ansibleImporter';

export interface AnsibleGroupVarsFile {
  /** The group the file belongs to (`group_vars/<group>.yml` or `group_vars/<group>/*.yml`). */
  group: string;
  fileName: string;
  text: string;
}

export interface AnsibleImportOptions {
  /** Force the format; by default it is chosen from the file name, then from the content. */
  format?: 'ini' | 'yaml';
  /** Cluster name; by default the inventory's directory name (Kubespray's `inventory/<name>/hosts.yaml`). */
  clusterName?: string;
  /** Used when the inventory sets no `kube_version`. */
  kubernetesVersion?: string;
  /** Used instead of `loadbalancer_apiserver` / `apiserver_loadbalancer_domain_name` / `kube_vip_address`. */
  controlPlaneEndpoint?: string;
  /** Used when the inventory sets no `kube_network_plugin`. Default flannel. */
  cni?: Cni;
  /** Keepalived interface of the load balancers when no host sets `keepalived_interface`. */
  vrrpInterface?: string;
  /** Kubespray's group_vars files (group_vars/all/all.yml, group_vars/k8s_cluster/k8s-cluster.yml, ...). */
  groupVars?: AnsibleGroupVarsFile[];
}

/**
 * Kubespray's group_vars files that hold the variables the importer maps, relative to the inventory's directory.
 * Callers read the ones that exist and pass them as `groupVars` (the core touches no file system).
 */
export const KUBESPRAY_GROUP_VARS: readonly { group: string; file: string }[] = [
  { group: 'all', file: 'group_vars/all.yml' },
  { group: 'all', file: 'group_vars/all.yaml' },
  { group: 'all', file: 'group_vars/all/all.yml' },
  { group: 'all', file: 'group_vars/all/all.yaml' },
  { group: 'k8s_cluster', file: 'group_vars/k8s_cluster.yml' },
  { group: 'k8s_cluster', file: 'group_vars/k8s_cluster/k8s-cluster.yml' },
  { group: 'k8s_cluster', file: 'group_vars/k8s_cluster/k8s_cluster.yml' },
  { group: 'k8s-cluster', file: 'group_vars/k8s-cluster/k8s-cluster.yml' },
];

export type ImportMissing = 'kubernetesVersion' | 'controlPlaneEndpoint';

export interface AnsibleImportResult {
  /**
   * The imported inventory. Cluster fields the Ansible inventory does not know are filled from the options
   * or the tool's defaults; `kubernetesVersion` and `controlPlaneEndpoint` stay empty strings when unknown
   * (listed in `missing`, with a warning) so a caller can ask for them.
   */
  inventory: Inventory;
  findings: Finding[];
  missing: ImportMissing[];
}

// ---------------------------------------------------------------------------------------------
// Entry point

export function importAnsibleInventory(text: string, fileName: string, options: AnsibleImportOptions = {}): AnsibleImportResult {
  const model = new Model();
  const rep = new Reporter();
  const format = options.format ?? detectFormat(text, fileName);
  if (format === 'yaml') readYaml(text, fileName, model, rep);
  else readIni(text, fileName, model, rep);
  for (const gv of options.groupVars ?? []) readGroupVars(gv, model, rep);
  return new Importer(model, rep, fileName, options).run();
}

function detectFormat(text: string, fileName: string): 'ini' | 'yaml' {
  if (/\.(ya?ml|json)$/i.test(fileName)) return 'yaml';
  if (/\.(ini|cfg)$/i.test(fileName)) return 'ini';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#') || line.startsWith(';') || line === '---') continue;
    if (line.startsWith('[') || /^\S+\s+\S+=/.test(line) || !line.includes(':')) return 'ini';
    return /^[^\s:]+:(\s|$)/.test(line) || line.startsWith('{') ? 'yaml' : 'ini';
  }
  return 'ini';
}
