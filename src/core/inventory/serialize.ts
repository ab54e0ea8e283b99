/**
 * Writes the inventory model as inventory.yaml in the style of examples/labs-k8s/inventory.yaml:
 * a block mapping for `cluster`, `ssh` on one flow line when it fits (block otherwise), and one flow-style
 * row per host with ssh, vrrp and labels wrapped onto continuation lines.
 * `parseInventory(serializeInventory(inv))` gives back `inv`.
 */
import { isScalar, parseDocument } from 'yaml';
import type { HostSpec, Inventory, SshSettings, VrrpSettings } from './types';

const MAX_LINE = 100;

export function serializeInventory(inv: Inventory, header?: string): string {
  const out: string[] = [];
  if (header) for (const line of header.split(/\r?\n/)) out.push(line ? `# ${line}` : '#');

  const c = inv.cluster;
  out.push('cluster:');
  out.push(`  name: ${scalar(c.name)}`);
  out.push(required('kubernetesVersion', c.kubernetesVersion ? quoted(c.kubernetesVersion) : '""', !c.kubernetesVersion, 'the exact version, e.g. "1.30.14"'));
  out.push(required('controlPlaneEndpoint', scalar(c.controlPlaneEndpoint), !c.controlPlaneEndpoint, 'host:port of the VIP on the load balancers'));
  out.push(`  podSubnet: ${scalar(c.podSubnet)}`);
  out.push(`  serviceSubnet: ${scalar(c.serviceSubnet)}`);
  out.push(`  cni: ${scalar(c.cni)}`);
  if (c.imageRepository !== undefined) out.push(`  imageRepository: ${scalar(c.imageRepository)}`);
  if (c.registryMirrors) {
    const entries = Object.entries(c.registryMirrors);
    if (!entries.length) out.push('  registryMirrors: {}');
    else {
      out.push('  registryMirrors:');
      for (const [registry, mirrors] of entries) out.push(`    ${key(registry)}: [${mirrors.map((m) => scalar(m, true)).join(', ')}]`);
    }
  }
  if (c.packages) {
    const entries = Object.entries(c.packages).filter(([, v]) => v !== undefined) as [string, string][];
    if (!entries.length) out.push('  packages: {}');
    else {
      out.push('  packages:');
      for (const [k, v] of entries) out.push(`    ${k}: ${scalar(v)}`);
    }
  }
  if (c.cniManifest !== undefined) out.push(`  cniManifest: ${scalar(c.cniManifest)}`);
  if (c.cniManifestSha256 !== undefined) out.push(`  cniManifestSha256: ${scalar(c.cniManifestSha256)}`);
  if (c.ignorePreflightErrors) out.push(`  ignorePreflightErrors: [${c.ignorePreflightErrors.map((e) => scalar(e, true)).join(', ')}]`);
  if (c.kubeadmExtraConfig !== undefined) out.push(`  kubeadmExtraConfig: ${scalar(c.kubeadmExtraConfig)}`);
  if (c.containerd) out.push(`  containerd: { ${c.containerd.restrictOomScoreAdj !== undefined ? `restrictOomScoreAdj: ${c.containerd.restrictOomScoreAdj}` : ''} }`.replace('{  }', '{}'));
  if (c.apiServerAuditLog !== undefined) out.push(`  apiServerAuditLog: ${c.apiServerAuditLog}`);

  const ssh = sshPairs(inv.ssh);
  if (ssh.length) {
    const flow = `ssh: { ${ssh.map(([k, v]) => `${k}: ${v}`).join(', ')} }`;
    if (flow.length <= MAX_LINE) out.push(flow);
    else {
      out.push('ssh:');
      for (const [k, v] of sshPairs(inv.ssh, false)) out.push(`  ${k}: ${v}`);
    }
  }

  if (!inv.hosts.length) out.push('hosts: []');
  else {
    out.push('hosts:');
    for (const host of inv.hosts) out.push(...hostRow(host));
  }
  return out.join('\n') + '\n';
}

function required(name: string, value: string, missing: boolean, hint: string): string {
  return `  ${name}: ${value}${missing ? `   # required: ${hint}` : ''}`;
}

function hostRow(h: HostSpec): string[] {
  const head = `  - { name: ${scalar(h.name, true)}, address: ${scalar(h.address, true)}, roles: [${h.roles.join(', ')}]`;
  const extras: string[] = [];
  if (h.ssh) {
    const pairs = sshPairs(h.ssh);
    extras.push(`ssh: { ${pairs.map(([k, v]) => `${k}: ${v}`).join(', ')} }`.replace('{  }', '{}'));
  }
  if (h.vrrp) extras.push(`vrrp: ${vrrp(h.vrrp)}`);
  if (h.labels) {
    const pairs = Object.entries(h.labels).map(([k, v]) => `${key(k, true)}: ${scalar(v, true)}`);
    extras.push(pairs.length ? `labels: { ${pairs.join(', ')} }` : 'labels: {}');
  }
  if (!extras.length) return [`${head} }`];
  const lines = [`${head},`];
  extras.forEach((e, i) => lines.push(`      ${e}${i === extras.length - 1 ? ' }' : ','}`));
  return lines;
}

function vrrp(v: VrrpSettings): string {
  const parts = [`state: ${v.state}`, `priority: ${v.priority}`, `interface: ${scalar(v.interface, true)}`];
  if (v.virtualRouterId !== undefined) parts.push(`virtualRouterId: ${v.virtualRouterId}`);
  return `{ ${parts.join(', ')} }`;
}

function sshPairs(s: SshSettings, flow = true): [string, string][] {
  const out: [string, string][] = [];
  if (s.user !== undefined) out.push(['user', scalar(s.user, flow)]);
  if (s.port !== undefined) out.push(['port', String(s.port)]);
  if (s.identityFile !== undefined) out.push(['identityFile', scalar(s.identityFile, flow)]);
  if (s.proxyJump !== undefined) out.push(['proxyJump', scalar(s.proxyJump, flow)]);
  return out;
}

function quoted(s: string): string {
  return JSON.stringify(s);
}

function key(s: string, flow = false): string {
  return scalar(s, flow);
}

/**
 * A string as a YAML scalar that reads back as the same string: plain when that is safe
 * (no indicators, not a number, boolean or null), double-quoted otherwise.
 */
export function scalar(s: string, flow = false): string {
  if (s === '' || !/^[A-Za-z0-9_./~@+:=-][A-Za-z0-9_./~@+:=() -]*$/.test(s) || /\s$/.test(s) || /: |:$| #/.test(s)) return quoted(s);
  if (flow && /[,[\]{}]/.test(s)) return quoted(s);
  // The flow context ends a plain scalar at ':' followed by a flow indicator; keep it simple and quote any ':' there.
  if (flow && s.includes(':') && !/^[\d.]+:\d+$/.test(s)) return quoted(s);
  const doc = parseDocument(`k: ${s}`, { prettyErrors: false });
  if (doc.errors.length) return quoted(s);
  const node = (doc.contents as { get(k: string, keep: true): unknown } | null)?.get('k', true);
  if (!isScalar(node) || node.value !== s) return quoted(s);
  return s;
}
