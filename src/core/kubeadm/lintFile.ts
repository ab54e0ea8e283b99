/**
 * One kubeadm configuration file as its rules see it: the parsed documents, positions in the file, the findings
 * reported so far and the fixes the rules build (replace a value, add a key, migrate the file). The rules
 * themselves are in ./lint.ts; the version and host helpers here are shared with the generator and containerd.
 */
import type { Node, YAMLMap } from 'yaml';
import { LineIndex, type Finding, type Fix, type TextEdit } from '../findings';
import { splitEndpoint, type HostSpec, type Inventory } from '../inventory/types';
import type { LintContext, SourceFile } from '../lint/types';
import { migrateToV1beta4 } from './migrate';
import { parseChunk, stringAt, type DocChunk, type KubeadmDoc } from './parse';
import { finding, type KubeadmRuleId } from './rules';
import { KUBEADM_V1BETA3, KUBEADM_V1BETA4 } from './schema';
import { t } from '../l10n';

export function parseVersion(v: string | undefined): [number, number, number] | undefined {
  const m = /^v?(\d+)\.(\d+)(?:\.(\d+))?/.exec(v?.trim() ?? '');
  return m ? [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)] : undefined;
}

/** kubeadm API version to write for a Kubernetes version: v1beta4 from 1.31 on. */
export function kubeadmApiFor(kubernetesVersion: string): string {
  const v = parseVersion(kubernetesVersion);
  return v && (v[0] > 1 || v[1] >= 31) ? KUBEADM_V1BETA4 : KUBEADM_V1BETA3;
}

/** The host a document (or file) is for: nodeRegistration.name, then a host name in the file name, then the address. */
export function hostFor(inv: Inventory, nodeName: string | undefined, path: string, address?: string): HostSpec | undefined {
  if (nodeName) {
    const byName = inv.hosts.find((h) => h.name === nodeName);
    if (byName) return byName;
  }
  const base = path.split(/[\\/]/).pop() ?? '';
  const byFile = inv.hosts.filter((h) => base.includes(h.name)).sort((a, b) => b.name.length - a.name.length)[0];
  if (byFile) return byFile;
  return address ? inv.hosts.find((h) => h.address === address) : undefined;
}

/** The file under lint; ./lint.ts adds the rules. */
export abstract class KubeadmFile {
  protected readonly lines: LineIndex;
  protected readonly docs: KubeadmDoc[];
  protected readonly out: Finding[] = [];
  protected readonly inv: Inventory | undefined;
  protected migration: Fix | undefined | null = null;

  constructor(
    protected readonly file: SourceFile,
    protected readonly context: LintContext,
    chunks: DocChunk[],
  ) {
    this.lines = new LineIndex(file.text);
    this.docs = chunks.map(parseChunk);
    this.inv = context.inventory;
  }

  // ---- helpers ----

  /** Documents of the kubeadm API versions we know (others only get the unknown-api-version finding). */
  protected kubeadmDocs(): KubeadmDoc[] {
    return this.docs.filter((d) => d.apiVersion === KUBEADM_V1BETA3 || d.apiVersion === KUBEADM_V1BETA4);
  }

  protected all(kind: string): KubeadmDoc[] {
    return this.kubeadmDocs().filter((d) => d.kind === kind);
  }

  protected one(kind: string): KubeadmDoc | undefined {
    return this.all(kind)[0];
  }

  protected edit(start: number, end: number, newText: string): TextEdit {
    return { range: this.lines.range(start, end), newText };
  }

  protected abs(d: KubeadmDoc, node: Node | null | undefined): [number, number] {
    const r = node?.range;
    return r ? [d.chunk.start + r[0], d.chunk.start + Math.max(r[1], r[0] + 1)] : [d.chunk.start, d.chunk.start + 1];
  }

  protected report(rule: KubeadmRuleId, message: string, d: KubeadmDoc, node: Node | null | undefined, fixes?: Fix[], severity?: Finding['severity']): void {
    const [s, e] = this.abs(d, node);
    this.out.push(finding(rule, message, this.lines.range(s, e), fixes, severity));
  }

  /** A finding on the first line of the document (its apiVersion/kind), for things that are missing. */
  protected reportDoc(rule: KubeadmRuleId, message: string, d: KubeadmDoc, fixes?: Fix[], severity?: Finding['severity']): void {
    const kindNode = d.root?.get('kind', true) as Node | undefined;
    this.report(rule, message, d, kindNode ?? d.root, fixes, severity);
  }

  protected replaceFix(title: string, d: KubeadmDoc, node: Node, newText: string): Fix {
    const [s, e] = this.abs(d, node);
    return { title, edits: [this.edit(s, e, newText)] };
  }

  /** Start of the line after the one where `offset - 1` lies (where new lines go after a node). */
  protected nextLineStart(offset: number): number {
    const text = this.file.text;
    let o = offset;
    // Step back over trailing whitespace/newlines included in the node's range.
    while (o > 0 && /\s/.test(text[o - 1]!)) o--;
    const nl = text.indexOf('\n', o);
    return nl < 0 ? text.length : nl + 1;
  }

  protected insertText(at: number, body: string): string {
    return at === this.file.text.length && !this.file.text.endsWith('\n') ? '\n' + body : body;
  }

  /** Adds a top-level `key: value` to a document, after its kind line. */
  protected addTopLevel(title: string, d: KubeadmDoc, key: string, value: string): Fix {
    const kindNode = d.root!.get('kind', true) as Node | undefined;
    const [, e] = this.abs(d, kindNode ?? d.root);
    const at = this.nextLineStart(e);
    return { title, edits: [this.edit(at, at, this.insertText(at, `${key}: ${value}\n`))] };
  }

  /** Indentation of the keys of a block mapping. */
  protected indentOf(d: KubeadmDoc, map: YAMLMap): string {
    const first = map.items[0]?.key as Node | undefined;
    if (!first?.range) return '  ';
    const [s] = this.abs(d, first);
    return ' '.repeat(this.lines.position(s).character);
  }

  protected migrationFix(): Fix | undefined {
    if (this.migration !== null) return this.migration;
    const migrated = migrateToV1beta4(this.file.text);
    this.migration = migrated === this.file.text ? undefined : { title: t('Migrate this file to {0}', KUBEADM_V1BETA4), edits: [this.edit(0, this.file.text.length, migrated)] };
    return this.migration;
  }

  protected version(): string | undefined {
    return stringAt(this.one('ClusterConfiguration')?.root, 'kubernetesVersion') ?? this.inv?.cluster.kubernetesVersion;
  }

  protected vip(): { host: string; port: number; text: string } | undefined {
    if (!this.inv) return undefined;
    const ep = splitEndpoint(this.inv.cluster.controlPlaneEndpoint);
    return ep ? { ...ep, text: this.inv.cluster.controlPlaneEndpoint } : undefined;
  }

}
