/**
 * Configuration drift read over SSH and compared three ways (src/core/drift/threeWay.ts): the workspace's kubeadm
 * configuration, the cluster's kubeadm-config / kubelet-config / kube-proxy ConfigMaps (read with a control-plane
 * node's admin.conf), and every node's static pod manifests and kubelet config. Read-only. The CLI's `drift`, the
 * editor's "Show Configuration Drift", and the upgrade's, renewal's and reconfigure's preflights read it here.
 */
import { join } from 'node:path';
import { markedSections } from '../core/backup/commands';
import { asRoot } from '../core/drill/commands';
import { COMPONENTS, getIn, parseObject } from '../core/drift/kubeadmConfig';
import { compareClusterNodes, compareWorkspaceCluster, findingText, type ClusterConfigMaps, type DriftFinding, type DriftReport, type NodeFiles, type WorkspaceConfig } from '../core/drift/threeWay';
import { errorMessage } from '../core/errors';
import { t } from '../core/l10n';
import { summarizeFailure } from '../core/text/failureSummary';
import { kubernetesHosts, hostsWithRole, type Inventory } from '../core/inventory/types';
import { KUBECTL } from '../core/phases/interrupted';
import { sh, type RemoteCommand, type SudoOptions } from '../core/ssh/command';
import type { SshTransport } from '../core/ssh/transport';
import { phaseConfigs, readKubeadmExtra } from './inputs';

export const WORKSPACE_KUBEADM_FILE = 'kubeadm-config.yaml';
export const KUBELET_CONFIG = '/var/lib/kubelet/config.yaml';

export interface DriftDeps {
  inventory: Inventory;
  /** The inventory's folder: kubeadm-config.yaml and the kubeadmExtraConfig are read there. */
  inventoryDir: string;
  readFile: (path: string) => Promise<string>;
  ssh: SshTransport;
  become: (host: string) => SudoOptions | undefined;
  signal?: AbortSignal;
}

export interface DriftReading extends DriftReport {
  config: WorkspaceConfig;
  configMaps: ClusterConfigMaps;
  nodes: NodeFiles[];
}

/**
 * The workspace's kubeadm configuration: kubeadm-config.yaml beside the inventory (what "Generate Cluster Configs"
 * writes and a reconfigure starts from), else the one the bring-up generates from the inventory and its
 * kubeadmExtraConfig.
 */
export async function workspaceConfig(inventory: Inventory, inventoryDir: string, readFile: (path: string) => Promise<string>): Promise<WorkspaceConfig> {
  const path = join(inventoryDir, WORKSPACE_KUBEADM_FILE);
  try {
    return { path, text: await readFile(path) };
  } catch {
    // none: the generated one
  }
  const extra = await readKubeadmExtra(inventory, inventoryDir, readFile);
  const text = phaseConfigs(inventory, extra).kubeadmInitConfig;
  return { text, ...(extra !== undefined && inventory.cluster.kubeadmExtraConfig ? { extra: { path: join(inventoryDir, inventory.cluster.kubeadmExtraConfig), text: extra } } : {}) };
}

/** The three ConfigMaps' configuration documents, each under its marker (an absent one prints nothing). */
export function configMapsCommand(): RemoteCommand {
  const get = (cm: string, key: string) => sh`${KUBECTL} -n kube-system get cm ${cm} --request-timeout=15s -o ${`jsonpath={.data.${key.replace(/\./g, '\\.')}}`}`;
  return sh`printf '\\036kw-cluster\\n' && ${get('kubeadm-config', 'ClusterConfiguration')} && printf '\\n\\036kw-kubelet\\n' && { ${get('kubelet-config', 'kubelet')} || true; } && printf '\\n\\036kw-proxy\\n' && { ${get('kube-proxy', 'config.conf')} || true; }`;
}

/** A node's files under markers: the four manifests (control plane) and the kubelet's config; a missing one says so. */
export function nodeFilesCommand(controlPlane: boolean): RemoteCommand {
  const files = [...(controlPlane ? COMPONENTS.map((c) => `/etc/kubernetes/manifests/${c}.yaml`) : []), KUBELET_CONFIG];
  return sh`for f in ${files}; do if [ -r "$f" ]; then printf '\\036kw-file %s\\n' "$f"; cat "$f"; echo; else printf '\\036kw-missing %s\\n' "$f"; fi; done`;
}

/** Parses nodeFilesCommand's output into path → text (absent: not in the map). */
export function parseNodeFiles(stdout: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of stdout.split('\u001ekw-').slice(1)) {
    const nl = part.indexOf('\n');
    const [tag, path] = part.slice(0, nl < 0 ? undefined : nl).split(' ');
    if (tag === 'file' && path) out.set(path, nl < 0 ? '' : part.slice(nl + 1).replace(/\n$/, ''));
  }
  return out;
}

async function readNode(deps: DriftDeps, h: Inventory['hosts'][number]): Promise<NodeFiles> {
  const controlPlane = h.roles.includes('control-plane');
  try {
    const r = await deps.ssh.exec(h.name, asRoot(nodeFilesCommand(controlPlane), deps.become(h.name)), { timeoutMs: 20_000, ...(deps.signal ? { signal: deps.signal } : {}) });
    const files = parseNodeFiles(r.stdout);
    const manifests: NodeFiles['manifests'] = {};
    if (controlPlane) for (const c of COMPONENTS) if (files.has(`/etc/kubernetes/manifests/${c}.yaml`)) manifests[c] = files.get(`/etc/kubernetes/manifests/${c}.yaml`)!;
    return { host: h.name, address: h.address, controlPlane, manifests, ...(files.has(KUBELET_CONFIG) ? { kubeletConfig: files.get(KUBELET_CONFIG)! } : {}) };
  } catch (e) {
    return { host: h.name, address: h.address, controlPlane, manifests: {}, error: summarizeFailure(e, h.name).cause };
  }
}

/** The ConfigMaps through the first control-plane node that answers, and every Kubernetes node's files. */
export async function readClusterSide(deps: DriftDeps): Promise<{ configMaps: ClusterConfigMaps; nodes: NodeFiles[]; unread: string[] }> {
  const nodesP = Promise.all(kubernetesHosts(deps.inventory).map((h) => readNode(deps, h)));
  const errors: string[] = [];
  let configMaps: ClusterConfigMaps | undefined;
  for (const h of hostsWithRole(deps.inventory, 'control-plane')) {
    try {
      const r = await deps.ssh.exec(h.name, asRoot(configMapsCommand(), deps.become(h.name)), { timeoutMs: 30_000, ...(deps.signal ? { signal: deps.signal } : {}) });
      const s = markedSections(r.stdout);
      const get = (k: string) => (s.get(k) ? { [k]: s.get(k)! } : {});
      const { cluster, kubelet, proxy } = { ...get('cluster'), ...get('kubelet'), ...get('proxy') } as Record<string, string | undefined>;
      configMaps = { ...(cluster ? { clusterConfiguration: cluster } : {}), ...(kubelet ? { kubelet } : {}), ...(proxy ? { kubeProxy: proxy } : {}) };
      break;
    } catch (e) {
      errors.push(`${h.name}: ${summarizeFailure(e, h.name).cause}`);
    }
  }
  const nodes = await nodesP;
  const unread = nodes.filter((n) => n.error).map((n) => `${n.host}: ${n.error}`);
  if (!configMaps) unread.unshift(t('the ConfigMaps (no control-plane node answered: {0})', errors.join('; ')));
  return { configMaps: configMaps ?? {}, nodes, unread };
}

/** Drift three ways, with what was read (the diff views show it). */
export async function readDrift(deps: DriftDeps): Promise<DriftReading> {
  const [config, side] = await Promise.all([workspaceConfig(deps.inventory, deps.inventoryDir, deps.readFile), readClusterSide(deps)]);
  const findings: DriftFinding[] = [...compareWorkspaceCluster(config, side.configMaps), ...compareClusterNodes(side.configMaps, side.nodes)];
  return { workspace: { ...(config.path ? { path: config.path } : {}), generated: !config.path }, findings, config, ...side };
}

/** One line per finding, grouped by layer: what `drift` prints and a preflight names. */
export function renderDrift(r: DriftReport): string {
  const out: string[] = [t('workspace kubeadm configuration: {0}', r.workspace.path ?? t('generated from the inventory (no kubeadm-config.yaml beside it)'))];
  const ws = r.findings.filter((f) => f.layer === 'workspace-cluster');
  const cn = r.findings.filter((f) => f.layer === 'cluster-node');
  out.push('', t('workspace ↔ cluster ConfigMaps: {0}', ws.length ? t('{0} difference(s)', ws.length) : t('in agreement')));
  for (const f of ws) out.push(`  ${f.location ? `${f.location.path}:${f.location.line}: ` : ''}${findingText(f)}`);
  out.push('', t('cluster ConfigMaps ↔ nodes: {0}', cn.length ? t('{0} difference(s)', cn.length) : t('in agreement')));
  for (const f of cn) out.push(`  ${findingText(f)}`);
  if (r.unread.length) out.push('', t('not read:'), ...r.unread.map((u) => `  ${u}`));
  return `${out.join('\n')}\n`;
}

/** What an operation does to the nodes' files, for naming the drift it would overwrite. */
export type Overwriter = 'upgrade' | 'renewal' | 'reconfigure';

/** The operation's name inside a sentence, in the display language. */
function overwriterName(op: Overwriter): string {
  return op === 'upgrade' ? t('upgrade') : op === 'renewal' ? t('renewal') : t('reconfigure');
}

/**
 * The drift an operation would overwrite or leave in place, as plan warnings (read-only; a failed read is a warning
 * too, never a refusal): the upgrade and the reconfigure regenerate every control-plane manifest from the
 * kubeadm-config ConfigMap (the upgrade also every node's kubelet config from kubelet-config), so a flag set by hand
 * on a node is lost; the renewal re-issues each certificate with the SANs it has, so certSANs of the ConfigMap that
 * a node's apiserver.crt lacks stay missing.
 */
export async function driftWarnings(deps: Pick<DriftDeps, 'inventory' | 'ssh' | 'become' | 'signal'>, op: Overwriter, apiserverSans?: ReadonlyMap<string, readonly string[]>): Promise<string[]> {
  let side;
  try {
    side = await readClusterSide({ ...deps, inventoryDir: '', readFile: () => Promise.reject(new Error(t('not read'))) });
  } catch (e) {
    return [t('configuration drift not read ({0}): what the {1} overwrites on the nodes is not known', errorMessage(e), overwriterName(op))];
  }
  const out: string[] = side.unread.map((u) => t('configuration drift not read on {0}', u));
  const findings = compareClusterNodes(side.configMaps, side.nodes);
  for (const f of findings) {
    if (f.component && op !== 'renewal') out.push(t('drift the {0} overwrites: {1} — kubeadm regenerates {2}.yaml from the kubeadm-config ConfigMap (put the flag there first: reconfigure)', overwriterName(op), findingText(f), f.component));
    if (!f.component && op === 'upgrade') out.push(t('drift the upgrade overwrites: {0} — kubeadm upgrade node rewrites it from the kubelet-config ConfigMap', findingText(f)));
  }
  if (op === 'renewal' && apiserverSans) {
    const sans = ((getIn(parseObject(side.configMaps.clusterConfiguration), ['apiServer', 'certSANs']) as unknown[] | undefined) ?? []).map(String);
    for (const [host, have] of apiserverSans) {
      const missing = sans.filter((s) => !have.includes(s));
      if (missing.length) out.push(t('drift the renewal keeps: {0}\'s apiserver.crt lacks {1} of the kubeadm-config ConfigMap\'s certSANs; the renewal re-issues it with the SANs it has (apply them with reconfigure)', host, missing.join(', ')));
    }
  }
  return out;
}
