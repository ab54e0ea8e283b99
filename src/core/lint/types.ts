/**
 * The config-intelligence contract: each kind of file has one linter; the registry in ./registry.ts
 * detects the kind of a file and runs its linter. The editor, the `lint` CLI and the phases all
 * go through `lintText` so they report the same findings.
 */
import type { Finding, Severity } from '../findings';
import type { Inventory } from '../inventory/types';

export type FileKind = 'inventory' | 'kubeadm' | 'haproxy' | 'keepalived' | 'containerd' | 'sysctl' | 'modules' | 'cni-manifest';

export interface SourceFile {
  /** Path as the user knows it (workspace-relative in the editor, as given on the command line). */
  path: string;
  text: string;
}

export interface LintContext {
  /** The cluster inventory, when one is known: most rules compare against it. */
  inventory?: Inventory;
  inventoryPath?: string;
  /** Other config files of the same workspace, for cross-file rules (same VIP, port, subnet...). */
  siblings?: SourceFile[];
  /**
   * For a keepalived*.conf: the keepalived*.conf files of the workspace outside its config set (./siblings.ts
   * vrrpFilesElsewhere), which the Keepalived linter pairs with it by VRRP instance wherever they lie.
   */
  vrrpElsewhere?: SourceFile[];
}

/** Static description of a rule, for hovers, the Diagnostics webview and `lint --format sarif`. */
export interface RuleInfo {
  id: string;
  severity: Severity;
  /** One sentence on what the rule checks. */
  title: string;
  /** One sentence on why it matters (the seed's reasoning). */
  why: string;
  docs?: string;
  fixable?: boolean;
  /** The kinds of repair its findings carry (see FixKind); set with `fixable`. */
  fixKinds?: FixKind[];
}

/** `edit`: edits in the flagged file; `other-files`: edits in other files as well (cross-file rules). */
export type FixKind = 'edit' | 'other-files';

/**
 * One kind of file. The registry (./registry.ts) runs the shared text guard (./textGuard.ts) before `lint`,
 * and afterwards adds the cross-file findings (./crossFile.ts) when `crossFile` is set — both with the
 * context `scope` narrows, so a file for other hosts is not compared with the balancers' settings.
 */
export interface FileLinter {
  kind: FileKind;
  rules: RuleInfo[];
  /** Cheap check by name and content; `matchesName` alone is enough for well-known paths. */
  detect(path: string, text: string): boolean;
  lint(file: SourceFile, context: LintContext): Finding[];
  /** The context this file is judged in (e.g. without the inventory when it is for other hosts). */
  scope?(file: SourceFile, context: LintContext): LintContext;
  /** Whether its facts are compared with the other files of the workspace (./crossFile.ts). */
  crossFile?: boolean;
}
