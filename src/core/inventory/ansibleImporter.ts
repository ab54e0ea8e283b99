/**
 * From Ansible's model to ours: hosts with their addresses, SSH settings, labels and VRRP settings, and the
 * cluster fields from Kubespray's variables, each value that cannot be used reported where it is.
 */
import { isIPv4, parseCidr } from '../net';
import { CNIS, ROLES, splitEndpoint, type Cni, type HostSpec, type Inventory, type SshSettings, type VrrpSettings } from './types';
import { shellSplit } from './ansibleIni';
import { GroupTree } from './ansibleGroups';
import type { AnsibleImportOptions, AnsibleImportResult, ImportMissing } from './ansible';
import { type AHost, BASTION_GROUPS, CLUSTER_GROUPS, ETCD_GROUPS, type Loc, Model, QUIET_VARS, Reporter, USED_VARS, type Var } from './ansibleModel';
import { t } from '../l10n';

// ---------------------------------------------------------------------------------------------
// From Ansible's model to ours

export interface HostSsh {
  user?: Var;
  port?: Var & { value: number };
  identityFile?: Var;
  proxyJump?: { value: string; loc: Loc };
}

export class Importer extends GroupTree {
  constructor(
    model: Model,
    rep: Reporter,
    file: string,
    private readonly options: AnsibleImportOptions,
  ) {
    super(model, rep, file);
  }

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
        this.rep.add('no-role', 'warning', t('{0} is in no Kubernetes group (kube_control_plane, kube_node, etcd, haproxy/loadbalancer/lb); it is not imported.', h.name), h.loc, this.file);
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
      this.rep.add('no-hosts', 'error', t('The inventory defines no hosts.'), undefined, this.file);
    } else if (cluster.length && !hosts.some((h) => h.roles.includes('control-plane'))) {
      this.rep.add('no-control-plane', 'error', t('No imported host is in kube_control_plane (or the legacy kube-master).'), this.model.groups.get('kube_control_plane')?.loc, this.file);
    }

    const missing: ImportMissing[] = [];
    const clusterVars = this.clusterVars(pending.find((p) => p.spec.roles.includes('control-plane'))?.host ?? pending[0]?.host);
    const kubernetesVersion = this.version(clusterVars);
    if (!kubernetesVersion) {
      missing.push('kubernetesVersion');
      this.rep.add('no-version', 'warning', t('No usable kube_version in the inventory or its group_vars: set cluster.kubernetesVersion (e.g. "1.30.14") before bring-up.'), undefined, this.file);
    }
    const controlPlaneEndpoint = this.endpoint(clusterVars, hosts);
    if (!controlPlaneEndpoint) {
      missing.push('controlPlaneEndpoint');
      this.rep.add('no-endpoint', 'warning', t('No loadbalancer_apiserver, apiserver_loadbalancer_domain_name or kube_vip_address: set cluster.controlPlaneEndpoint to the VIP on the load balancers (host:port).'), undefined, this.file,
        t('The endpoint must be a VIP that survives the loss of any one node, not a node address.'));
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

  /** A string value, or undefined (with a finding when it is a template or not a scalar). */
  private str(vars: Map<string, Var>, key: string): { value: string; loc: Loc } | undefined {
    const v = vars.get(key);
    if (!v || v.value === null || v.value === undefined || v.value === '') return undefined;
    if (typeof v.value === 'object') {
      this.once(v, () => this.rep.add('var-type', 'warning', t('{0} must be a single value here; it is ignored.', key), v.loc, this.file));
      return undefined;
    }
    const s = String(v.value);
    if (s.includes('{{') || s.includes('{%')) {
      this.once(v, () => this.rep.add('template', 'warning', t('{0} is a Jinja template ("{1}"), which the importer cannot evaluate; it is ignored.', key, s), v.loc, this.file));
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
      this.rep.add('host-renamed', 'warning', t('Host {0} is imported as {1}: Kubernetes node names are lowercase DNS names.', h.name, fixed), h.loc, this.file);
      return fixed;
    }
    this.rep.add('host-name', 'error', t('Host name "{0}" cannot be a Kubernetes node name (lowercase letters, digits, \'-\' and \'.\'); it is not imported.', h.name), h.loc, this.file);
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
        this.rep.add('address', 'warning', t('{0} "{1}" of {2} is not an IPv4 address; it is ignored.', key, v.value, h.name), v.loc, this.file);
      }
    }
    if (!chosen && isIPv4(h.name)) chosen = { value: h.name, key: 'name' };
    if (!chosen) {
      this.rep.add('no-address', 'error', t('{0} has no IPv4 address (set ip or ansible_host{1}); it is not imported.', h.name, tried.length ? `; found ${tried.join(', ')}` : ''), h.loc, this.file,
        t('Addresses feed certSANs, the HAProxy backend and the Keepalived subnet, so they must be IPv4 addresses, not names.'));
      return undefined;
    }
    const sshHost = this.str(vars, 'ansible_host') ?? this.str(vars, 'ansible_ssh_host');
    if (sshHost && chosen.key !== 'ansible_host' && sshHost.value !== chosen.value) {
      this.rep.add('ssh-address', 'warning', t('{0}: Ansible connects to {1} (ansible_host) but the cluster address is {2} ({3}); this tool connects to the cluster address, so it must be reachable (directly or through proxyJump).', h.name, sshHost.value, chosen.value, chosen.key), sshHost.loc, this.file);
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
      else this.once(port, () => this.rep.add('port', 'error', t('{0} "{1}" of {2} is not a TCP port (1–65535); the default is used.', port.key, String(port.value), h.name), port.loc, this.file));
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
    const tokens = shellSplit(args).map((tok) => tok.text);
    for (let i = 0; i < tokens.length; i++) {
      const tok = tokens[i]!;
      let option: string | undefined;
      if (tok === '-o') option = tokens[++i];
      else if (tok.startsWith('-o')) option = tok.slice(2);
      else if (tok === '-J') return tokens[i + 1] ? { value: tokens[i + 1]!, loc } : undefined;
      else if (tok.startsWith('-J')) return { value: tok.slice(2), loc };
      if (!option) continue;
      const m = /^(\w+)\s*[= ]\s*(.*)$/s.exec(option);
      if (!m) continue;
      const name = m[1]!.toLowerCase();
      const value = m[2]!.trim();
      if (name === 'proxyjump' && value && value !== 'none') return { value, loc };
      if (name === 'proxycommand') {
        const jump = jumpFromProxyCommand(value);
        if (jump) return { value: jump, loc };
        this.once(v, () => this.rep.add('proxy-command', 'warning', t('ProxyCommand "{0}" is not of the form "ssh -W %h:%p [user@]bastion"; set ssh.proxyJump by hand.', value), loc, this.file));
      }
    }
    return undefined;
  }

  /** Kubespray's [bastion] group: its first host becomes the ProxyJump of every other host. */
  private bastion(bastions: AHost[]): string | undefined {
    const b = bastions[0];
    if (!b) return undefined;
    if (bastions.length > 1) this.rep.add('bastion', 'warning', t('{0} hosts in [bastion]; only {1} is used.', bastions.length, b.name), bastions[1]!.loc, this.file);
    const vars = this.effectiveVars(b);
    const address = this.str(vars, 'ansible_host') ?? this.str(vars, 'ansible_ssh_host') ?? this.str(vars, 'ip');
    const host = address?.value ?? b.name;
    const user = this.str(vars, 'ansible_user') ?? this.str(vars, 'ansible_ssh_user');
    const portVar = vars.get('ansible_port') ?? vars.get('ansible_ssh_port');
    const port = portVar && /^\d+$/.test(String(portVar.value).trim()) ? Number(portVar.value) : undefined;
    if (portVar && (port === undefined || port < 1 || port > 65535)) {
      this.rep.add('port', 'error', t('{0} "{1}" of bastion {2} is not a TCP port (1–65535).', portVar.key, String(portVar.value), b.name), portVar.loc, this.file);
    }
    const validPort = port !== undefined && port >= 1 && port <= 65535 && port !== 22 ? port : undefined;
    return `${user ? `${user.value}@` : ''}${host}${validPort ? `:${validPort}` : ''}`;
  }

  private labels(vars: Map<string, Var>): Record<string, string> | undefined {
    const v = vars.get('node_labels');
    if (!v || v.value === null || v.value === undefined) return undefined;
    if (typeof v.value !== 'object' || Array.isArray(v.value)) {
      this.once(v, () => this.rep.add('var-type', 'warning', t('node_labels must be a mapping of label → value; it is ignored.'), v.loc, this.file));
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
      this.rep.add('no-vrrp', 'info', t('Load balancer {0}: no keepalived_interface; add vrrp: { state, priority, interface } to its row before bring-up.', h.name), h.loc, this.file);
      return undefined;
    }
    const stateVar = this.str(vars, 'keepalived_state') ?? this.str(vars, 'vrrp_state');
    let state: VrrpSettings['state'] = index === 0 ? 'MASTER' : 'BACKUP';
    if (stateVar) {
      const s = stateVar.value.toUpperCase();
      if (s === 'MASTER' || s === 'BACKUP') state = s;
      else this.rep.add('vrrp', 'warning', t('keepalived_state "{0}" must be MASTER or BACKUP; {1} is used.', stateVar.value, state), stateVar.loc, this.file);
    }
    let priority = Math.max(1, 100 - index);
    const prioVar = this.str(vars, 'keepalived_priority') ?? this.str(vars, 'vrrp_priority');
    if (prioVar) {
      const n = Number(prioVar.value);
      if (Number.isInteger(n) && n >= 1 && n <= 254) priority = n;
      else this.rep.add('vrrp', 'warning', t('VRRP priority "{0}" must be an integer from 1 to 254; {1} is used.', prioVar.value, priority), prioVar.loc, this.file);
    }
    const out: VrrpSettings = { state, priority, interface: ifaceName };
    const vridVar = ['keepalived_router_id', 'keepalived_virtual_router_id', 'virtual_router_id', 'vrrp_router_id'].map((k) => this.str(vars, k)).find((x) => x);
    if (vridVar) {
      const n = Number(vridVar.value);
      if (Number.isInteger(n) && n >= 1 && n <= 255) out.virtualRouterId = n;
      else this.rep.add('vrrp', 'warning', t('VRRP router id "{0}" must be an integer from 1 to 255; it is ignored.', vridVar.value), vridVar.loc, this.file);
    }
    return out;
  }

  /** Variables set in the inventory file that nothing reads: one info each, so the user knows they were dropped. */
  private reportUnusedVars(): void {
    const seen = new Set<string>();
    const visit = (v: Var): void => {
      if (!v.inInventory || USED_VARS.has(v.key) || QUIET_VARS.has(v.key) || seen.has(v.key)) return;
      seen.add(v.key);
      this.rep.add('ignored-var', 'info', t('Variable {0} has no counterpart in inventory.yaml and is not imported.', v.key), v.loc, this.file);
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
      this.rep.add('version', 'warning', t('kube_version "{0}" is not a full version like v1.30.14; it is ignored.', v.value), v.loc, this.file);
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
      this.rep.add('var-type', 'warning', t('loadbalancer_apiserver must be a mapping { address, port }; it is ignored.'), lb.loc, this.file);
    }
    host ??= this.str(vars, 'apiserver_loadbalancer_domain_name') ?? this.str(vars, 'kube_vip_address');
    if (!host) return undefined;
    if (host.value.includes('{{')) {
      this.rep.add('template', 'warning', t('The load balancer address "{0}" is a Jinja template; set cluster.controlPlaneEndpoint by hand.', host.value), host.loc, this.file);
      return undefined;
    }
    if (port === undefined) {
      const p = this.str(vars, 'loadbalancer_apiserver_port') ?? this.str(vars, 'kube_apiserver_port');
      port = p ? Number(p.value) : 6443;
    }
    if (!Number.isInteger(port) || port < 1 || port > 65535) {
      this.rep.add('port', 'error', t('The API server load balancer port "{0}" is not a TCP port (1–65535); 6443 is used.', String(port)), lb?.loc ?? host.loc, this.file);
      port = 6443;
    }
    const endpoint = `${host.value}:${port}`;
    const node = hosts.find((h) => h.address === host.value || h.name === host.value);
    if (!splitEndpoint(endpoint)) {
      this.rep.add('endpoint', 'warning', t('The API server endpoint "{0}" is not host:port.', endpoint), host.loc, this.file);
    } else if (node?.roles.includes('control-plane')) {
      this.rep.add('endpoint-is-node', 'warning', t('The API server endpoint {0} is {1}, a control-plane node; set cluster.controlPlaneEndpoint to the VIP.', endpoint, node.name), host.loc, this.file);
    }
    return endpoint;
  }

  private cidr(vars: Map<string, Var>, key: 'kube_pods_subnet' | 'kube_service_addresses'): string | undefined {
    const v = this.str(vars, key);
    if (!v) return undefined;
    if (parseCidr(v.value)) return v.value;
    this.rep.add('cidr', 'warning', t('{0} "{1}" is not an IPv4 CIDR; the default is used.', key, v.value), v.loc, this.file);
    return undefined;
  }

  private cni(vars: Map<string, Var>): Cni {
    const v = this.str(vars, 'kube_network_plugin');
    const fallback = this.options.cni ?? 'flannel';
    if (!v) return fallback;
    if ((CNIS as readonly string[]).includes(v.value)) return v.value as Cni;
    this.rep.add('cni', 'warning', t('kube_network_plugin "{0}" is not supported ({1}); {2} is used.', v.value, CNIS.join(', '), fallback), v.loc, this.file);
    return fallback;
  }
}

/** Destination of `ssh [opts] -W %h:%p [opts] [user@]host` as ProxyJump syntax, or undefined. */
export function jumpFromProxyCommand(command: string): string | undefined {
  const tok = shellSplit(command).map((x) => x.text);
  if (!tok.length || !/(^|\/)ssh$/.test(tok[0]!) || !tok.includes('-W')) return undefined;
  const withArg = new Set('bcDEeFIiJLlmOoPpQRSWw'.split(''));
  let user: string | undefined;
  let port: string | undefined;
  let dest: string | undefined;
  for (let i = 1; i < tok.length; i++) {
    const a = tok[i]!;
    if (a.startsWith('-') && a.length >= 2) {
      const flag = a[1]!;
      if (!withArg.has(flag)) continue;
      const arg = a.length > 2 ? a.slice(2) : tok[++i];
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
