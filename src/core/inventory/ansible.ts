/**
 * Imports an Ansible or Kubespray inventory (INI or YAML) into the inventory model.
 *
 * The importer mirrors what Ansible itself would build — groups, `:children`, `:vars`, host ranges,
 * variable precedence by group depth — and then maps Kubespray's groups and variables onto the model:
 *   kube_control_plane (kube-master) → control-plane, kube_node (kube-node) → worker,
 *   haproxy / loadbalancer(s) / lb → loadbalancer, etcd outside the control plane → etcd (warned),
 *   bastion → ssh.proxyJump for every other host.
 * It never throws on bad input: everything it cannot use becomes a finding with a position.
 */
import { isMap, isScalar, parseDocument, type Node, type Pair, type YAMLMap } from 'yaml';
import { LineIndex, ZERO_RANGE, type Finding, type Range, type Severity } from '../findings';
import { isIPv4, parseCidr } from '../net';
import { CNIS, ROLES, splitEndpoint, type Cni, type HostSpec, type Inventory, type Role, type SshSettings, type VrrpSettings } from './types';
import type { AnsibleRuleName } from './ansibleRules';

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
// Group names

const CONTROL_PLANE_GROUPS = ['kube_control_plane', 'kube-master', 'kube_master'];
const WORKER_GROUPS = ['kube_node', 'kube-node'];
const ETCD_GROUPS = ['etcd'];
const CLUSTER_GROUPS = ['k8s_cluster', 'k8s-cluster'];
const LOADBALANCER_GROUPS = ['haproxy', 'loadbalancer', 'loadbalancers', 'lb'];
const BASTION_GROUPS = ['bastion'];
const LEGACY_GROUPS: Record<string, string> = {
  'kube-master': 'kube_control_plane',
  kube_master: 'kube_control_plane',
  'kube-node': 'kube_node',
  'k8s-cluster': 'k8s_cluster',
};

/** Variables this importer reads; any other variable set in the inventory file is reported once as ignored. */
const USED_VARS = new Set([
  'ansible_host', 'ansible_ssh_host', 'ip', 'access_ip', 'ansible_user', 'ansible_ssh_user', 'remote_user',
  'ansible_port', 'ansible_ssh_port', 'ansible_ssh_private_key_file', 'ansible_private_key_file',
  'ansible_ssh_common_args', 'ansible_ssh_extra_args',
  'loadbalancer_apiserver', 'loadbalancer_apiserver_port', 'apiserver_loadbalancer_domain_name', 'kube_apiserver_port',
  'kube_vip_address', 'kube_pods_subnet', 'kube_service_addresses', 'kube_version', 'kube_network_plugin', 'node_labels',
  'keepalived_interface', 'vrrp_interface', 'keepalived_state', 'vrrp_state', 'keepalived_priority', 'vrrp_priority',
  'keepalived_router_id', 'keepalived_virtual_router_id', 'virtual_router_id', 'vrrp_router_id',
]);
/** Variables that are common in Kubespray inventories and harmless to drop: no finding. */
const QUIET_VARS = new Set([
  'etcd_member_name', 'ansible_become', 'ansible_become_user', 'ansible_become_method', 'ansible_python_interpreter',
  'ansible_connection', 'ansible_password', 'ansible_become_password', 'ansible_ssh_pass', 'cluster_name',
]);

// ---------------------------------------------------------------------------------------------
// Ansible's own model, with positions

interface Loc {
  file: string;
  range: Range;
}

interface Var {
  key: string;
  value: unknown;
  loc: Loc;
  /** Set in the inventory file itself (not a group_vars file): unknown ones are reported. */
  inInventory: boolean;
}

interface Group {
  name: string;
  hosts: string[];
  children: string[];
  childLocs: Map<string, Loc>;
  vars: Map<string, Var>;
  /** group_vars files, applied after the inventory's own vars of the same group. */
  fileVars: Map<string, Var>;
  loc?: Loc;
}

interface AHost {
  name: string;
  loc: Loc;
  vars: Map<string, Var>;
}

class Model {
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

class Reporter {
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

// ---------------------------------------------------------------------------------------------
// INI

interface Token {
  text: string;
  start: number;
  end: number;
}

/** POSIX shell-like splitting as Ansible does on host lines (shlex, comments=True), with positions. */
export function shellSplit(line: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < line.length) {
    while (i < line.length && /\s/.test(line[i]!)) i++;
    if (i >= line.length || line[i] === '#') break;
    const start = i;
    let text = '';
    while (i < line.length && !/\s/.test(line[i]!)) {
      const c = line[i]!;
      if (c === '#') break;
      if (c === "'") {
        const close = line.indexOf("'", i + 1);
        const end = close < 0 ? line.length : close;
        text += line.slice(i + 1, end);
        i = end + 1;
      } else if (c === '"') {
        i++;
        while (i < line.length && line[i] !== '"') {
          if (line[i] === '\\' && i + 1 < line.length && '"\\$`'.includes(line[i + 1]!)) i++;
          text += line[i]!;
          i++;
        }
        i++;
      } else if (c === '\\' && i + 1 < line.length) {
        text += line[i + 1]!;
        i += 2;
      } else {
        text += c;
        i++;
      }
    }
    tokens.push({ text, start, end: Math.min(i, line.length) });
    if (line[i] === '#') break;
  }
  return tokens;
}

/** Ansible's `_parse_value`: Python literals become values, everything else stays a string. */
function iniValue(raw: string): unknown {
  const v = raw.trim();
  if (v.length >= 2 && (v[0] === '"' || v[0] === "'") && v[v.length - 1] === v[0]) return v.slice(1, -1);
  if (/^[-+]?\d+$/.test(v)) return Number(v);
  if (/^[-+]?\d+\.\d+$/.test(v)) return Number(v);
  if (v === 'True') return true;
  if (v === 'False') return false;
  if (v === 'None') return null;
  if (/^[[{]/.test(v)) {
    const doc = parseDocument(v.replace(/\bTrue\b/g, 'true').replace(/\bFalse\b/g, 'false').replace(/\bNone\b/g, 'null'));
    if (!doc.errors.length) return doc.toJSON();
  }
  return v;
}

function readIni(text: string, file: string, model: Model, rep: Reporter): void {
  const lines = text.split('\n');
  let group = 'ungrouped';
  let kind: 'hosts' | 'vars' | 'children' = 'hosts';
  lines.forEach((rawLine, lineNo) => {
    const line = rawLine.replace(/\r$/, '');
    const trimmed = line.trim();
    if (!trimmed || trimmed.startsWith('#') || trimmed.startsWith(';')) return;
    const indent = line.length - line.trimStart().length;
    const loc = (start: number, end: number): Loc => ({ file, range: { start: { line: lineNo, character: start }, end: { line: lineNo, character: end } } });
    const lineLoc = loc(indent, indent + trimmed.length);

    const header = /^\[([^\]]+)\]\s*(?:[#;].*)?$/.exec(trimmed);
    if (header) {
      const [name, type, ...extra] = header[1]!.trim().split(':');
      if (!name || extra.length || (type !== undefined && type !== 'vars' && type !== 'children')) {
        rep.add('ini-section', 'error', `Section [${header[1]}] has an unknown type; use [group], [group:vars] or [group:children].`, lineLoc, file);
        group = '';
        return;
      }
      group = name;
      kind = type === 'vars' ? 'vars' : type === 'children' ? 'children' : 'hosts';
      model.group(group, loc(indent + 1, indent + 1 + name.length));
      return;
    }
    if (!group) return; // inside a broken section: already reported

    if (kind === 'vars') {
      const content = stripIniComment(line);
      const eq = content.indexOf('=');
      if (eq < 0) {
        rep.add('ini-syntax', 'error', `Expected key=value in [${group}:vars], got "${content.trim()}".`, lineLoc, file);
        return;
      }
      const key = content.slice(0, eq).trim();
      const value = iniValue(content.slice(eq + 1));
      const g = model.group(group);
      g.vars.set(key, { key, value, loc: loc(indent, content.trimEnd().length), inInventory: true });
      return;
    }

    const tokens = shellSplit(line);
    if (!tokens.length) return;
    const first = tokens[0]!;
    if (kind === 'children') {
      if (tokens.length > 1) rep.add('ini-syntax', 'warning', `Only a group name is expected in [${group}:children]; the rest of the line is ignored.`, lineLoc, file);
      model.addChild(group, first.text, loc(first.start, first.end));
      return;
    }

    // A host line: pattern[:port] key=value ...
    const patternLoc = loc(first.start, first.end);
    const m = /^((?:[^:[\]]|\[[^\]]*\])+)(?::([^:[\]]*))?$/.exec(first.text);
    if (!m) {
      rep.add('ini-syntax', 'error', `"${first.text}" is not a host name or range.`, patternLoc, file);
      return;
    }
    const names = expandHostPattern(m[1]!, patternLoc, rep);
    const vars: Var[] = [];
    if (m[2] !== undefined) vars.push({ key: 'ansible_port', value: /^\d+$/.test(m[2]) ? Number(m[2]) : m[2], loc: patternLoc, inInventory: true });
    for (const t of tokens.slice(1)) {
      const eq = t.text.indexOf('=');
      if (eq <= 0) {
        rep.add('ini-syntax', 'error', `Expected key=value after the host name, got "${t.text}".`, loc(t.start, t.end), file);
        continue;
      }
      vars.push({ key: t.text.slice(0, eq), value: iniValue(t.text.slice(eq + 1)), loc: loc(t.start, t.end), inInventory: true });
    }
    for (const name of names) {
      const host = model.host(name, patternLoc);
      for (const v of vars) host.vars.set(v.key, v);
      model.addHostToGroup(group, name);
    }
  });
}

function stripIniComment(line: string): string {
  let quote = '';
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote) {
      if (c === quote) quote = '';
    } else if (c === '"' || c === "'") quote = c;
    else if ((c === '#' || c === ';') && (i === 0 || /\s/.test(line[i - 1]!))) return line.slice(0, i);
  }
  return line;
}

/** Expands `node[01:03]`, `web[a:c]`, `db[1:10:2]` like Ansible; a pattern without brackets is itself. */
export function expandHostPattern(pattern: string, loc: Loc | undefined, rep: Reporter | undefined): string[] {
  const m = /^(.*?)\[([^\]]+)\](.*)$/.exec(pattern);
  if (!m) return [pattern];
  const [, head, body, tail] = m as unknown as [string, string, string, string];
  const parts = body.split(':');
  const fail = (why: string): string[] => {
    rep?.add('host-range', 'error', `Host range "${pattern}": ${why}`, loc, loc?.file ?? '');
    return [];
  };
  if (parts.length < 2 || parts.length > 3) return fail('expected [start:end] or [start:end:step].');
  const [beg, end, stepText] = parts as [string, string, string?];
  const step = stepText === undefined ? 1 : Number(stepText);
  if (!Number.isInteger(step) || step < 1) return fail(`step "${stepText}" is not a positive integer.`);
  const out: string[] = [];
  if (/^\d+$/.test(beg) && /^\d+$/.test(end)) {
    const a = Number(beg);
    const b = Number(end);
    if (a > b) return fail('the start is after the end.');
    if (b - a > 10000) return fail('more than 10000 hosts.');
    const width = beg.length > 1 && beg.startsWith('0') ? beg.length : 0;
    for (let n = a; n <= b; n += step) out.push(String(n).padStart(width, '0'));
  } else if (/^[a-z]$/i.test(beg) && /^[a-z]$/i.test(end)) {
    const a = beg.charCodeAt(0);
    const b = end.charCodeAt(0);
    if (a > b) return fail('the start is after the end.');
    for (let c = a; c <= b; c += step) out.push(String.fromCharCode(c));
  } else {
    return fail('the bounds must be two numbers or two letters.');
  }
  return out.flatMap((mid) => expandHostPattern(`${head}${mid}${tail}`, loc, rep));
}

// ---------------------------------------------------------------------------------------------
// YAML

function nodeLoc(node: Node | null | undefined, lines: LineIndex, file: string, fallback?: Loc): Loc {
  const r = node?.range;
  if (!r) return fallback ?? { file, range: ZERO_RANGE };
  return { file, range: lines.range(r[0], r[1]) };
}

function yamlValue(node: Node | null | undefined): unknown {
  if (!node) return null;
  if (isScalar(node)) return node.value;
  return (node as { toJSON(): unknown }).toJSON();
}

function readYaml(text: string, file: string, model: Model, rep: Reporter): void {
  const lines = new LineIndex(text);
  const doc = parseDocument(text, { version: '1.1', prettyErrors: false });
  for (const err of doc.errors) {
    rep.add('yaml-syntax', 'error', err.message.split('\n')[0]!.trim(), { file, range: lines.range(err.pos[0], Math.max(err.pos[1], err.pos[0] + 1)) }, file);
  }
  const root = doc.contents as Node | null;
  if (root === null || (isScalar(root) && root.value === null)) {
    if (!doc.errors.length) rep.add('empty', 'error', 'The inventory is empty.', undefined, file);
    return;
  }
  if (!isMap(root)) {
    rep.add('yaml-structure', 'error', 'A YAML inventory is a mapping of groups, usually `all: { hosts, children, vars }`.', nodeLoc(root, lines, file), file);
    return;
  }
  const readGroup = (name: string, node: Node | null, keyLoc: Loc): void => {
    model.group(name, keyLoc);
    if (node === null || (isScalar(node) && node.value === null)) return;
    if (!isMap(node)) {
      rep.add('yaml-structure', 'error', `Group ${name} must be a mapping of hosts, children and vars.`, nodeLoc(node, lines, file, keyLoc), file);
      return;
    }
    for (const pair of node.items as Pair<Node, Node | null>[]) {
      const key = isScalar(pair.key) ? String(pair.key.value) : '';
      const kLoc = nodeLoc(pair.key, lines, file, keyLoc);
      const value = pair.value;
      const empty = value === null || (isScalar(value) && value.value === null);
      if (key === 'hosts') {
        if (empty) continue;
        if (!isMap(value)) {
          rep.add('yaml-structure', 'error', `${name}.hosts must be a mapping of host names (a list is not accepted by Ansible).`, nodeLoc(value, lines, file, kLoc), file);
          continue;
        }
        for (const hp of value.items as Pair<Node, Node | null>[]) {
          const pattern = isScalar(hp.key) ? String(hp.key.value) : '';
          const hLoc = nodeLoc(hp.key, lines, file, kLoc);
          const hv = hp.value;
          const vars: Var[] = [];
          if (hv !== null && !(isScalar(hv) && hv.value === null)) {
            if (isMap(hv)) vars.push(...mapVars(hv, lines, file, true));
            else rep.add('yaml-structure', 'error', `Host ${pattern} must map to its variables (or nothing).`, nodeLoc(hv, lines, file, hLoc), file);
          }
          for (const hostName of expandHostPattern(pattern, hLoc, rep)) {
            const host = model.host(hostName, hLoc);
            for (const v of vars) host.vars.set(v.key, v);
            model.addHostToGroup(name, hostName);
          }
        }
      } else if (key === 'children') {
        if (empty) continue;
        if (!isMap(value)) {
          rep.add('yaml-structure', 'error', `${name}.children must be a mapping of group names.`, nodeLoc(value, lines, file, kLoc), file);
          continue;
        }
        for (const cp of value.items as Pair<Node, Node | null>[]) {
          const child = isScalar(cp.key) ? String(cp.key.value) : '';
          const cLoc = nodeLoc(cp.key, lines, file, kLoc);
          model.addChild(name, child, cLoc);
          readGroup(child, cp.value, cLoc);
        }
      } else if (key === 'vars') {
        if (empty) continue;
        if (!isMap(value)) {
          rep.add('yaml-structure', 'error', `${name}.vars must be a mapping.`, nodeLoc(value, lines, file, kLoc), file);
          continue;
        }
        const g = model.group(name);
        for (const v of mapVars(value, lines, file, true)) g.vars.set(v.key, v);
      } else {
        rep.add('yaml-structure', 'warning', `Unexpected key "${key}" in group ${name}: Ansible only reads hosts, children and vars.`, kLoc, file);
      }
    }
  };
  for (const pair of root.items as Pair<Node, Node | null>[]) {
    const name = isScalar(pair.key) ? String(pair.key.value) : '';
    const kLoc = nodeLoc(pair.key, lines, file);
    if (name !== 'all') model.addChild('all', name, kLoc);
    readGroup(name, pair.value, kLoc);
  }
}

function mapVars(map: YAMLMap, lines: LineIndex, file: string, inInventory: boolean): Var[] {
  const out: Var[] = [];
  for (const pair of map.items as Pair<Node, Node | null>[]) {
    if (!isScalar(pair.key)) continue;
    const key = String(pair.key.value);
    const keyLoc = nodeLoc(pair.key, lines, file);
    out.push({ key, value: yamlValue(pair.value), loc: pair.value ? nodeLoc(pair.value, lines, file, keyLoc) : keyLoc, inInventory });
  }
  return out;
}

function readGroupVars(gv: AnsibleGroupVarsFile, model: Model, rep: Reporter): void {
  const lines = new LineIndex(gv.text);
  const doc = parseDocument(gv.text, { version: '1.1', prettyErrors: false });
  for (const err of doc.errors) {
    rep.add('yaml-syntax', 'error', err.message.split('\n')[0]!.trim(), { file: gv.fileName, range: lines.range(err.pos[0], Math.max(err.pos[1], err.pos[0] + 1)) }, gv.fileName);
  }
  const root = doc.contents as Node | null;
  if (root === null || (isScalar(root) && root.value === null)) return;
  if (!isMap(root)) {
    rep.add('yaml-structure', 'error', 'A group_vars file is a mapping of variables.', nodeLoc(root, lines, gv.fileName), gv.fileName);
    return;
  }
  const g = model.group(gv.group);
  for (const v of mapVars(root, lines, gv.fileName, false)) g.fileVars.set(v.key, v);
}

// ---------------------------------------------------------------------------------------------
// From Ansible's model to ours

interface HostSsh {
  user?: Var;
  port?: Var & { value: number };
  identityFile?: Var;
  proxyJump?: { value: string; loc: Loc };
}

class Importer {
  private readonly parents = new Map<string, Set<string>>();
  private readonly depth = new Map<string, number>();

  constructor(
    private readonly model: Model,
    private readonly rep: Reporter,
    private readonly file: string,
    private readonly options: AnsibleImportOptions,
  ) {}

  run(): AnsibleImportResult {
    this.breakCycles();
    this.computeParents();
    this.legacyNames();

    const all = [...this.model.hosts.values()];
    const bastions = all.filter((h) => this.inAny(h.name, BASTION_GROUPS));
    const cluster = all.filter((h) => !bastions.includes(h));
    const bastionJump = this.bastion(bastions);
    const hasEtcdGroup = this.hasHosts(ETCD_GROUPS);
    const clusterGroup = CLUSTER_GROUPS.map((g) => this.model.groups.get(g)).find((g) => g && (g.hosts.length || g.children.length));

    interface Pending { spec: HostSpec; ssh: HostSsh; vars: Map<string, Var>; host: AHost }
    const pending: Pending[] = [];
    for (const h of cluster) {
      const roles = this.roles(h, hasEtcdGroup, clusterGroup?.name);
      if (!roles.length) {
        this.rep.add('no-role', 'warning', `${h.name} is in no Kubernetes group (kube_control_plane, kube_node, etcd, haproxy/loadbalancer/lb); it is not imported.`, h.loc, this.file);
        continue;
      }
      const vars = this.effectiveVars(h);
      const name = this.hostName(h);
      if (!name) continue;
      const address = this.address(h, vars);
      if (!address) continue;
      const ssh = this.hostSsh(h, vars, bastionJump);
      const spec: HostSpec = { name, address, roles };
      const labels = this.labels(vars);
      if (labels) spec.labels = labels;
      pending.push({ spec, ssh, vars, host: h });
    }
    this.reportUnusedVars();

    // Keepalived settings for the balancers.
    const balancers = pending.filter((p) => p.spec.roles.includes('loadbalancer'));
    balancers.forEach((p, i) => {
      const vrrp = this.vrrp(p.host, p.vars, i);
      if (vrrp) p.spec.vrrp = vrrp;
    });

    // SSH settings every host agrees on become the defaults; the rest stay per host.
    const ssh: SshSettings = {};
    for (const key of ['user', 'port', 'identityFile', 'proxyJump'] as const) {
      const values = pending.map((p) => p.ssh[key]?.value);
      const first = values[0];
      const shared = first !== undefined && values.every((v) => v === first);
      if (shared) (ssh as Record<string, unknown>)[key] = first;
      else {
        for (const p of pending) {
          const v = p.ssh[key]?.value;
          if (v !== undefined) (p.spec.ssh ??= {} as SshSettings)[key] = v as never;
        }
      }
    }

    const order = (s: HostSpec): number => ROLES.findIndex((r) => s.roles.includes(r));
    const hosts = pending.map((p) => p.spec).sort((a, b) => order(a) - order(b));
    // Array.prototype.sort is stable: within a role hosts keep the inventory's order.

    if (!cluster.length && !this.rep.findings.some((f) => f.severity === 'error')) {
      this.rep.add('no-hosts', 'error', 'The inventory defines no hosts.', undefined, this.file);
    } else if (cluster.length && !hosts.some((h) => h.roles.includes('control-plane'))) {
      this.rep.add('no-control-plane', 'error', 'No imported host is in kube_control_plane (or the legacy kube-master).', this.model.groups.get('kube_control_plane')?.loc, this.file);
    }

    const missing: ImportMissing[] = [];
    const clusterVars = this.clusterVars(pending.find((p) => p.spec.roles.includes('control-plane'))?.host ?? pending[0]?.host);
    const kubernetesVersion = this.version(clusterVars);
    if (!kubernetesVersion) {
      missing.push('kubernetesVersion');
      this.rep.add('no-version', 'warning', 'No usable kube_version in the inventory or its group_vars: set cluster.kubernetesVersion (e.g. "1.30.14") before bring-up.', undefined, this.file);
    }
    const controlPlaneEndpoint = this.endpoint(clusterVars, hosts);
    if (!controlPlaneEndpoint) {
      missing.push('controlPlaneEndpoint');
      this.rep.add('no-endpoint', 'warning', 'No loadbalancer_apiserver, apiserver_loadbalancer_domain_name or kube_vip_address: set cluster.controlPlaneEndpoint to the VIP on the load balancers (host:port).', undefined, this.file,
        'The endpoint must be a VIP that survives the loss of any one node, not a node address.');
    }
    const inventory: Inventory = {
      cluster: {
        name: this.clusterName(),
        kubernetesVersion: kubernetesVersion ?? '',
        controlPlaneEndpoint: controlPlaneEndpoint ?? '',
        podSubnet: this.cidr(clusterVars, 'kube_pods_subnet') ?? '10.244.0.0/16',
        serviceSubnet: this.cidr(clusterVars, 'kube_service_addresses') ?? '10.96.0.0/12',
        cni: this.cni(clusterVars),
      },
      ssh,
      hosts,
    };
    const findings = [...this.rep.findings].sort((a, b) =>
      (a.file === this.file ? 0 : 1) - (b.file === this.file ? 0 : 1) ||
      (a.file ?? '').localeCompare(b.file ?? '') ||
      a.range.start.line - b.range.start.line ||
      a.range.start.character - b.range.start.character);
    return { inventory, findings, missing };
  }

  // ---- groups ----

  /** Reports and removes `:children` edges that close a cycle, so every walk below terminates. */
  private breakCycles(): void {
    const state = new Map<string, 'visiting' | 'done'>();
    const visit = (name: string): void => {
      state.set(name, 'visiting');
      const g = this.model.groups.get(name)!;
      for (const child of [...g.children]) {
        const s = state.get(child);
        if (s === 'visiting') {
          this.rep.add('children-cycle', 'error', `Group ${child} is its own ancestor through ${name}:children; this link is ignored.`, g.childLocs.get(child), this.file,
            'Ansible refuses an inventory whose groups contain each other.');
          g.children.splice(g.children.indexOf(child), 1);
        } else if (!s) visit(child);
      }
      state.set(name, 'done');
    };
    visit('all');
    for (const name of [...this.model.groups.keys()]) if (!state.has(name)) visit(name);
  }

  private computeParents(): void {
    for (const g of this.model.groups.values()) {
      for (const c of g.children) {
        let set = this.parents.get(c);
        if (!set) this.parents.set(c, (set = new Set()));
        set.add(g.name);
      }
    }
  }

  private groupDepth(name: string): number {
    if (name === 'all') return 0;
    const cached = this.depth.get(name);
    if (cached !== undefined) return cached;
    const parents = [...(this.parents.get(name) ?? [])];
    const d = parents.length ? Math.max(...parents.map((p) => this.groupDepth(p))) + 1 : 1;
    this.depth.set(name, d);
    return d;
  }

  /** Every group a host belongs to, directly or through `:children`, plus `all`. */
  private groupsOf(host: string): Set<string> {
    const out = new Set<string>(['all']);
    const stack = [...this.model.groups.values()].filter((g) => g.hosts.includes(host)).map((g) => g.name);
    while (stack.length) {
      const g = stack.pop()!;
      if (out.has(g)) continue;
      out.add(g);
      stack.push(...(this.parents.get(g) ?? []));
    }
    return out;
  }

  private inAny(host: string, groups: string[]): boolean {
    const of = this.groupsOf(host);
    return groups.some((g) => of.has(g));
  }

  private hasHosts(groups: string[]): boolean {
    return [...this.model.hosts.keys()].some((h) => this.inAny(h, groups));
  }

  private legacyNames(): void {
    for (const [old, now] of Object.entries(LEGACY_GROUPS)) {
      const g = this.model.groups.get(old);
      if (g && (g.hosts.length || g.children.length)) {
        this.rep.add('legacy-group', 'info', `Group ${old} is the legacy name of ${now}; it is read as ${now}.`, g.loc, this.file);
      }
    }
    const rr = this.model.groups.get('calico_rr');
    if (rr && rr.hosts.length) {
      this.rep.add('unsupported-group', 'info', 'calico_rr (Calico route reflectors) has no counterpart here; those hosts are imported only for their other groups.', rr.loc, this.file);
    }
  }

  private roles(h: AHost, hasEtcdGroup: boolean, clusterGroup: string | undefined): Role[] {
    const groups = this.groupsOf(h.name);
    const has = (names: string[]): boolean => names.some((n) => groups.has(n));
    const roles: Role[] = [];
    if (has(LOADBALANCER_GROUPS)) roles.push('loadbalancer');
    const cp = has(CONTROL_PLANE_GROUPS);
    if (cp) roles.push('control-plane');
    if (has(WORKER_GROUPS)) roles.push('worker');
    if (has(ETCD_GROUPS) && !cp) {
      roles.push('etcd');
      this.rep.add('external-etcd', 'warning', `${h.name} is in etcd but not in kube_control_plane: this tool builds stacked etcd on the control-plane nodes only.`, h.loc, this.file,
        'With stacked etcd every control-plane node runs one etcd member; a separate etcd host is not set up.');
    } else if (cp && hasEtcdGroup && !has(ETCD_GROUPS)) {
      this.rep.add('stacked-etcd', 'info', `${h.name} is not in etcd but will run a stacked etcd member like every control-plane node.`, h.loc, this.file);
    }
    if (clusterGroup && (cp || roles.includes('worker')) && !groups.has(clusterGroup)) {
      this.rep.add('outside-k8s-cluster', 'warning', `${h.name} is not in ${clusterGroup}; Kubespray would not set it up, but it is imported for its roles.`, h.loc, this.file);
    }
    return roles;
  }

  // ---- variables ----

  private effectiveVars(h: AHost): Map<string, Var> {
    const groups = [...this.groupsOf(h.name)].sort((a, b) => this.groupDepth(a) - this.groupDepth(b) || (a < b ? -1 : a > b ? 1 : 0));
    const out = new Map<string, Var>();
    for (const name of groups) {
      const g = this.model.groups.get(name);
      if (!g) continue;
      for (const [k, v] of g.vars) out.set(k, v);
      for (const [k, v] of g.fileVars) out.set(k, v);
    }
    for (const [k, v] of h.vars) out.set(k, v);
    return out;
  }

  private clusterVars(h: AHost | undefined): Map<string, Var> {
    if (h) return this.effectiveVars(h);
    const out = new Map<string, Var>();
    const all = this.model.groups.get('all')!;
    for (const [k, v] of all.vars) out.set(k, v);
    for (const [k, v] of all.fileVars) out.set(k, v);
    return out;
  }

  /** A string value, or undefined (with a finding when it is a template or not a scalar). */
  private str(vars: Map<string, Var>, key: string): { value: string; loc: Loc } | undefined {
    const v = vars.get(key);
    if (!v || v.value === null || v.value === undefined || v.value === '') return undefined;
    if (typeof v.value === 'object') {
      this.once(v, () => this.rep.add('var-type', 'warning', `${key} must be a single value here; it is ignored.`, v.loc, this.file));
      return undefined;
    }
    const s = String(v.value);
    if (s.includes('{{') || s.includes('{%')) {
      this.once(v, () => this.rep.add('template', 'warning', `${key} is a Jinja template ("${s}"), which the importer cannot evaluate; it is ignored.`, v.loc, this.file));
      return undefined;
    }
    return { value: s.trim(), loc: v.loc };
  }

  private readonly reported = new Set<string>();

  private once(v: Var, report: () => void): void {
    const id = `${v.key}@${v.loc.file}:${v.loc.range.start.line}:${v.loc.range.start.character}`;
    if (this.reported.has(id)) return;
    this.reported.add(id);
    report();
  }

  private hostName(h: AHost): string | undefined {
    const valid = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
    if (valid.test(h.name)) return h.name;
    const fixed = h.name.toLowerCase().replace(/_/g, '-');
    if (valid.test(fixed)) {
      this.rep.add('host-renamed', 'warning', `Host ${h.name} is imported as ${fixed}: Kubernetes node names are lowercase DNS names.`, h.loc, this.file);
      return fixed;
    }
    this.rep.add('host-name', 'error', `Host name "${h.name}" cannot be a Kubernetes node name (lowercase letters, digits, '-' and '.'); it is not imported.`, h.loc, this.file);
    return undefined;
  }

  /** `ip` (the cluster network address Kubespray uses), then `access_ip`, `ansible_host`, then the name itself. */
  private address(h: AHost, vars: Map<string, Var>): string | undefined {
    const tried: string[] = [];
    let chosen: { value: string; key: string } | undefined;
    for (const key of ['ip', 'access_ip', 'ansible_host', 'ansible_ssh_host']) {
      const v = this.str(vars, key);
      if (!v) continue;
      if (isIPv4(v.value)) {
        chosen = { value: v.value, key };
        break;
      }
      tried.push(`${key}=${v.value}`);
      if (key === 'ip' || key === 'access_ip') {
        this.rep.add('address', 'warning', `${key} "${v.value}" of ${h.name} is not an IPv4 address; it is ignored.`, v.loc, this.file);
      }
    }
    if (!chosen && isIPv4(h.name)) chosen = { value: h.name, key: 'name' };
    if (!chosen) {
      this.rep.add('no-address', 'error', `${h.name} has no IPv4 address (set ip or ansible_host${tried.length ? `; found ${tried.join(', ')}` : ''}); it is not imported.`, h.loc, this.file,
        'Addresses feed certSANs, the HAProxy backend and the Keepalived subnet, so they must be IPv4 addresses, not names.');
      return undefined;
    }
    const sshHost = this.str(vars, 'ansible_host') ?? this.str(vars, 'ansible_ssh_host');
    if (sshHost && chosen.key !== 'ansible_host' && sshHost.value !== chosen.value) {
      this.rep.add('ssh-address', 'warning', `${h.name}: Ansible connects to ${sshHost.value} (ansible_host) but the cluster address is ${chosen.value} (${chosen.key}); this tool connects to the cluster address, so it must be reachable (directly or through proxyJump).`, sshHost.loc, this.file);
    }
    return chosen.value;
  }

  private hostSsh(h: AHost, vars: Map<string, Var>, bastionJump: string | undefined): HostSsh {
    const out: HostSsh = {};
    const user = vars.get('ansible_user') ?? vars.get('ansible_ssh_user') ?? vars.get('remote_user');
    const userStr = user ? this.str(vars, user.key) : undefined;
    if (user && userStr) out.user = { ...user, value: userStr.value };
    const port = vars.get('ansible_port') ?? vars.get('ansible_ssh_port');
    if (port && port.value !== null && port.value !== '') {
      const n = typeof port.value === 'number' ? port.value : /^\s*\d+\s*$/.test(String(port.value)) ? Number(port.value) : NaN;
      if (Number.isInteger(n) && n >= 1 && n <= 65535) out.port = { ...port, value: n };
      else this.once(port, () => this.rep.add('port', 'error', `${port.key} "${String(port.value)}" of ${h.name} is not a TCP port (1–65535); the default is used.`, port.loc, this.file));
    }
    const key = vars.get('ansible_ssh_private_key_file') ?? vars.get('ansible_private_key_file');
    const keyStr = key ? this.str(vars, key.key) : undefined;
    if (key && keyStr) out.identityFile = { ...key, value: keyStr.value };
    let jump: { value: string; loc: Loc } | undefined;
    for (const argsKey of ['ansible_ssh_common_args', 'ansible_ssh_extra_args']) {
      const args = this.str(vars, argsKey);
      if (args) jump ??= this.jumpFromArgs(args.value, args.loc, vars.get(argsKey)!);
    }
    if (!jump && bastionJump) jump = { value: bastionJump, loc: h.loc };
    if (jump) out.proxyJump = jump;
    return out;
  }

  /** `-o ProxyJump=x`, `-J x`, or `-o ProxyCommand="ssh -W %h:%p [-p port] [user@]bastion"` → ProxyJump syntax. */
  private jumpFromArgs(args: string, loc: Loc, v: Var): { value: string; loc: Loc } | undefined {
    const tokens = shellSplit(args).map((t) => t.text);
    for (let i = 0; i < tokens.length; i++) {
      const t = tokens[i]!;
      let option: string | undefined;
      if (t === '-o') option = tokens[++i];
      else if (t.startsWith('-o')) option = t.slice(2);
      else if (t === '-J') return tokens[i + 1] ? { value: tokens[i + 1]!, loc } : undefined;
      else if (t.startsWith('-J')) return { value: t.slice(2), loc };
      if (!option) continue;
      const m = /^(\w+)\s*[= ]\s*(.*)$/s.exec(option);
      if (!m) continue;
      const name = m[1]!.toLowerCase();
      const value = m[2]!.trim();
      if (name === 'proxyjump' && value && value !== 'none') return { value, loc };
      if (name === 'proxycommand') {
        const jump = jumpFromProxyCommand(value);
        if (jump) return { value: jump, loc };
        this.once(v, () => this.rep.add('proxy-command', 'warning', `ProxyCommand "${value}" is not of the form "ssh -W %h:%p [user@]bastion"; set ssh.proxyJump by hand.`, loc, this.file));
      }
    }
    return undefined;
  }

  /** Kubespray's [bastion] group: its first host becomes the ProxyJump of every other host. */
  private bastion(bastions: AHost[]): string | undefined {
    const b = bastions[0];
    if (!b) return undefined;
    if (bastions.length > 1) this.rep.add('bastion', 'warning', `${bastions.length} hosts in [bastion]; only ${b.name} is used.`, bastions[1]!.loc, this.file);
    const vars = this.effectiveVars(b);
    const address = this.str(vars, 'ansible_host') ?? this.str(vars, 'ansible_ssh_host') ?? this.str(vars, 'ip');
    const host = address?.value ?? b.name;
    const user = this.str(vars, 'ansible_user') ?? this.str(vars, 'ansible_ssh_user');
    const portVar = vars.get('ansible_port') ?? vars.get('ansible_ssh_port');
    const port = portVar && /^\d+$/.test(String(portVar.value).trim()) ? Number(portVar.value) : undefined;
    if (portVar && (port === undefined || port < 1 || port > 65535)) {
      this.rep.add('port', 'error', `${portVar.key} "${String(portVar.value)}" of bastion ${b.name} is not a TCP port (1–65535).`, portVar.loc, this.file);
    }
    const validPort = port !== undefined && port >= 1 && port <= 65535 && port !== 22 ? port : undefined;
    return `${user ? `${user.value}@` : ''}${host}${validPort ? `:${validPort}` : ''}`;
  }

  private labels(vars: Map<string, Var>): Record<string, string> | undefined {
    const v = vars.get('node_labels');
    if (!v || v.value === null || v.value === undefined) return undefined;
    if (typeof v.value !== 'object' || Array.isArray(v.value)) {
      this.once(v, () => this.rep.add('var-type', 'warning', 'node_labels must be a mapping of label → value; it is ignored.', v.loc, this.file));
      return undefined;
    }
    const out: Record<string, string> = {};
    for (const [k, val] of Object.entries(v.value as Record<string, unknown>)) out[k] = val === null || val === undefined ? '' : String(val);
    return Object.keys(out).length ? out : undefined;
  }

  private vrrp(h: AHost, vars: Map<string, Var>, index: number): VrrpSettings | undefined {
    const iface = this.str(vars, 'keepalived_interface') ?? this.str(vars, 'vrrp_interface');
    const ifaceName = iface?.value ?? this.options.vrrpInterface;
    if (!ifaceName) {
      this.rep.add('no-vrrp', 'info', `Load balancer ${h.name}: no keepalived_interface; add vrrp: { state, priority, interface } to its row before bring-up.`, h.loc, this.file);
      return undefined;
    }
    const stateVar = this.str(vars, 'keepalived_state') ?? this.str(vars, 'vrrp_state');
    let state: VrrpSettings['state'] = index === 0 ? 'MASTER' : 'BACKUP';
    if (stateVar) {
      const s = stateVar.value.toUpperCase();
      if (s === 'MASTER' || s === 'BACKUP') state = s;
      else this.rep.add('vrrp', 'warning', `keepalived_state "${stateVar.value}" must be MASTER or BACKUP; ${state} is used.`, stateVar.loc, this.file);
    }
    let priority = Math.max(1, 100 - index);
    const prioVar = this.str(vars, 'keepalived_priority') ?? this.str(vars, 'vrrp_priority');
    if (prioVar) {
      const n = Number(prioVar.value);
      if (Number.isInteger(n) && n >= 1 && n <= 254) priority = n;
      else this.rep.add('vrrp', 'warning', `VRRP priority "${prioVar.value}" must be an integer from 1 to 254; ${priority} is used.`, prioVar.loc, this.file);
    }
    const out: VrrpSettings = { state, priority, interface: ifaceName };
    const vridVar = ['keepalived_router_id', 'keepalived_virtual_router_id', 'virtual_router_id', 'vrrp_router_id'].map((k) => this.str(vars, k)).find((x) => x);
    if (vridVar) {
      const n = Number(vridVar.value);
      if (Number.isInteger(n) && n >= 1 && n <= 255) out.virtualRouterId = n;
      else this.rep.add('vrrp', 'warning', `VRRP router id "${vridVar.value}" must be an integer from 1 to 255; it is ignored.`, vridVar.loc, this.file);
    }
    return out;
  }

  /** Variables set in the inventory file that nothing reads: one info each, so the user knows they were dropped. */
  private reportUnusedVars(): void {
    const seen = new Set<string>();
    const visit = (v: Var): void => {
      if (!v.inInventory || USED_VARS.has(v.key) || QUIET_VARS.has(v.key) || seen.has(v.key)) return;
      seen.add(v.key);
      this.rep.add('ignored-var', 'info', `Variable ${v.key} has no counterpart in inventory.yaml and is not imported.`, v.loc, this.file);
    };
    for (const g of this.model.groups.values()) for (const v of g.vars.values()) visit(v);
    for (const h of this.model.hosts.values()) for (const v of h.vars.values()) visit(v);
  }

  // ---- cluster ----

  private clusterName(): string {
    if (this.options.clusterName) return this.options.clusterName;
    const parts = this.file.split(/[\\/]/).filter(Boolean);
    const base = (parts[parts.length - 1] ?? '').replace(/\.(ya?ml|ini|cfg|json)$/i, '');
    const generic = ['hosts', 'inventory', 'hosts-inventory', 'inventory-hosts', ''];
    const pick = generic.includes(base.toLowerCase()) ? parts[parts.length - 2] ?? base : base;
    const name = pick.toLowerCase().replace(/[^a-z0-9.-]+/g, '-').replace(/^[-.]+|[-.]+$/g, '');
    return name || 'cluster';
  }

  private version(vars: Map<string, Var>): string | undefined {
    const v = this.str(vars, 'kube_version');
    if (v) {
      const m = /^v?(\d+\.\d+\.\d+)$/.exec(v.value);
      if (m) return m[1];
      this.rep.add('version', 'warning', `kube_version "${v.value}" is not a full version like v1.30.14; it is ignored.`, v.loc, this.file);
    }
    const fromOptions = this.options.kubernetesVersion?.replace(/^v/, '');
    return fromOptions || undefined;
  }

  private endpoint(vars: Map<string, Var>, hosts: HostSpec[]): string | undefined {
    if (this.options.controlPlaneEndpoint) return this.options.controlPlaneEndpoint;
    const lb = vars.get('loadbalancer_apiserver');
    let host: { value: string; loc: Loc } | undefined;
    let port: number | undefined;
    if (lb && lb.value && typeof lb.value === 'object' && !Array.isArray(lb.value)) {
      const o = lb.value as Record<string, unknown>;
      if (o.address !== undefined && o.address !== null) host = { value: String(o.address), loc: lb.loc };
      if (o.port !== undefined && o.port !== null) port = Number(o.port);
    } else if (lb && lb.value !== null && lb.value !== undefined && lb.value !== '') {
      this.rep.add('var-type', 'warning', 'loadbalancer_apiserver must be a mapping { address, port }; it is ignored.', lb.loc, this.file);
    }
    host ??= this.str(vars, 'apiserver_loadbalancer_domain_name') ?? this.str(vars, 'kube_vip_address');
    if (!host) return undefined;
    if (host.value.includes('{{')) {
      this.rep.add('template', 'warning', `The load balancer address "${host.value}" is a Jinja template; set cluster.controlPlaneEndpoint by hand.`, host.loc, this.file);
      return undefined;
    }
    if (port === undefined) {
      const p = this.str(vars, 'loadbalancer_apiserver_port') ?? this.str(vars, 'kube_apiserver_port');
      port = p ? Number(p.value) : 6443;
    }
    if (!Number.isInteger(port) || port < 1 || port > 65535) {
      this.rep.add('port', 'error', `The API server load balancer port "${String(port)}" is not a TCP port (1–65535); 6443 is used.`, lb?.loc ?? host.loc, this.file);
      port = 6443;
    }
    const endpoint = `${host.value}:${port}`;
    const node = hosts.find((h) => h.address === host.value || h.name === host.value);
    if (!splitEndpoint(endpoint)) {
      this.rep.add('endpoint', 'warning', `The API server endpoint "${endpoint}" is not host:port.`, host.loc, this.file);
    } else if (node?.roles.includes('control-plane')) {
      this.rep.add('endpoint-is-node', 'warning', `The API server endpoint ${endpoint} is ${node.name}, a control-plane node; set cluster.controlPlaneEndpoint to the VIP.`, host.loc, this.file);
    }
    return endpoint;
  }

  private cidr(vars: Map<string, Var>, key: 'kube_pods_subnet' | 'kube_service_addresses'): string | undefined {
    const v = this.str(vars, key);
    if (!v) return undefined;
    if (parseCidr(v.value)) return v.value;
    this.rep.add('cidr', 'warning', `${key} "${v.value}" is not an IPv4 CIDR; the default is used.`, v.loc, this.file);
    return undefined;
  }

  private cni(vars: Map<string, Var>): Cni {
    const v = this.str(vars, 'kube_network_plugin');
    const fallback = this.options.cni ?? 'flannel';
    if (!v) return fallback;
    if ((CNIS as readonly string[]).includes(v.value)) return v.value as Cni;
    this.rep.add('cni', 'warning', `kube_network_plugin "${v.value}" is not supported (${CNIS.join(', ')}); ${fallback} is used.`, v.loc, this.file);
    return fallback;
  }
}

/** Destination of `ssh [opts] -W %h:%p [opts] [user@]host` as ProxyJump syntax, or undefined. */
export function jumpFromProxyCommand(command: string): string | undefined {
  const t = shellSplit(command).map((x) => x.text);
  if (!t.length || !/(^|\/)ssh$/.test(t[0]!) || !t.includes('-W')) return undefined;
  const withArg = new Set('bcDEeFIiJLlmOoPpQRSWw'.split(''));
  let user: string | undefined;
  let port: string | undefined;
  let dest: string | undefined;
  for (let i = 1; i < t.length; i++) {
    const a = t[i]!;
    if (a.startsWith('-') && a.length >= 2) {
      const flag = a[1]!;
      if (!withArg.has(flag)) continue;
      const arg = a.length > 2 ? a.slice(2) : t[++i];
      if (flag === 'p') port = arg;
      else if (flag === 'l') user = arg;
      else if (flag === 'o' && arg) {
        const m = /^(\w+)\s*[= ]\s*(.*)$/.exec(arg);
        if (m && m[1]!.toLowerCase() === 'port') port = m[2];
        if (m && m[1]!.toLowerCase() === 'user') user = m[2];
      }
      continue;
    }
    if (dest === undefined) dest = a;
  }
  if (!dest) return undefined;
  const url = /^ssh:\/\/(?:([^@]+)@)?([^:/]+)(?::(\d+))?/.exec(dest);
  if (url) {
    user = url[1] ?? user;
    dest = url[2]!;
    port = url[3] ?? port;
  } else if (dest.includes('@')) {
    user = dest.slice(0, dest.indexOf('@'));
    dest = dest.slice(dest.indexOf('@') + 1);
  }
  const portPart = port && port !== '22' ? `:${port}` : '';
  return `${user ? `${user}@` : ''}${dest}${portPart}`;
}

/** Variables the importer maps, for documentation and the editor's hover. */
export const ANSIBLE_IMPORTED_VARS: readonly string[] = [...USED_VARS];
