/**
 * What a ClusterConfiguration lacks of the API server audit log the inventory turns on (cluster.apiServerAuditLog):
 * the flags and the two host mounts the generator writes (../generate/auditPolicy.ts). A kubeadmExtraConfig with its
 * own ClusterConfiguration replaces the generated one whole, so its apiServer extraArgs/extraVolumes decide: without
 * the flags the API servers write no audit log (the kubectl run timeline loses the API server's stages); with the
 * policy flag but no mount of the policy's folder, kube-apiserver cannot open the policy and does not start.
 */
import { isMap, isSeq, stringify, type Node, type YAMLMap } from 'yaml';
import { AUDIT_POLICY_PATH, apiServerAuditSettings } from '../generate/auditPolicy';
import { AUDIT_LOG_PATH } from '../timeline/audit';
import { nodeAt, scalarString } from './parse';
import { KUBEADM_V1BETA3 } from './schema';
import { t } from '../l10n';

export interface AuditVolume { name: string; hostPath: string; mountPath: string; readOnly: boolean; pathType: string }

export interface AuditLogGaps {
  /** Flags to add, or whose value differs from where the bring-up puts the policy and the timeline reads the log. */
  args: { name: string; want: string; have?: string }[];
  volumes: AuditVolume[];
  /** audit-policy-file is set but its folder is not mounted: kube-apiserver cannot open it and exits. */
  fatal: boolean;
}

/** The apiServer's extraArgs as name → value, from a v1beta3 map or a v1beta4 list of name/value pairs. */
function extraArgs(node: Node | undefined): Map<string, string> {
  const out = new Map<string, string>();
  if (isMap(node)) for (const p of node.items) {
    const k = scalarString(p.key as Node);
    const v = scalarString(p.value as Node);
    if (k !== undefined && v !== undefined) out.set(k, v);
  }
  if (isSeq(node)) for (const item of node.items) {
    if (!isMap(item)) continue;
    const k = scalarString(item.get('name', true) as Node);
    const v = scalarString(item.get('value', true) as Node);
    if (k !== undefined && v !== undefined) out.set(k, v);
  }
  return out;
}

function volumes(node: Node | undefined): { hostPath: string; mountPath: string }[] {
  if (!isSeq(node)) return [];
  return node.items.filter(isMap).map((v) => ({ hostPath: scalarString(v.get('hostPath', true) as Node) ?? '', mountPath: scalarString(v.get('mountPath', true) as Node) ?? '' }));
}

const trim = (p: string): string => p.replace(/\/+$/, '') || '/';

/** Whether some mount shows the host's `hostFile` at `inContainer` (the folder mounted, or the file itself). */
function mounted(vols: { hostPath: string; mountPath: string }[], inContainer: string, hostFile: string): boolean {
  return vols.some((v) => {
    const m = trim(v.mountPath);
    if (!m || (inContainer !== m && !inContainer.startsWith(m === '/' ? '/' : `${m}/`))) return false;
    return trim(v.hostPath) + inContainer.slice(m.length) === hostFile;
  });
}

export function auditLogGaps(cluster: YAMLMap, api: string): AuditLogGaps | undefined {
  const args = extraArgs(nodeAt(cluster, 'apiServer.extraArgs'));
  const vols = volumes(nodeAt(cluster, 'apiServer.extraVolumes'));
  const gaps: AuditLogGaps = { args: [], volumes: [], fatal: false };
  for (const [name, want] of [['audit-policy-file', AUDIT_POLICY_PATH], ['audit-log-path', AUDIT_LOG_PATH]] as const) {
    const have = args.get(name);
    if (have !== want) gaps.args.push({ name, want, ...(have !== undefined ? { have } : {}) });
  }
  const generated = apiServerAuditSettings(api).extraVolumes as AuditVolume[];
  const [policyVolume, logVolume] = generated;
  const policyIn = args.get('audit-policy-file');
  const logIn = args.get('audit-log-path');
  if (!mounted(vols, policyIn ?? AUDIT_POLICY_PATH, AUDIT_POLICY_PATH)) {
    gaps.volumes.push(policyVolume!);
    // The flag names a file the container cannot see: kube-apiserver stops at "open …: no such file or directory".
    if (policyIn !== undefined) gaps.fatal = true;
  }
  if (!mounted(vols, logIn ?? AUDIT_LOG_PATH, AUDIT_LOG_PATH)) gaps.volumes.push(logVolume!);
  return gaps.args.length || gaps.volumes.length ? gaps : undefined;
}

/** One sentence on what is missing, for the finding. */
export function describeGaps(g: AuditLogGaps): string {
  const parts = [
    ...g.args.map((a) => (a.have === undefined ? `no --${a.name}` : t('--{0} {1} instead of {2}', a.name, a.have, a.want))),
    ...g.volumes.map((v) => t('no mount of {0}', v.hostPath)),
  ];
  return parts.join(', ');
}

/** The missing flags as YAML items for the document's apiVersion (v1beta3 map entries, v1beta4 list items). */
/** `value` as block YAML (the yaml library's serializer), every line indented by `indent`. */
function blockLines(value: unknown, indent: string): string {
  return stringify(value).split('\n').filter((l) => l !== '').map((l) => `${indent}${l}\n`).join('');
}

export function argLines(g: AuditLogGaps, api: string, indent: string): string {
  const add = g.args.filter((a) => a.have === undefined);
  return api === KUBEADM_V1BETA3
    ? blockLines(Object.fromEntries(add.map((a) => [a.name, a.want])), indent)
    : blockLines(add.map((a) => ({ name: a.name, value: a.want })), indent);
}

export function volumeLines(g: AuditLogGaps, indent: string): string {
  return blockLines(g.volumes.map((v) => ({ name: v.name, hostPath: v.hostPath, mountPath: v.mountPath, readOnly: v.readOnly, pathType: v.pathType })), indent);
}
