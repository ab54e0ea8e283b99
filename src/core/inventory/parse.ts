/**
 * Loads inventory.yaml into the model and reports every problem as a finding with a position.
 * It never throws on bad input: a half-typed file still yields the hosts that are complete,
 * so the views keep showing what they can while the user edits.
 */
import { isMap, isScalar, isSeq, parseDocument, type Document, type Node, type Pair, type YAMLMap } from 'yaml';
import { LineIndex, type Finding, type Range, ZERO_RANGE } from '../findings';
import { crossChecks } from './crossChecks';
import { downloadProblems } from './downloads';
import type { InventoryRuleId } from './rules';
import type { FieldSpec } from './validate';
import { CLUSTER_FIELDS, CLUSTER_SWITCHES, HOST_ADDRESS, HOST_NAME, LABEL_KEY, LABEL_VALUE, MIRROR, PACKAGE_FIELDS, PREFLIGHT, REGISTRY, SSH_FIELDS, VRRP_INTERFACE } from './validate';
import { syntaxFindings } from './yamlErrors';
import { MAX_INVENTORY_BYTES } from './limits';
import {
  CNIS,
  ROLES,
  isKubernetesHost,
  type ClusterSpec,
  type HostSpec,
  type Inventory,
  type InventoryLocations,
  type PackageSource,
  type Role,
  type SshSettings,
  type VrrpSettings,
} from './types';
import { t } from '../l10n';

export interface InventoryParseResult {
  /** Undefined only when the file has no usable `cluster` or `hosts` at all. */
  inventory?: Inventory;
  findings: Finding[];
  locations: InventoryLocations;
}

// The size limit and the unread result live apart from the parser (./limits.ts: importing them loads no YAML).
export { MAX_INVENTORY_BYTES, unreadInventory } from './limits';

/** The length of `text` in UTF-8 bytes (what the limit counts: a file's size), without encoding it. */
export function utf8Length(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 4;
      i++;
    }
    else n += 3;
  }
  return n;
}

export function parseInventory(text: string): InventoryParseResult {
  const locations: InventoryLocations = { hosts: new Map(), fields: new Map() };
  // In bytes, like the file's size: every UTF-16 unit is at least one byte, so a long text needs no count.
  const bytes = text.length > MAX_INVENTORY_BYTES ? text.length : utf8Length(text);
  if (bytes > MAX_INVENTORY_BYTES) {
    return {
      findings: [{ rule: 'inventory/too-large', severity: 'error', message: t('The inventory is {0} KB or more; at most {1} KB is read.', Math.round(bytes / 1024), MAX_INVENTORY_BYTES / 1024), range: ZERO_RANGE }],
      locations,
    };
  }
  const lines = new LineIndex(text);
  const doc = parseDocument(text, { prettyErrors: false, uniqueKeys: true });
  // One finding per syntax problem: the parser's cascade after it says nothing new.
  const findings: Finding[] = syntaxFindings(doc.errors, lines);
  if (doc.errors.length && !isMap(doc.contents)) return { findings, locations };
  // With a syntax error the checks below would only describe the parser's recovery: the model is kept
  // (the views show the hosts that are complete) and only the syntax is reported.
  const checked: Finding[] = [];
  const ctx = new Checker(doc, lines, doc.errors.length ? checked : findings, locations);
  const inventory = ctx.inventory();
  return { ...(inventory ? { inventory } : {}), findings, locations };
}

/** Reports where a finding goes; shared with the cross checks. */
export interface Reporter {
  report(rule: InventoryRuleId, severity: Finding['severity'], message: string, node: Node | null | undefined, keyOnly?: boolean, why?: string): void;
  push(rule: InventoryRuleId, severity: Finding['severity'], message: string, range: Range, why?: string): void;
  root(): YAMLMap;
  clusterField(key: string): Node | undefined;
  hostRange(name: string): Range;
}

/** A value as a message shows it: quoted, escaped, and short. */
function shown(v: string): string {
  return JSON.stringify(v.length > 60 ? `${v.slice(0, 60)}…` : v);
}

class Checker implements Reporter {
  constructor(
    private readonly doc: Document,
    private readonly lines: LineIndex,
    private readonly findings: Finding[],
    private readonly locations: InventoryLocations,
  ) {}

  inventory(): Inventory | undefined {
    const root = this.doc.contents;
    if (!isMap(root)) {
      this.report('inventory/not-a-map', 'error', t('An inventory is a YAML mapping with `cluster`, `ssh` and `hosts`.'), root);
      return undefined;
    }
    this.unknownKeys(root, ['cluster', 'ssh', 'hosts'], '');
    const clusterNode = root.get('cluster', true) as Node | undefined;
    const hostsNode = root.get('hosts', true) as Node | undefined;
    if (!clusterNode) this.report('inventory/missing-key', 'error', t('Missing `cluster`: the cluster name, version, endpoint and networks.'), root, true);
    if (!hostsNode) this.report('inventory/missing-key', 'error', t('Missing `hosts`: the machines of the cluster.'), root, true);
    const cluster = clusterNode ? this.cluster(clusterNode) : undefined;
    const ssh = this.ssh(root.get('ssh', true) as Node | undefined, 'ssh') ?? {};
    const hosts = hostsNode ? this.hosts(hostsNode) : [];
    if (!cluster) return undefined;
    const inv: Inventory = { cluster, ssh, hosts };
    crossChecks(inv, this);
    return inv;
  }

  private cluster(node: Node): ClusterSpec | undefined {
    if (!isMap(node)) {
      this.report('inventory/type', 'error', t('`cluster` must be a mapping.'), node);
      return undefined;
    }
    this.unknownKeys(node, ['name', 'kubernetesVersion', 'controlPlaneEndpoint', 'podSubnet', 'serviceSubnet', 'cni', 'imageRepository', 'registryMirrors', 'packages', 'cniManifest', 'cniManifestSha256', 'ignorePreflightErrors', 'containerd', 'kubeadmExtraConfig', ...Object.keys(CLUSTER_SWITCHES)], 'cluster');
    const f = CLUSTER_FIELDS;
    const name = this.checked(node, 'name', 'cluster', f.name, true, true);
    const kubernetesVersion = this.checked(node, 'kubernetesVersion', 'cluster', f.kubernetesVersion, true);
    const controlPlaneEndpoint = this.checked(node, 'controlPlaneEndpoint', 'cluster', f.controlPlaneEndpoint, true);
    const podSubnet = this.checked(node, 'podSubnet', 'cluster', f.podSubnet) ?? '10.244.0.0/16';
    const serviceSubnet = this.checked(node, 'serviceSubnet', 'cluster', f.serviceSubnet) ?? '10.96.0.0/12';
    const cni = (this.optionalString(node, 'cni', 'cluster') ?? 'flannel') as ClusterSpec['cni'];
    const imageRepository = this.checked(node, 'imageRepository', 'cluster', f.imageRepository);
    if (node.has('cni') && !(CNIS as readonly string[]).includes(cni)) {
      this.report('inventory/cni', 'error', t('cni must be one of {0}.', CNIS.join(', ')), node.get('cni', true) as Node);
    }
    const cniManifest = this.checked(node, 'cniManifest', 'cluster', f.cniManifest);
    const cniManifestSha256 = this.checked(node, 'cniManifestSha256', 'cluster', f.cniManifestSha256);
    const ignorePreflightErrors = this.stringList(node.get('ignorePreflightErrors', true) as Node | undefined, 'cluster.ignorePreflightErrors', PREFLIGHT);
    const kubeadmExtraConfig = this.checked(node, 'kubeadmExtraConfig', 'cluster', f.kubeadmExtraConfig);
    const containerd = this.containerd(node.get('containerd', true) as Node | undefined);
    const apiServerAuditLog = this.switch(node, 'apiServerAuditLog');
    const registryMirrors = this.mirrors(node.get('registryMirrors', true) as Node | undefined);
    const packages = this.packages(node.get('packages', true) as Node | undefined);
    if (name === undefined || kubernetesVersion === undefined || controlPlaneEndpoint === undefined) return undefined;
    const spec: ClusterSpec = {
      name,
      kubernetesVersion: kubernetesVersion.replace(/^v/, ''),
      controlPlaneEndpoint,
      podSubnet,
      serviceSubnet,
      cni,
      ...(imageRepository !== undefined ? { imageRepository } : {}),
      ...(registryMirrors ? { registryMirrors } : {}),
      ...(packages ? { packages } : {}),
      ...(cniManifest !== undefined ? { cniManifest } : {}),
      ...(cniManifestSha256 !== undefined ? { cniManifestSha256 } : {}),
      ...(ignorePreflightErrors ? { ignorePreflightErrors } : {}),
      ...(containerd ? { containerd } : {}),
      ...(kubeadmExtraConfig !== undefined ? { kubeadmExtraConfig } : {}),
      ...(apiServerAuditLog !== undefined ? { apiServerAuditLog } : {}),
    };
    for (const d of downloadProblems(spec)) this.report(d.rule, 'error', d.message, node.getIn(d.field.split('.'), true) as Node);
    return spec;
  }

  private packages(node: Node | undefined): PackageSource | undefined {
    if (!node) return undefined;
    if (!isMap(node)) {
      this.report('inventory/type', 'error', t('cluster.packages must be a mapping.'), node);
      return undefined;
    }
    this.unknownKeys(node, Object.keys(PACKAGE_FIELDS), 'cluster.packages');
    const out: PackageSource = {};
    for (const [key, spec] of Object.entries(PACKAGE_FIELDS)) {
      const v = this.checked(node, key, 'cluster.packages', spec);
      if (v !== undefined) out[key as keyof PackageSource] = v;
    }
    return out;
  }

  private ssh(node: Node | undefined, path: string): SshSettings | undefined {
    if (!node) return undefined;
    if (!isMap(node)) {
      this.report('inventory/type', 'error', t('`{0}` must be a mapping of user, port, identityFile, proxyJump.', path), node);
      return undefined;
    }
    this.unknownKeys(node, ['user', 'port', 'identityFile', 'proxyJump'], path);
    const out: SshSettings = {};
    const user = this.checked(node, 'user', path, SSH_FIELDS.user);
    if (user !== undefined) out.user = user;
    const identityFile = this.checked(node, 'identityFile', path, SSH_FIELDS.identityFile);
    if (identityFile !== undefined) out.identityFile = identityFile;
    const proxyJump = this.checked(node, 'proxyJump', path, SSH_FIELDS.proxyJump);
    if (proxyJump !== undefined) out.proxyJump = proxyJump;
    const port = this.integer(node, 'port', path, 1, 65535, false, 'inventory/port');
    if (port !== undefined) out.port = port;
    return out;
  }

  private hosts(node: Node): HostSpec[] {
    if (!isSeq(node)) {
      this.report('inventory/type', 'error', t('`hosts` must be a list of hosts.'), node);
      return [];
    }
    const hosts: HostSpec[] = [];
    node.items.forEach((item, i) => {
      const host = this.host(item as Node, `hosts[${i}]`);
      if (host) {
        hosts.push(host);
        this.locations.hosts.set(host.name, this.rangeOf(item as Node));
      }
    });
    return hosts;
  }

  private host(node: Node, path: string): HostSpec | undefined {
    if (!isMap(node)) {
      this.report('inventory/type', 'error', t('{0} must be a mapping with name, address and roles.', path), node);
      return undefined;
    }
    this.unknownKeys(node, ['name', 'address', 'roles', 'ssh', 'vrrp', 'labels'], path);
    const name = this.checked(node, 'name', path, HOST_NAME, true, true);
    const address = this.checked(node, 'address', path, HOST_ADDRESS, true);
    const roles = this.roles(node.get('roles', true) as Node | undefined, path, node, name ?? path);
    const ssh = this.ssh(node.get('ssh', true) as Node | undefined, `${path}.ssh`);
    const vrrp = this.vrrp(node.get('vrrp', true) as Node | undefined, `${path}.vrrp`);
    const labels = this.labels(node.get('labels', true) as Node | undefined, `${path}.labels`);
    if (labels && Object.keys(labels).length && !isKubernetesHost({ roles })) {
      this.report('inventory/labels-not-node', 'warning', t('{0} has labels but is not a Kubernetes node (control-plane or worker), so they are not applied.', name ?? path), node.get('labels', true) as Node);
    }
    if (vrrp && !roles.includes('loadbalancer')) {
      this.report('inventory/vrrp-role', 'warning', t('{0} has vrrp settings but not the loadbalancer role.', name ?? path), node.get('vrrp', true) as Node);
    }
    if (name === undefined || address === undefined) return undefined;
    return { name, address, roles, ...(ssh ? { ssh } : {}), ...(vrrp ? { vrrp } : {}), ...(labels ? { labels } : {}) };
  }

  private roles(node: Node | undefined, path: string, parent: YAMLMap, who: string): Role[] {
    if (!node) {
      this.report('inventory/missing-key', 'error', t('{0} needs `roles`: loadbalancer, control-plane or worker.', path), parent, true);
      return [];
    }
    if (!isSeq(node)) {
      this.report('inventory/type', 'error', t('{0}.roles must be a list, e.g. [control-plane].', path), node);
      return [];
    }
    const roles: Role[] = [];
    for (const item of node.items) {
      const value = isScalar(item) ? String(item.value) : '';
      if ((ROLES as readonly string[]).includes(value)) roles.push(value as Role);
      else this.report('inventory/role', 'error', t('Unknown role {0}: use loadbalancer, control-plane or worker.', shown(value)), item as Node);
    }
    const planned = roles.filter((r) => r !== 'etcd');
    if (!planned.length && roles.length === node.items.length) {
      this.report('inventory/no-roles', 'error', roles.length
        ? t('{0} has only the etcd role: this tool runs etcd on the control-plane nodes (stacked) and would leave {0} out of the plan; give it control-plane, or remove it.', who)
        : t('{0} has no role, so the plan would leave it out: give it loadbalancer, control-plane or worker.', who), node);
    } else if (roles.includes('etcd') && planned.length) {
      this.report('inventory/etcd-role', 'warning', t('{0}: the etcd role adds nothing; every control-plane node runs a stacked etcd member.', who), node);
    }
    return roles;
  }

  private vrrp(node: Node | undefined, path: string): VrrpSettings | undefined {
    if (!node) return undefined;
    if (!isMap(node)) {
      this.report('inventory/type', 'error', t('{0} must be a mapping of state, priority, interface.', path), node);
      return undefined;
    }
    this.unknownKeys(node, ['state', 'priority', 'interface', 'virtualRouterId'], path);
    const state = this.requiredString(node, 'state', path);
    const iface = this.checked(node, 'interface', path, VRRP_INTERFACE, true);
    const priority = this.integer(node, 'priority', path, 1, 254, true);
    const vrid = this.integer(node, 'virtualRouterId', path, 1, 255, false);
    if (state !== undefined && state !== 'MASTER' && state !== 'BACKUP') {
      this.report('inventory/vrrp-state', 'error', t('{0}.state must be MASTER or BACKUP.', path), node.get('state', true) as Node);
      return undefined;
    }
    if (state === undefined || iface === undefined || priority === undefined) return undefined;
    return { state, priority, interface: iface, ...(vrid !== undefined ? { virtualRouterId: vrid } : {}) };
  }

  private mirrors(node: Node | undefined): Record<string, string[]> | undefined {
    if (!node) return undefined;
    if (!isMap(node)) {
      this.report('inventory/type', 'error', t('cluster.registryMirrors maps a registry host to a list of mirror URLs.'), node);
      return undefined;
    }
    const out: Record<string, string[]> = {};
    for (const pair of node.items as Pair<Node, Node>[]) {
      const key = this.keyString(pair, 'cluster.registryMirrors', REGISTRY);
      if (key === undefined) continue;
      const value = pair.value;
      const list = isSeq(value) ? value.items : value ? [value] : [];
      out[key] = [];
      for (const item of list as Node[]) {
        const m = this.scalarString(item, `cluster.registryMirrors.${key}`);
        if (m !== undefined && this.valid(m, MIRROR, item, t('A mirror of {0}', key))) out[key].push(m);
      }
    }
    return out;
  }

  private labels(node: Node | undefined, path: string): Record<string, string> | undefined {
    if (!node) return undefined;
    if (!isMap(node)) {
      this.report('inventory/type', 'error', t('{0} must be a mapping of label keys to values.', path), node);
      return undefined;
    }
    const out: Record<string, string> = {};
    for (const pair of node.items as Pair<Node, Node>[]) {
      const key = this.keyString(pair, path, LABEL_KEY);
      const value = pair.value ? this.scalarString(pair.value, `${path}.${key}`) : '';
      if (key !== undefined && value !== undefined && this.valid(value, LABEL_VALUE, pair.value ?? pair.key, t('The value of label {0}', key))) out[key] = value;
    }
    return out;
  }

  /** A cluster switch (CLUSTER_SWITCHES): a YAML true or false, reported at the value otherwise. */
  private switch(map: YAMLMap, key: keyof typeof CLUSTER_SWITCHES): boolean | undefined {
    const value = map.get(key, true) as Node | undefined;
    if (!value) return undefined;
    if (!isScalar(value) || typeof value.value !== 'boolean') {
      this.report(CLUSTER_SWITCHES[key], 'error', t('cluster.{0} must be true or false.', key), value);
      return undefined;
    }
    return value.value;
  }

  private containerd(node: Node | undefined): ClusterSpec['containerd'] {
    if (!node) return undefined;
    if (!isMap(node)) {
      this.report('inventory/type', 'error', t('cluster.containerd must be a mapping, e.g. { restrictOomScoreAdj: true }.'), node);
      return undefined;
    }
    this.unknownKeys(node, ['restrictOomScoreAdj'], 'cluster.containerd');
    const flag = node.get('restrictOomScoreAdj', true) as Node | undefined;
    if (!flag) return {};
    if (!isScalar(flag) || typeof flag.value !== 'boolean') {
      this.report('inventory/type', 'error', t('cluster.containerd.restrictOomScoreAdj must be true or false.'), flag);
      return {};
    }
    return { restrictOomScoreAdj: flag.value };
  }

  private stringList(node: Node | undefined, path: string, spec: FieldSpec): string[] | undefined {
    if (!node) return undefined;
    if (!isSeq(node) || !node.items.every((i) => isScalar(i))) {
      this.report('inventory/type', 'error', t('{0} must be a list of strings.', path), node);
      return undefined;
    }
    const out: string[] = [];
    for (const item of node.items as Node[]) {
      const v = this.scalarString(item, path);
      if (v !== undefined && this.valid(v, spec, item, t('An entry of {0}', path))) out.push(v);
    }
    return out;
  }

  // ---- helpers (also used by the cross checks) ----

  root(): YAMLMap {
    return this.doc.contents as YAMLMap;
  }

  clusterField(key: string): Node | undefined {
    const cluster = this.root().get('cluster', true);
    return isMap(cluster) ? (cluster.get(key, true) as Node | undefined) : undefined;
  }

  hostRange(name: string): Range {
    return this.locations.hosts.get(name) ?? ZERO_RANGE;
  }

  /** A string field checked against its type; the value is kept (the views show it) and an error reported. */
  private checked(map: YAMLMap, key: string, path: string, spec: FieldSpec, required = false, name = false): string | undefined {
    const v = required ? this.requiredString(map, key, path, name) : this.optionalString(map, key, path);
    if (v !== undefined) this.valid(v, spec, map.get(key, true) as Node, `${path}.${key}`);
    return v;
  }

  private valid(value: string, spec: FieldSpec, node: Node | null | undefined, what: string): boolean {
    const problem = spec.check(value);
    if (problem) this.report(spec.rule, 'error', `${what} ${shown(value)} ${problem}.`, node);
    return !problem;
  }

  /** A mapping key that must be a string of a type; undefined (reported) when it is not. */
  private keyString(pair: Pair<Node, Node>, path: string, spec: FieldSpec): string | undefined {
    const key = isScalar(pair.key) ? String(pair.key.value) : undefined;
    if (key === undefined) {
      this.report('inventory/type', 'error', t('{0}: a key must be a single value.', path), pair.key);
      return undefined;
    }
    return this.valid(key, spec, pair.key, t('Key in {0}', path)) ? key : undefined;
  }

  private requiredString(map: YAMLMap, key: string, path: string, name = false): string | undefined {
    const node = map.get(key, true) as Node | undefined;
    if (!node || (isScalar(node) && (node.value === null || node.value === ''))) {
      this.report('inventory/missing-key', 'error', t('{0}{1} is required.', path ? path + '.' : '', key), node ?? map, !node);
      return undefined;
    }
    return this.scalarString(node, `${path}.${key}`, name);
  }

  private optionalString(map: YAMLMap, key: string, path: string): string | undefined {
    const node = map.get(key, true) as Node | undefined;
    if (!node || (isScalar(node) && node.value === null)) return undefined;
    return this.scalarString(node, `${path}.${key}`);
  }

  /**
   * A scalar as the text it stands for. YAML resolves plain scalars to numbers and booleans: a name it read as a
   * number (`name: 0x1F` is 31), or any value whose text changed on the way (`010` is 10, `True` is true), is
   * refused rather than silently taken as another one.
   */
  private scalarString(node: Node, path: string, name = false): string | undefined {
    if (!isScalar(node) || (typeof node.value === 'object' && node.value !== null)) {
      this.report('inventory/type', 'error', t('{0} must be a single value.', path), node);
      return undefined;
    }
    const text = String(node.value);
    if (typeof node.value !== 'string' && node.value !== null && (name || (node.source !== undefined && node.source !== text))) {
      const written = node.source ?? text;
      this.report('inventory/not-a-string', 'error', t('{0} {1} is read by YAML as the {2} {3}{4}: write it in quotes ("{1}") to mean the text.', path, written, typeof node.value, text, name ? t(', not a name') : ''), node);
      return undefined;
    }
    return text;
  }

  private integer(map: YAMLMap, key: string, path: string, min: number, max: number, required: boolean, rule: InventoryRuleId = 'inventory/range'): number | undefined {
    const node = map.get(key, true) as Node | undefined;
    if (!node) {
      if (required) this.report('inventory/missing-key', 'error', t('{0}.{1} is required.', path, key), map, true);
      return undefined;
    }
    const value = isScalar(node) && typeof node.value === 'number' ? node.value : NaN;
    if (!Number.isInteger(value) || value < min || value > max) {
      this.report(rule, 'error', t('{0}.{1} must be an integer from {2} to {3}.', path, key, min, max), node);
      return undefined;
    }
    return value;
  }

  private unknownKeys(map: YAMLMap, known: string[], path: string): void {
    for (const pair of map.items as Pair<Node, Node>[]) {
      const key = isScalar(pair.key) ? String(pair.key.value) : undefined;
      if (key === undefined) continue;
      this.locations.fields.set(path ? `${path}.${key}` : key, this.rangeOf(pair.key));
      if (!known.includes(key)) {
        const hint = known.find((k) => k.toLowerCase() === key.toLowerCase());
        this.report('inventory/unknown-key', 'warning', t('Unknown key {0}{1}{2}.', shown(key), path ? t(' in {0}', path) : '', hint ? t(' — did you mean "{0}"?', hint) : ''), pair.key);
      }
    }
  }

  private rangeOf(node: Node | null | undefined): Range {
    const r = node?.range;
    return r ? this.lines.range(r[0], r[1]) : ZERO_RANGE;
  }

  /** Reports on a node; `keyOnly` narrows the range to the first line (for a missing key under a mapping). */
  report(rule: InventoryRuleId, severity: Finding['severity'], message: string, node: Node | null | undefined, keyOnly = false, why?: string): void {
    let range = this.rangeOf(node);
    if (keyOnly) range = this.lines.lineRange(range.start.line);
    this.push(rule, severity, message, range, why);
  }

  push(rule: InventoryRuleId, severity: Finding['severity'], message: string, range: Range, why?: string): void {
    this.findings.push({ rule, severity, message, range, ...(why ? { why } : {}) });
  }
}
