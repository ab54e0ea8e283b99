/**
 * Configuration drift, three ways. The truth of a kubeadm cluster lives in three places that drift apart silently:
 *  1. the workspace's kubeadm configuration (kubeadm-config.yaml beside the inventory, else what the bring-up
 *     generates from the inventory and its kubeadmExtraConfig);
 *  2. the cluster's ConfigMaps: kubeadm-config (ClusterConfiguration), kubelet-config (KubeletConfiguration) and
 *     kube-proxy (KubeProxyConfiguration) — what `kubeadm upgrade` and `join` regenerate the nodes from;
 *  3. each node's files: the static pod manifests of a control-plane node and every node's
 *     /var/lib/kubelet/config.yaml.
 *
 * Workspace ↔ ConfigMaps: every field the workspace sets must have that value in the cluster (defaults it leaves
 * out are kubeadm's); a component's extraArgs and the API server's certSANs are compared whole (a flag only the
 * ConfigMap has would be dropped by the next reconfigure).
 * ConfigMaps ↔ nodes: every extraArg of the ConfigMap is a flag of that component's manifest on every control-plane
 * node with that value; a flag that differs between the nodes (the node's own address and name read as
 * placeholders; the etcd member's own peer lists left out) differs on the nodes that disagree with the others; the
 * manifests' image tags are the ClusterConfiguration's version; and each node's kubelet config is the ConfigMap's.
 */
import {
  COMPONENTS, SECTION, documentsByKind, extraArgsOf, getIn, leaves, locate, manifestFlags, manifestImageTag, parseObject, sameValue, show,
  type ControlPlaneComponent, type Obj,
} from './kubeadmConfig';
import { catalogueLanguage, inEnglish, t } from '../l10n';

export type DriftLayer = 'workspace-cluster' | 'cluster-node';

export interface DriftFinding {
  layer: DriftLayer;
  /** ClusterConfiguration, KubeletConfiguration, KubeProxyConfiguration, or a node's file. */
  object: string;
  /** The node (cluster-node). */
  host?: string;
  component?: ControlPlaneComponent;
  /** `apiServer.extraArgs.profiling`, `--profiling`, `cgroupDriver`. */
  field: string;
  /** What the side the comparison starts from says (the workspace; the ConfigMap; the other nodes). */
  expected: string;
  actual: string;
  /** English, the stable text (`drift --json`, scripts). */
  message: string;
  /** The message in the display language, when that is not English (what the views and the report show). */
  localizedMessage?: string;
  /** The workspace file's line of the field (1-based), for a finding that has one. */
  location?: { path: string; line: number; column: number };
}

/** A finding's text as a person reads it: the display language's. */
export function findingText(f: Pick<DriftFinding, 'message' | 'localizedMessage'>): string {
  return f.localizedMessage ?? f.message;
}

/** A value as a message says it: show()'s, with "(not set)" in the display language. */
const said = (v: unknown): string => (v === undefined ? t('(not set)') : show(v));

/** `message` in English, and `localizedMessage` too when the display language words it otherwise. */
function worded(say: () => string): Pick<DriftFinding, 'message' | 'localizedMessage'> {
  const message = inEnglish(say);
  if (catalogueLanguage() === 'en') return { message };
  const localizedMessage = say();
  return localizedMessage === message ? { message } : { message, localizedMessage };
}

export interface WorkspaceConfig {
  /** The file the configuration was read from; undefined: generated from the inventory (`inventoryPath` then). */
  path?: string;
  text: string;
  /** A field not in `path` may be in the inventory's kubeadmExtraConfig file. */
  extra?: { path: string; text: string };
}

export interface ClusterConfigMaps {
  clusterConfiguration?: string;
  kubelet?: string;
  kubeProxy?: string;
}

export interface NodeFiles {
  host: string;
  address: string;
  controlPlane: boolean;
  manifests: Partial<Record<ControlPlaneComponent, string>>;
  kubeletConfig?: string;
  /** The node could not be read. */
  error?: string;
}

/** The extraArgs sections compared whole, and the certSANs list compared as a set. */
const WHOLE = [...COMPONENTS.map((c) => `${SECTION[c].join('.')}.extraArgs`), 'apiServer.certSANs'];
/** Fields whose values differ between the nodes by design (etcd's membership at the time the member joined). */
const NODE_OWN: Partial<Record<ControlPlaneComponent, readonly string[]>> = { etcd: ['initial-cluster', 'initial-cluster-state'] };
/** The kubelet config fields kubeadm writes per node (from the node's own criSocket), not from the ConfigMap. */
const KUBELET_NODE_OWN = ['containerRuntimeEndpoint'];

function where(ws: WorkspaceConfig, kind: string, path: readonly string[]): DriftFinding['location'] {
  for (const f of [ws.path ? { path: ws.path, text: ws.text } : undefined, ws.extra].filter((x): x is { path: string; text: string } => !!x)) {
    const at = locate(f.text, kind, path);
    if (at) return { path: f.path, ...at };
  }
  return undefined;
}

const norm = (kind: string, field: string, v: unknown): unknown => (kind === 'ClusterConfiguration' && field === 'kubernetesVersion' && typeof v === 'string' ? v.replace(/^v?/, 'v') : v);

/** The workspace's configuration against the cluster's ConfigMaps. */
export function compareWorkspaceCluster(ws: WorkspaceConfig, cm: ClusterConfigMaps): DriftFinding[] {
  const out: DriftFinding[] = [];
  const docs = documentsByKind(ws.text);
  const extraDocs = ws.extra ? documentsByKind(ws.extra.text) : new Map<string, Obj>();
  const pairs: [string, string | undefined, () => string][] = [
    ['ClusterConfiguration', cm.clusterConfiguration, () => t('the kubeadm-config ConfigMap')],
    ['KubeletConfiguration', cm.kubelet, () => t('the kubelet-config ConfigMap')],
    ['KubeProxyConfiguration', cm.kubeProxy, () => t('the kube-proxy ConfigMap')],
  ];
  for (const [kind, clusterText, cmName] of pairs) {
    const mine = docs.get(kind) ?? extraDocs.get(kind);
    if (!mine) continue;
    const theirs = parseObject(clusterText);
    if (!theirs) continue;
    const add = (path: string[], field: string, expected: string, actual: string, what: () => string) =>
      out.push({ layer: 'workspace-cluster', object: kind, field, expected, actual, ...worded(() => `${kind} ${field}: ${what()}`), ...(where(ws, kind, path) ? { location: where(ws, kind, path)! } : {}) });
    if (kind === 'ClusterConfiguration') {
      for (const c of COMPONENTS) {
        const section = SECTION[c];
        const w = extraArgsOf(getIn(mine, section));
        const k = extraArgsOf(getIn(theirs, section)) ?? new Map<string, string>();
        if (!w && !getIn(mine, section)) continue; // the workspace says nothing of this component
        const wArgs = w ?? new Map<string, string>();
        for (const [name, value] of wArgs) {
          if (k.get(name) !== value) add([...section, 'extraArgs', name], `${section.join('.')}.extraArgs.${name}`, value, k.get(name) ?? '(not set)', () => (k.has(name) ? t('the workspace says {0}, {1} {2}', value, cmName(), k.get(name)) : t('the workspace sets {0}; {1} does not have it', value, cmName())));
        }
        for (const [name, value] of k) {
          if (!wArgs.has(name)) add([...section, 'extraArgs'], `${section.join('.')}.extraArgs.${name}`, '(not set)', value, () => t('{0} has {1}; the workspace does not set it (a reconfigure from the workspace removes it)', cmName(), value));
        }
      }
      const wSans = getIn(mine, ['apiServer', 'certSANs']);
      if (Array.isArray(wSans)) {
        const kSans = (getIn(theirs, ['apiServer', 'certSANs']) as unknown[] | undefined) ?? [];
        const missing = wSans.map(String).filter((s) => !kSans.map(String).includes(s));
        const extra = kSans.map(String).filter((s) => !wSans.map(String).includes(s));
        if (missing.length || extra.length) {
          add(['apiServer', 'certSANs'], 'apiServer.certSANs', wSans.join(', '), kSans.join(', '), () => [missing.length ? t('{0} only in the workspace', missing.join(', ')) : '', extra.length ? t('{0} only in {1}', extra.join(', '), cmName()) : ''].filter(Boolean).join('; '));
        }
      }
    }
    for (const [field, value] of leaves(mine, ['apiVersion', 'kind', ...WHOLE])) {
      const other = getIn(theirs, field.split('.'));
      if (!sameValue(norm(kind, field, value), norm(kind, field, other))) {
        add(field.split('.'), field, show(value), show(other), () => t('the workspace says {0}, {1} {2}', said(value), cmName(), said(other)));
      }
    }
  }
  return out;
}

/** `value` with the node's own address and name as placeholders, so that two nodes' flags compare. */
function placeheld(value: string, node: NodeFiles): string {
  return value.split(node.address).join('<address>').split(node.host).join('<name>');
}

/** The cluster's ConfigMaps against each node's files. */
export function compareClusterNodes(cm: ClusterConfigMaps, nodes: readonly NodeFiles[]): DriftFinding[] {
  const out: DriftFinding[] = [];
  const cluster = parseObject(cm.clusterConfiguration);
  const version = typeof cluster?.kubernetesVersion === 'string' ? cluster.kubernetesVersion.replace(/^v?/, 'v') : undefined;
  const cps = nodes.filter((n) => n.controlPlane && !n.error);
  const add = (n: NodeFiles, object: string, component: ControlPlaneComponent | undefined, field: string, expected: string, actual: string, what: () => string) =>
    out.push({ layer: 'cluster-node', object, host: n.host, ...(component ? { component } : {}), field, expected, actual, ...worded(() => `${n.host} ${object}: ${field} ${what()}`) });
  for (const c of COMPONENTS) {
    const file = `/etc/kubernetes/manifests/${c}.yaml`;
    const flagsOf = new Map(cps.filter((n) => n.manifests[c] !== undefined).map((n) => [n, manifestFlags(parseObject(n.manifests[c]))]));
    for (const n of cps) if (n.manifests[c] === undefined) add(n, file, c, '(the file)', 'present', 'missing', () => t('is missing'));
    const wanted = extraArgsOf(getIn(cluster, SECTION[c])) ?? new Map<string, string>();
    for (const [n, flags] of flagsOf) {
      for (const [name, value] of wanted) {
        if (flags.get(name) !== value) add(n, file, c, `--${name}`, value, flags.get(name) ?? '(not set)', () => t('is {0}; the kubeadm-config ConfigMap says {1}', flags.has(name) ? flags.get(name) : t('not set'), value));
      }
      if (c !== 'etcd' && version) {
        const tag = manifestImageTag(parseObject(n.manifests[c]));
        if (tag && tag !== version) add(n, file, c, 'image', version, tag, () => t('tag is {0}; the kubeadm-config ConfigMap says {1}', tag, version));
      }
    }
    // What the nodes disagree on, beyond the ConfigMap's extraArgs: the value most nodes have is the expected one.
    const names = new Set([...flagsOf.values()].flatMap((f) => [...f.keys()]));
    for (const name of names) {
      if (wanted.has(name) || NODE_OWN[c]?.includes(name)) continue;
      const values = [...flagsOf].map(([n, f]) => ({ n, v: f.has(name) ? placeheld(f.get(name)!, n) : undefined }));
      const counts = new Map<string | undefined, number>();
      for (const { v } of values) counts.set(v, (counts.get(v) ?? 0) + 1);
      if (counts.size < 2) continue;
      const [majority, most] = [...counts].sort((a, b) => b[1] - a[1])[0]!;
      if (most * 2 <= values.length) {
        for (const { n, v } of values) add(n, file, c, `--${name}`, '(the nodes disagree)', v ?? '(not set)', () => t('differs between the control-plane nodes: {0}', values.map((x) => `${x.n.host} ${x.v ?? t('(not set)')}`).join(', ')));
        continue;
      }
      for (const { n, v } of values) {
        if (v !== majority) add(n, file, c, `--${name}`, majority ?? '(not set)', v ?? '(not set)', () => t('is {0} here, {1} on the other control-plane nodes', v ?? t('not set'), majority ?? t('not set')));
      }
    }
  }
  const kubelet = parseObject(cm.kubelet);
  if (kubelet) {
    for (const n of nodes.filter((x) => !x.error)) {
      const file = '/var/lib/kubelet/config.yaml';
      const local = parseObject(n.kubeletConfig);
      if (!local) {
        add(n, file, undefined, '(the file)', 'present', 'missing', () => t('is missing or unreadable'));
        continue;
      }
      const want = leaves(kubelet, KUBELET_NODE_OWN);
      const have = leaves(local, KUBELET_NODE_OWN);
      for (const [field, v] of want) if (!sameValue(v, have.get(field))) add(n, file, undefined, field, show(v), show(have.get(field)), () => t('is {0}; the kubelet-config ConfigMap says {1}', said(have.get(field)), said(v)));
      for (const [field, v] of have) if (!want.has(field)) add(n, file, undefined, field, '(not set)', show(v), () => t('is {0}; the kubelet-config ConfigMap does not set it', said(v)));
    }
  }
  return out;
}

export interface DriftReport {
  workspace: { path?: string; generated: boolean };
  findings: DriftFinding[];
  /** Nodes or objects that could not be read, by name. */
  unread: string[];
}

/**
 * `text` (a node's manifest) as the ConfigMap and the other nodes say it should be at `fixes`: each flag's line given
 * its expected value, added after the command's first word when missing, removed when it should not be set. The left
 * side of the diff editor for a drifted manifest: everything else is the node's own file.
 */
export function expectedManifest(text: string, fixes: readonly { flag: string; value: string | undefined }[]): string {
  let lines = text.split('\n');
  for (const { flag, value } of fixes) {
    const at = lines.findIndex((l) => new RegExp(`^\\s*- --${flag.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(=|$)`).test(l));
    if (value === undefined) {
      if (at >= 0) lines = [...lines.slice(0, at), ...lines.slice(at + 1)];
      continue;
    }
    const indent = /^(\s*)- --/.exec(lines.find((l) => /^\s*- --/.test(l)) ?? '    - --')?.[1] ?? '    ';
    const line = `${indent}- --${flag}=${value}`;
    if (at >= 0) lines[at] = line;
    else {
      const cmd = lines.findIndex((l) => /^\s*- command:\s*$|^\s*command:\s*$/.test(l));
      const insert = cmd >= 0 ? cmd + 2 : lines.length;
      lines = [...lines.slice(0, insert), line, ...lines.slice(insert)];
    }
  }
  return lines.join('\n');
}

/** The flags to correct in one node's manifest of `component`, from its findings (placeholders back to the node's own). */
export function manifestFixes(findings: readonly DriftFinding[], node: Pick<NodeFiles, 'host' | 'address'>, component: ControlPlaneComponent): { flag: string; value: string | undefined }[] {
  return findings
    .filter((f) => f.layer === 'cluster-node' && f.host === node.host && f.component === component && f.field.startsWith('--') && f.expected !== '(the nodes disagree)')
    .map((f) => ({ flag: f.field.slice(2), value: f.expected === '(not set)' ? undefined : f.expected.split('<address>').join(node.address).split('<name>').join(node.host) }));
}
