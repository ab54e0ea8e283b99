/**
 * The field table: each inventory field, its rule and its type (./fields.ts). The loader applies it at the
 * field's node so the finding sits on the field's line; the generators and the plan apply it again to the
 * model they are handed (`assertValidInventory`), so nothing unvalidated can reach a file or a command even
 * when a caller skipped the loader's findings.
 */
import { parseAptLine } from './apt';
import { downloadProblems, sha256Hex } from './downloads';
import {
  cidrProblem,
  dnsLabel,
  dnsSubdomain,
  hostPort,
  downloadUrl,
  localPathText,
  imageRepository,
  interfaceName,
  kubernetesVersion,
  labelKey,
  labelValue,
  manifestRef,
  nodeAddress,
  mirrorEndpoint,
  preflightCheck,
  proxyJump,
  registryHost,
  userName,
  workspaceRelativePath,
  type FieldCheck,
} from './fields';
import type { InventoryRuleId, InventoryRuleName } from './rules';
import { CNIS, ROLES, type Inventory, type SshSettings } from './types';
import { t } from '../l10n';

export interface FieldSpec {
  rule: InventoryRuleId;
  check: FieldCheck;
}

const spec = (rule: InventoryRuleName, check: FieldCheck): FieldSpec => ({ rule: `inventory/${rule}`, check });

export const aptLine: FieldCheck = (v) => {
  const parsed = parseAptLine(v);
  return typeof parsed === 'string' ? parsed : undefined;
};

/** Pod subnet: the controller manager cuts a /24 per node from it; services: the API server takes /12 at most. */
export const podSubnet: FieldCheck = (v) => cidrProblem(v, 8, 24);
export const serviceSubnet: FieldCheck = (v) => cidrProblem(v, 12, 28);

export const CLUSTER_FIELDS = {
  name: spec('cluster-name', dnsLabel),
  kubernetesVersion: spec('version', kubernetesVersion),
  controlPlaneEndpoint: spec('endpoint', hostPort),
  podSubnet: spec('cidr', podSubnet),
  serviceSubnet: spec('cidr', serviceSubnet),
  imageRepository: spec('image-repository', imageRepository),
  cniManifest: spec('path', manifestRef),
  cniManifestSha256: spec('sha256', sha256Hex),
  kubeadmExtraConfig: spec('path', workspaceRelativePath),
} satisfies Record<string, FieldSpec>;

/** Switches of the cluster: a YAML boolean, nothing else (a "yes" string is not read as true). */
export const CLUSTER_SWITCHES = {
  apiServerAuditLog: 'inventory/audit-log',
} satisfies Record<string, InventoryRuleId>;

export const PACKAGE_FIELDS = {
  kubernetesApt: spec('apt-source', aptLine),
  kubernetesAptKey: spec('url', downloadUrl),
  kubernetesAptKeySha256: spec('sha256', sha256Hex),
  debianApt: spec('apt-source', aptLine),
  debianAptKey: spec('url', downloadUrl),
  debianAptKeySha256: spec('sha256', sha256Hex),
} satisfies Record<string, FieldSpec>;

export const SSH_FIELDS = {
  user: spec('ssh-user', userName),
  identityFile: spec('identity-file', localPathText),
  proxyJump: spec('proxy-jump', proxyJump),
} satisfies Record<string, FieldSpec>;

export const HOST_NAME = spec('host-name', dnsSubdomain);
export const HOST_ADDRESS = spec('address', nodeAddress);
export const VRRP_INTERFACE = spec('interface', interfaceName);
export const PREFLIGHT = spec('preflight-check', preflightCheck);
export const REGISTRY = spec('registry', registryHost);
export const MIRROR = spec('mirror', mirrorEndpoint);
export const LABEL_KEY = spec('label', labelKey);
export const LABEL_VALUE = spec('label', labelValue);

/** Every problem of the model's fields, as `path: problem` (empty when it is safe to generate from). */
export function modelProblems(inv: Inventory): string[] {
  const out: string[] = [];
  const at = (path: string, s: FieldSpec, v: unknown): void => {
    if (v === undefined) return;
    const bad = typeof v !== 'string' ? t('is not a string') : s.check(v);
    if (bad) out.push(`${path} ${JSON.stringify(v)} ${bad}`);
  };
  const c = inv.cluster;
  for (const [k, s] of Object.entries(CLUSTER_FIELDS)) at(`cluster.${k}`, s, (c as unknown as Record<string, unknown>)[k]);
  for (const [k, s] of Object.entries(PACKAGE_FIELDS)) at(`cluster.packages.${k}`, s, (c.packages as Record<string, unknown> | undefined)?.[k]);
  for (const k of Object.keys(CLUSTER_SWITCHES)) {
    const v = (c as unknown as Record<string, unknown>)[k];
    if (v !== undefined && typeof v !== 'boolean') out.push(t('cluster.{0} {1} is not true or false', k, JSON.stringify(v)));
  }
  for (const d of downloadProblems(c)) out.push(`cluster.${d.field}: ${d.message}`);
  if (!(CNIS as readonly string[]).includes(c.cni)) out.push(t('cluster.cni {0} is not supported', JSON.stringify(c.cni)));
  for (const [i, p] of (c.ignorePreflightErrors ?? []).entries()) at(`cluster.ignorePreflightErrors[${i}]`, PREFLIGHT, p);
  for (const [reg, mirrors] of Object.entries(c.registryMirrors ?? {})) {
    at('cluster.registryMirrors key', REGISTRY, reg);
    for (const m of mirrors) at(`cluster.registryMirrors.${reg}`, MIRROR, m);
  }
  const ssh = (path: string, s: SshSettings | undefined): void => {
    if (!s) return;
    for (const [k, f] of Object.entries(SSH_FIELDS)) at(`${path}.${k}`, f, (s as Record<string, unknown>)[k]);
    if (s.port !== undefined && !(Number.isInteger(s.port) && s.port >= 1 && s.port <= 65535)) out.push(t('{0}.port {1} is not a TCP port', path, s.port));
  };
  ssh('ssh', inv.ssh);
  inv.hosts.forEach((h, i) => {
    const p = `hosts[${i}]`;
    at(`${p}.name`, HOST_NAME, h.name);
    at(`${p}.address`, HOST_ADDRESS, h.address);
    if (!h.roles.length || h.roles.some((r) => !(ROLES as readonly string[]).includes(r))) out.push(t('{0}.roles {1} are not valid roles', p, JSON.stringify(h.roles)));
    ssh(`${p}.ssh`, h.ssh);
    if (h.vrrp) {
      at(`${p}.vrrp.interface`, VRRP_INTERFACE, h.vrrp.interface);
      if (h.vrrp.state !== 'MASTER' && h.vrrp.state !== 'BACKUP') out.push(t('{0}.vrrp.state is not MASTER or BACKUP', p));
      if (!(Number.isInteger(h.vrrp.priority) && h.vrrp.priority >= 1 && h.vrrp.priority <= 254)) out.push(t('{0}.vrrp.priority is not 1–254', p));
      const id = h.vrrp.virtualRouterId;
      if (id !== undefined && !(Number.isInteger(id) && id >= 1 && id <= 255)) out.push(t('{0}.vrrp.virtualRouterId is not 1–255', p));
    }
    for (const [k, v] of Object.entries(h.labels ?? {})) {
      at(`${p}.labels key`, LABEL_KEY, k);
      at(`${p}.labels.${k}`, LABEL_VALUE, v);
    }
  });
  return out;
}

export class InvalidInventoryError extends Error {}

/** Throws when the model holds a value its field does not accept: generators and plans call this first. */
export function assertValidInventory(inv: Inventory): void {
  const problems = modelProblems(inv);
  if (problems.length) throw new InvalidInventoryError(t('the inventory has invalid values (run check-inventory): {0}', problems.slice(0, 5).join('; ')));
}
