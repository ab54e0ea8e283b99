/**
 * Cross-file consistency: the same VIP, port, control-plane list and pod subnet across the inventory,
 * kubeadm-config.yaml, haproxy.cfg, keepalived.conf and the CNI manifest (flannel's net-conf.json).
 *
 * Each kind of file contributes "facts" through an extractor (FACT_EXTRACTORS, registered by the kind); a fact carries the range
 * of the line that states it, so a finding points at the line in the file that disagrees. The reference
 * is the inventory when there is one (the source of truth), otherwise the first other file stating the
 * fact (kubeadm first). Facts a file-specific rule already compares with the inventory are skipped here
 * so one mistake gives one finding.
 *
 * HAProxy and Keepalived facts come from their parsers (../haproxy/facts.ts, ../keepalived/facts.ts); their
 * linters compare with the inventory themselves and call `crossFileFindingsFor('haproxy' | 'keepalived', ...)`
 * for the comparison with the other files. A kind plugs in with `registerFactExtractor(kind, fn)`.
 */
import type { Finding, Range } from '../findings';
import { splitEndpoint, type Inventory } from '../inventory/types';
import { isFlannelManifest } from '../kubeadm/detect';
import { ruleTable } from './ruleTable';
import type { FileKind, LintContext, SourceFile } from './types';
import { t, msg } from '../l10n';

export interface Fact<T> {
  value: T;
  range: Range;
}

export interface ClusterFacts {
  /** The API VIP (host part of controlPlaneEndpoint, HAProxy bind address, Keepalived virtual_ipaddress). */
  vip?: Fact<string>;
  /** The API port on the VIP. */
  port?: Fact<number>;
  /** Control-plane addresses/names the file lists. */
  controlPlanes?: Fact<string[]>;
  /** `exact`: the list must equal the reference (HAProxy backend); `superset`: must contain it (certSANs). */
  controlPlanesMode?: 'exact' | 'superset';
  podSubnet?: Fact<string>;
}

export type FactExtractor = (file: SourceFile) => ClusterFacts | undefined;

const CROSS_FILE = ruleTable([
  { id: 'cross-file/vip', severity: 'error', title: msg('The VIP is the same in every file.'), why: msg('kubeadm, HAProxy and Keepalived must agree on the VIP, or clients reach an address nobody serves.') },
  { id: 'cross-file/port', severity: 'error', title: msg('The API port on the VIP is the same in every file.'), why: msg('The port in controlPlaneEndpoint is where HAProxy must listen; a mismatch breaks every kubeconfig.') },
  { id: 'cross-file/control-planes', severity: 'error', title: msg('The control-plane list is the same in every file.'), why: msg('A control-plane node missing from the HAProxy backend or the certSANs gets no traffic or fails TLS.') },
  { id: 'cross-file/pod-subnet', severity: 'error', title: msg('The pod subnet is the same in the inventory, kubeadm and the CNI manifest.'), why: msg('Flannel allocates pod addresses from its Network; kubeadm allocates node pod ranges from podSubnet; they must be the same range.') },
]);

export const CROSS_FILE_RULES = CROSS_FILE.rules;





/**
 * The extractors of the kinds loaded so far: each lives with its kind (../kubeadm/facts.ts, ../haproxy/facts.ts,
 * ../keepalived/facts.ts), so that this comparison does not load every parser. The registry registers them all; the
 * command line and the lint worker register those of the kinds a request's file and its siblings have
 * (../../engine/lintModules.ts).
 */
export const FACT_EXTRACTORS: Partial<Record<FileKind, FactExtractor>> = {};

export function registerFactExtractor(kind: FileKind, extractor: FactExtractor): void {
  FACT_EXTRACTORS[kind] = extractor;
}

export function registerFactExtractors(extractors: Partial<Record<FileKind, FactExtractor>>): void {
  for (const [kind, extractor] of Object.entries(extractors)) registerFactExtractor(kind as FileKind, extractor);
}

/** Guesses the kind of a sibling for fact extraction (without the registry, to avoid an import cycle). */
export function siblingKind(file: SourceFile): FileKind | undefined {
  const base = file.path.split(/[\\/]/).pop() ?? '';
  if (/^inventory\.ya?ml$/.test(base)) return 'inventory';
  if (isFlannelManifest(file.path, file.text)) return 'cni-manifest';
  if (/^kubeadm[^\\/]*\.ya?ml$/i.test(base) || /^apiVersion:\s*["']?kubeadm\.k8s\.io\//m.test(file.text.slice(0, 65536))) return 'kubeadm';
  if (/haproxy[^\\/]*\.cfg$/i.test(base)) return 'haproxy';
  if (/keepalived[^\\/]*\.conf$/i.test(base)) return 'keepalived';
  return undefined;
}

interface Reference<T> {
  value: T;
  source: string;
}

/** Which facts of a kind a file-specific rule already checks against the inventory. */
const COVERED_WITH_INVENTORY: Partial<Record<FileKind, Array<keyof ClusterFacts>>> = {
  kubeadm: ['vip', 'port', 'controlPlanes'],
  haproxy: ['vip', 'port', 'controlPlanes'],
  keepalived: ['vip'],
};

function inventoryReference(inv: Inventory, path: string | undefined): Partial<Record<'vip' | 'port' | 'controlPlanes' | 'podSubnet', Reference<unknown>>> {
  const source = path ? t('the inventory ({0})', path.split(/[\\/]/).pop()) : t('the inventory');
  const ep = splitEndpoint(inv.cluster.controlPlaneEndpoint);
  const cps = inv.hosts.filter((h) => h.roles.includes('control-plane'));
  return {
    ...(ep ? { vip: { value: ep.host, source }, port: { value: ep.port, source } } : {}),
    controlPlanes: { value: cps.map((h) => h.address), source },
    podSubnet: { value: inv.cluster.podSubnet, source },
  };
}

/** Findings for one file, comparing its facts with the inventory or, without one, with its siblings. */
export function crossFileFindingsFor(kind: FileKind, file: SourceFile, context: LintContext): Finding[] {
  const extractor = FACT_EXTRACTORS[kind];
  if (!extractor) return [];
  let facts: ClusterFacts | undefined;
  try {
    facts = extractor(file);
  } catch {
    return [];
  }
  if (!facts) return [];
  const refs: Record<string, Reference<unknown> | undefined> = {};
  const covered = context.inventory ? (COVERED_WITH_INVENTORY[kind] ?? []) : [];
  if (context.inventory) Object.assign(refs, inventoryReference(context.inventory, context.inventoryPath));
  else {
    const others = (context.siblings ?? [])
      .filter((s) => s.path !== file.path)
      .map((s) => ({ s, k: siblingKind(s) }))
      .filter((x): x is { s: SourceFile; k: FileKind } => !!x.k && x.k !== 'inventory' && !!FACT_EXTRACTORS[x.k])
      .sort((a, b) => (a.k === 'kubeadm' ? -1 : b.k === 'kubeadm' ? 1 : 0));
    for (const { s, k } of others) {
      let f: ClusterFacts | undefined;
      try {
        f = FACT_EXTRACTORS[k]!(s);
      } catch {
        continue;
      }
      if (!f) continue;
      const source = s.path.split(/[\\/]/).pop()!;
      for (const key of ['vip', 'port', 'podSubnet'] as const) if (f[key] && !refs[key]) refs[key] = { value: f[key]!.value, source };
      if (f.controlPlanes && f.controlPlanesMode === 'exact' && !refs.controlPlanes) refs.controlPlanes = { value: f.controlPlanes.value, source };
    }
  }
  const out: Finding[] = [];
  const push = (rule: Parameters<typeof CROSS_FILE.finding>[0], message: string, range: Range) => out.push(CROSS_FILE.finding(rule, message, range));
  if (facts.vip && refs.vip && !covered.includes('vip') && facts.vip.value !== refs.vip.value) {
    push('cross-file/vip', t('The VIP here is {0}, but {1} says {2}.', facts.vip.value, refs.vip.source, String(refs.vip.value)), facts.vip.range);
  }
  if (facts.port && refs.port && !covered.includes('port') && facts.port.value !== refs.port.value) {
    push('cross-file/port', t('The API port here is {0}, but {1} says {2}.', facts.port.value, refs.port.source, String(refs.port.value)), facts.port.range);
  }
  if (facts.podSubnet && refs.podSubnet && !covered.includes('podSubnet') && facts.podSubnet.value.trim() !== String(refs.podSubnet.value)) {
    push('cross-file/pod-subnet', t('The pod subnet here is {0}, but {1} says {2}.', facts.podSubnet.value, refs.podSubnet.source, String(refs.podSubnet.value)), facts.podSubnet.range);
  }
  if (facts.controlPlanes && refs.controlPlanes && !covered.includes('controlPlanes')) {
    const want = refs.controlPlanes.value as string[];
    const have = new Set(facts.controlPlanes.value);
    const missing = want.filter((w) => !have.has(w));
    const extra = facts.controlPlanesMode === 'exact' ? facts.controlPlanes.value.filter((h) => !want.includes(h)) : [];
    if (missing.length || extra.length) {
      push('cross-file/control-planes', missing.length && extra.length
        ? t('The control-plane list here lacks {0} and has {1} extra compared with {2}.', missing.join(', '), extra.join(', '), refs.controlPlanes.source)
        : missing.length
          ? t('The control-plane list here lacks {0} compared with {1}.', missing.join(', '), refs.controlPlanes.source)
          : t('The control-plane list here has {0} extra compared with {1}.', extra.join(', '), refs.controlPlanes.source), facts.controlPlanes.range);
    }
  }
  return out;
}

/** Workspace-wide: cross-file findings of every file, each with its `file`. */
export function crossFileFindings(files: SourceFile[], context: Omit<LintContext, 'siblings'> = {}): Finding[] {
  const out: Finding[] = [];
  for (const f of files) {
    const kind = siblingKind(f);
    if (!kind || kind === 'inventory') continue;
    for (const finding of crossFileFindingsFor(kind, f, { ...context, siblings: files })) out.push({ ...finding, file: f.path });
  }
  return out;
}
