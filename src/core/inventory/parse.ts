/**
 * Loads inventory.yaml into the model and reports every problem as a finding with a position.
 * It never throws on bad input: a half-typed file still yields the hosts that are complete,
 * so the views keep showing what they can while the user edits.
 */
import { isMap, isScalar, isSeq, parseDocument, type Document, type Node, type Pair, type YAMLMap } from 'yaml';
import { LineIndex, type Finding, type Range, ZERO_RANGE } from '../findings';
import { isIPv4, parseCidr, cidrsOverlap } from '../net';
import {
  CNIS,
  ROLES,
  splitEndpoint,
  type ClusterSpec,
  type HostSpec,
  type Inventory,
  type InventoryLocations,
  type Role,
  type SshSettings,
  type VrrpSettings,
} from './types';

export interface InventoryParseResult {
  /** Undefined only when the file has no usable `cluster` or `hosts` at all. */
  inventory?: Inventory;
  findings: Finding[];
  locations: InventoryLocations;
}


export function parseInventory(text: string): InventoryParseResult {
  const lines = new LineIndex(text);
  const findings: Finding[] = [];
  const locations: InventoryLocations = { hosts: new Map(), fields: new Map() };
  const doc = parseDocument(text, { prettyErrors: false, uniqueKeys: true });

  for (const err of doc.errors) {
    const [start, end] = err.pos;
    findings.push({
      rule: 'inventory/yaml-syntax',
      severity: 'error',
      message: firstLine(err.message),
      range: lines.range(start, Math.max(end, start + 1)),
    });
  }
  if (doc.errors.length && !isMap(doc.contents)) return { findings, locations };

  const ctx = new Checker(doc, lines, findings, locations);
  const inventory = ctx.inventory();
  return { inventory, findings, locations };
}

function firstLine(s: string): string {
  return s.split('\n')[0]!.trim();
}

class Checker {
  constructor(
    private readonly doc: Document,
    private readonly lines: LineIndex,
    private readonly findings: Finding[],
    private readonly locations: InventoryLocations,
  ) {}

  inventory(): Inventory | undefined {
    const root = this.doc.contents;
    if (!isMap(root)) {
      this.report('inventory/not-a-map', 'error', 'An inventory is a YAML mapping with `cluster`, `ssh` and `hosts`.', root);
      return undefined;
    }
    this.unknownKeys(root, ['cluster', 'ssh', 'hosts'], '');
    const clusterNode = root.get('cluster', true) as Node | undefined;
    const hostsNode = root.get('hosts', true) as Node | undefined;
    if (!clusterNode) this.report('inventory/missing-key', 'error', 'Missing `cluster`: the cluster name, version, endpoint and networks.', root, true);
    if (!hostsNode) this.report('inventory/missing-key', 'error', 'Missing `hosts`: the machines of the cluster.', root, true);
    const cluster = clusterNode ? this.cluster(clusterNode) : undefined;
    const ssh = this.ssh(root.get('ssh', true) as Node | undefined, 'ssh') ?? {};
    const hosts = hostsNode ? this.hosts(hostsNode) : [];
    if (!cluster) return undefined;
    const inv: Inventory = { cluster, ssh, hosts };
    this.crossChecks(inv);
    return inv;
  }

  private cluster(node: Node): ClusterSpec | undefined {
    if (!isMap(node)) {
      this.report('inventory/type', 'error', '`cluster` must be a mapping.', node);
      return undefined;
    }
    this.unknownKeys(node, ['name', 'kubernetesVersion', 'controlPlaneEndpoint', 'podSubnet', 'serviceSubnet', 'cni', 'imageRepository', 'registryMirrors', 'packages', 'cniManifest', 'ignorePreflightErrors', 'containerd', 'kubeadmExtraConfig'], 'cluster');
    const name = this.requiredString(node, 'name', 'cluster');
    const kubernetesVersion = this.requiredString(node, 'kubernetesVersion', 'cluster');
    const controlPlaneEndpoint = this.requiredString(node, 'controlPlaneEndpoint', 'cluster');
    const podSubnet = this.optionalString(node, 'podSubnet', 'cluster') ?? '10.244.0.0/16';
    const serviceSubnet = this.optionalString(node, 'serviceSubnet', 'cluster') ?? '10.96.0.0/12';
    const cni = (this.optionalString(node, 'cni', 'cluster') ?? 'flannel') as ClusterSpec['cni'];
    const imageRepository = this.optionalString(node, 'imageRepository', 'cluster');

    if (kubernetesVersion !== undefined && !/^v?\d+\.\d+\.\d+$/.test(kubernetesVersion)) {
      this.report('inventory/version', 'error', `kubernetesVersion "${kubernetesVersion}" is not a full version like 1.30.14.`, node.get('kubernetesVersion', true) as Node,
        false, 'kubeadm, kubelet and kubectl are pinned to this exact version; a partial one lets apt pick different patch levels on different nodes.');
    }
    if (controlPlaneEndpoint !== undefined && !splitEndpoint(controlPlaneEndpoint)) {
      this.report('inventory/endpoint', 'error', `controlPlaneEndpoint "${controlPlaneEndpoint}" must be host:port, e.g. 10.3.60.100:6443.`, node.get('controlPlaneEndpoint', true) as Node);
    }
    for (const key of ['podSubnet', 'serviceSubnet'] as const) {
      const value = key === 'podSubnet' ? podSubnet : serviceSubnet;
      if (node.has(key) && !parseCidr(value)) {
        this.report('inventory/cidr', 'error', `${key} "${value}" is not an IPv4 CIDR like 10.244.0.0/16.`, node.get(key, true) as Node);
      }
    }
    if (node.has('cni') && !(CNIS as readonly string[]).includes(cni)) {
      this.report('inventory/cni', 'error', `cni must be one of ${CNIS.join(', ')}.`, node.get('cni', true) as Node);
    }
    const cniManifest = this.optionalString(node, 'cniManifest', 'cluster');
    const ignorePreflightErrors = this.stringList(node.get('ignorePreflightErrors', true) as Node | undefined, 'cluster.ignorePreflightErrors');
    const kubeadmExtraConfig = this.optionalString(node, 'kubeadmExtraConfig', 'cluster');
    const containerd = this.containerd(node.get('containerd', true) as Node | undefined);
    const registryMirrors = this.mirrors(node.get('registryMirrors', true) as Node | undefined);
    const packages = this.stringMap(node.get('packages', true) as Node | undefined, 'cluster.packages', ['kubernetesApt', 'kubernetesAptKey', 'debianApt', 'debianAptKey']);
    if (name === undefined || kubernetesVersion === undefined || controlPlaneEndpoint === undefined) return undefined;
    return {
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
      ...(ignorePreflightErrors ? { ignorePreflightErrors } : {}),
      ...(containerd ? { containerd } : {}),
      ...(kubeadmExtraConfig !== undefined ? { kubeadmExtraConfig } : {}),
    };
  }

  private ssh(node: Node | undefined, path: string): SshSettings | undefined {
    if (!node) return undefined;
    if (!isMap(node)) {
      this.report('inventory/type', 'error', `\`${path}\` must be a mapping of user, port, identityFile, proxyJump.`, node);
      return undefined;
    }
    this.unknownKeys(node, ['user', 'port', 'identityFile', 'proxyJump'], path);
    const out: SshSettings = {};
    const user = this.optionalString(node, 'user', path);
    if (user !== undefined) out.user = user;
    const identityFile = this.optionalString(node, 'identityFile', path);
    if (identityFile !== undefined) out.identityFile = identityFile;
    const proxyJump = this.optionalString(node, 'proxyJump', path);
    if (proxyJump !== undefined) out.proxyJump = proxyJump;
    const port = node.get('port', true) as Node | undefined;
    if (port) {
      const value = isScalar(port) ? Number(port.value) : NaN;
      if (!Number.isInteger(value) || value < 1 || value > 65535) this.report('inventory/port', 'error', `${path}.port must be a TCP port (1–65535).`, port);
      else out.port = value;
    }
    return out;
  }

  private hosts(node: Node): HostSpec[] {
    if (!isSeq(node)) {
      this.report('inventory/type', 'error', '`hosts` must be a list of hosts.', node);
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
      this.report('inventory/type', 'error', `${path} must be a mapping with name, address and roles.`, node);
      return undefined;
    }
    this.unknownKeys(node, ['name', 'address', 'roles', 'ssh', 'vrrp', 'labels'], path);
    const name = this.requiredString(node, 'name', path);
    const address = this.requiredString(node, 'address', path);
    if (name !== undefined && !/^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/.test(name)) {
      this.report('inventory/host-name', 'error', `Host name "${name}" is not a valid node name (lowercase letters, digits, '-' and '.').`, node.get('name', true) as Node,
        false, 'The host name becomes the Kubernetes Node name, which must be a DNS-1123 subdomain.');
    }
    if (address !== undefined && !isIPv4(address)) {
      this.report('inventory/address', 'error', `Address "${address}" of ${name ?? path} is not an IPv4 address.`, node.get('address', true) as Node,
        false, 'Addresses feed certSANs, the HAProxy backend and the Keepalived subnet; a host name here would break all three.');
    }
    const roles = this.roles(node.get('roles', true) as Node | undefined, path, node);
    const ssh = this.ssh(node.get('ssh', true) as Node | undefined, `${path}.ssh`);
    const vrrp = this.vrrp(node.get('vrrp', true) as Node | undefined, `${path}.vrrp`);
    const labels = this.stringMap(node.get('labels', true) as Node | undefined, `${path}.labels`);
    if (vrrp && !roles.includes('loadbalancer')) {
      this.report('inventory/vrrp-role', 'warning', `${name ?? path} has vrrp settings but not the loadbalancer role.`, node.get('vrrp', true) as Node);
    }
    if (name === undefined || address === undefined) return undefined;
    return { name, address, roles, ...(ssh ? { ssh } : {}), ...(vrrp ? { vrrp } : {}), ...(labels ? { labels } : {}) };
  }

  private roles(node: Node | undefined, path: string, parent: YAMLMap): Role[] {
    if (!node) {
      this.report('inventory/missing-key', 'error', `${path} needs \`roles\`: loadbalancer, control-plane, worker or etcd.`, parent, true);
      return [];
    }
    if (!isSeq(node)) {
      this.report('inventory/type', 'error', `${path}.roles must be a list, e.g. [control-plane].`, node);
      return [];
    }
    const roles: Role[] = [];
    for (const item of node.items) {
      const value = isScalar(item) ? String(item.value) : '';
      if ((ROLES as readonly string[]).includes(value)) roles.push(value as Role);
      else this.report('inventory/role', 'error', `Unknown role "${value}": use ${ROLES.join(', ')}.`, item as Node);
    }
    return roles;
  }

  private vrrp(node: Node | undefined, path: string): VrrpSettings | undefined {
    if (!node) return undefined;
    if (!isMap(node)) {
      this.report('inventory/type', 'error', `${path} must be a mapping of state, priority, interface.`, node);
      return undefined;
    }
    this.unknownKeys(node, ['state', 'priority', 'interface', 'virtualRouterId'], path);
    const state = this.requiredString(node, 'state', path);
    const iface = this.requiredString(node, 'interface', path);
    const priority = this.integer(node, 'priority', path, 1, 254, true);
    const vrid = this.integer(node, 'virtualRouterId', path, 1, 255, false);
    if (state !== undefined && state !== 'MASTER' && state !== 'BACKUP') {
      this.report('inventory/vrrp-state', 'error', `${path}.state must be MASTER or BACKUP.`, node.get('state', true) as Node);
      return undefined;
    }
    if (state === undefined || iface === undefined || priority === undefined) return undefined;
    return { state, priority, interface: iface, ...(vrid !== undefined ? { virtualRouterId: vrid } : {}) };
  }

  private mirrors(node: Node | undefined): Record<string, string[]> | undefined {
    if (!node) return undefined;
    if (!isMap(node)) {
      this.report('inventory/type', 'error', 'cluster.registryMirrors maps a registry host to a list of mirror URLs.', node);
      return undefined;
    }
    const out: Record<string, string[]> = {};
    for (const pair of node.items as Pair<Node, Node>[]) {
      const key = isScalar(pair.key) ? String(pair.key.value) : '';
      const value = pair.value;
      const list = isSeq(value) ? value.items : value ? [value] : [];
      out[key] = list.filter(isScalar).map((s) => String(s.value));
    }
    return out;
  }

  private containerd(node: Node | undefined): ClusterSpec['containerd'] {
    if (!node) return undefined;
    if (!isMap(node)) {
      this.report('inventory/type', 'error', 'cluster.containerd must be a mapping, e.g. { restrictOomScoreAdj: true }.', node);
      return undefined;
    }
    this.unknownKeys(node, ['restrictOomScoreAdj'], 'cluster.containerd');
    const flag = node.get('restrictOomScoreAdj', true) as Node | undefined;
    if (!flag) return {};
    if (!isScalar(flag) || typeof flag.value !== 'boolean') {
      this.report('inventory/type', 'error', 'cluster.containerd.restrictOomScoreAdj must be true or false.', flag);
      return {};
    }
    return { restrictOomScoreAdj: flag.value };
  }

  private stringList(node: Node | undefined, path: string): string[] | undefined {
    if (!node) return undefined;
    if (!isSeq(node) || !node.items.every((i) => isScalar(i))) {
      this.report('inventory/type', 'error', `${path} must be a list of strings.`, node);
      return undefined;
    }
    return node.items.map((i) => String((i as { value: unknown }).value));
  }

  private stringMap(node: Node | undefined, path: string, known?: string[]): Record<string, string> | undefined {
    if (!node) return undefined;
    if (!isMap(node)) {
      this.report('inventory/type', 'error', `${path} must be a mapping.`, node);
      return undefined;
    }
    if (known) this.unknownKeys(node, known, path);
    const out: Record<string, string> = {};
    for (const pair of node.items as Pair<Node, Node>[]) {
      if (isScalar(pair.key) && isScalar(pair.value)) out[String(pair.key.value)] = String(pair.value.value);
    }
    return out;
  }

  private crossChecks(inv: Inventory): void {
    const byName = new Map<string, HostSpec>();
    const byAddress = new Map<string, HostSpec>();
    for (const host of inv.hosts) {
      const range = this.locations.hosts.get(host.name) ?? ZERO_RANGE;
      const sameName = byName.get(host.name);
      if (sameName) this.push('inventory/duplicate-name', 'error', `Host name ${host.name} is used twice.`, range, 'Node names must be unique; a second kubeadm join with the same name replaces the first node.');
      byName.set(host.name, host);
      const sameAddress = byAddress.get(host.address);
      if (sameAddress) this.push('inventory/duplicate-address', 'error', `${host.name} and ${sameAddress.name} share address ${host.address}.`, range, 'Two machines with one address break etcd peer URLs and the HAProxy backend.');
      byAddress.set(host.address, host);
    }
    const cps = inv.hosts.filter((h) => h.roles.includes('control-plane'));
    const lbs = inv.hosts.filter((h) => h.roles.includes('loadbalancer'));
    const hostsNode = this.root().get('hosts', true) as Node | undefined;
    if (hostsNode && isSeq(hostsNode)) {
      if (cps.length === 0) this.report('inventory/no-control-plane', 'error', 'No host has the control-plane role.', hostsNode);
      else if (cps.length % 2 === 0) this.report('inventory/even-control-plane', 'warning', `${cps.length} control-plane nodes: an even etcd cluster tolerates no more failures than one node fewer.`, hostsNode,
        false, 'etcd needs a majority (quorum); 4 members tolerate 1 failure, exactly like 3, but have one more machine to fail.');
      const masters = lbs.filter((h) => h.vrrp?.state === 'MASTER');
      if (lbs.length > 1 && masters.length !== 1) this.report('inventory/vrrp-master', 'error', `${masters.length} load balancers are VRRP MASTER; exactly one must be.`, hostsNode,
        false, 'Keepalived elects by priority; two MASTERs with equal priority flap the VIP between them.');
    }
    const endpoint = splitEndpoint(inv.cluster.controlPlaneEndpoint);
    const endpointNode = this.clusterField('controlPlaneEndpoint');
    if (endpoint && endpointNode) {
      const node = inv.hosts.find((h) => h.address === endpoint.host || h.name === endpoint.host);
      if (node && node.roles.includes('control-plane')) {
        this.report('inventory/endpoint-is-node', 'error', `controlPlaneEndpoint points at ${node.name}, a control-plane node, not at the VIP.`, endpointNode,
          false, 'If the endpoint is a node address, the whole cluster stays tied to that node and loses its API when the node goes down.');
      } else if (node) {
        this.report('inventory/endpoint-is-host', 'warning', `controlPlaneEndpoint is ${node.name}'s own address; use the Keepalived VIP so a second balancer can take over.`, endpointNode);
      }
    }
    const pod = parseCidr(inv.cluster.podSubnet);
    const svc = parseCidr(inv.cluster.serviceSubnet);
    if (pod && svc && cidrsOverlap(pod, svc)) {
      this.report('inventory/subnet-overlap', 'error', `podSubnet ${inv.cluster.podSubnet} overlaps serviceSubnet ${inv.cluster.serviceSubnet}.`, this.clusterField('podSubnet') ?? this.root(),
        false, 'Pod and Service addresses must never collide, or kube-proxy rules capture pod traffic.');
    }
    for (const host of inv.hosts) {
      if (pod && isIPv4(host.address) && cidrsOverlap(pod, { ...parseCidr(`${host.address}/32`)! })) {
        this.push('inventory/node-in-pod-subnet', 'error', `${host.name}'s address ${host.address} lies inside podSubnet ${inv.cluster.podSubnet}.`, this.locations.hosts.get(host.name) ?? ZERO_RANGE,
          'Flannel routes the pod subnet through the VXLAN device; a node address inside it becomes unreachable.');
      }
    }
  }

  // ---- helpers ----

  private root(): YAMLMap {
    return this.doc.contents as YAMLMap;
  }

  private clusterField(key: string): Node | undefined {
    const cluster = this.root().get('cluster', true);
    return isMap(cluster) ? (cluster.get(key, true) as Node | undefined) : undefined;
  }

  private requiredString(map: YAMLMap, key: string, path: string): string | undefined {
    const node = map.get(key, true) as Node | undefined;
    if (!node || (isScalar(node) && (node.value === null || node.value === ''))) {
      this.report('inventory/missing-key', 'error', `${path ? path + '.' : ''}${key} is required.`, node ?? map, !node);
      return undefined;
    }
    return this.scalarString(node, `${path}.${key}`);
  }

  private optionalString(map: YAMLMap, key: string, path: string): string | undefined {
    const node = map.get(key, true) as Node | undefined;
    if (!node || (isScalar(node) && node.value === null)) return undefined;
    return this.scalarString(node, `${path}.${key}`);
  }

  private scalarString(node: Node, path: string): string | undefined {
    if (!isScalar(node) || typeof node.value === 'object') {
      this.report('inventory/type', 'error', `${path} must be a single value.`, node);
      return undefined;
    }
    return String(node.value);
  }

  private integer(map: YAMLMap, key: string, path: string, min: number, max: number, required: boolean): number | undefined {
    const node = map.get(key, true) as Node | undefined;
    if (!node) {
      if (required) this.report('inventory/missing-key', 'error', `${path}.${key} is required.`, map, true);
      return undefined;
    }
    const value = isScalar(node) ? Number(node.value) : NaN;
    if (!Number.isInteger(value) || value < min || value > max) {
      this.report('inventory/range', 'error', `${path}.${key} must be an integer from ${min} to ${max}.`, node);
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
        this.report('inventory/unknown-key', 'warning', `Unknown key "${key}"${path ? ` in ${path}` : ''}${hint ? ` — did you mean "${hint}"?` : ''}.`, pair.key);
      }
    }
  }

  private rangeOf(node: Node | null | undefined): Range {
    const r = node?.range;
    return r ? this.lines.range(r[0], r[1]) : ZERO_RANGE;
  }

  /** Reports on a node; `keyOnly` narrows the range to the first line (for a missing key under a mapping). */
  private report(rule: string, severity: Finding['severity'], message: string, node: Node | null | undefined, keyOnly = false, why?: string): void {
    let range = this.rangeOf(node);
    if (keyOnly) range = this.lines.lineRange(range.start.line);
    this.push(rule, severity, message, range, why);
  }

  private push(rule: string, severity: Finding['severity'], message: string, range: Range, why?: string): void {
    this.findings.push({ rule, severity, message, range, ...(why ? { why } : {}) });
  }
}
