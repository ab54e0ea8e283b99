/**
 * The message protocol of the Diagnostics webview, imported by both sides: the extension
 * (src/webviews/diagnosticsPanel.ts) and the browser bundle (src/webview-ui/diagnostics/main.ts).
 * Types and pure validation only — nothing here may import `vscode` or touch the DOM.
 */

import type { Counted } from './fill';

export type Scope = 'file' | 'workspace';
export type SeverityName = 'error' | 'warning' | 'info';

export interface FindingRow {
  /** 0-based, like the editor. */
  line: number;
  character: number;
  endLine: number;
  endCharacter: number;
  severity: SeverityName;
  message: string;
  fixable: boolean;
  /** The title of the first fix (the button applies it). */
  fixTitle?: string;
}

export interface RuleGroup {
  rule: string;
  /** Worst severity among the findings. */
  severity: SeverityName;
  title?: string;
  /** Why the rule matters, one sentence. */
  why?: string;
  docs?: string;
  findings: FindingRow[];
}

export interface FileGroup {
  /** The file's URI as a string, echoed back in `reveal`. */
  uri: string;
  /** Workspace-relative path for display. */
  path: string;
  counts: Record<SeverityName, number>;
  rules: RuleGroup[];
}

/** The webview's words in the display language (diagnosticsPanel.ts localises them); `{0}` filled by the webview. */
export interface DiagnosticsStrings {
  errors: Counted;
  warnings: Counted;
  findings: Counted;
  files: Counted;
  /** "{0} info" */
  info: string;
  noFindings: string;
  checkingWorkspace: string;
  noWorkspaceFindings: string;
  /** "{0} in {1} of the workspace": the counts, the files. */
  inWorkspace: string;
  noFileOpen: string;
  /** "{0} in {1}": the counts, the file. */
  inFile: string;
  /** "No findings in {0}" */
  noFindingsIn: string;
  severities: Record<SeverityName, string>;
  /** "line {0}, column {1}" */
  where: string;
  /** "{0} at {1}: {2}{3}": severity, where, message, quick fix. */
  findingLabel: string;
  /** " (quick fix: {0})" */
  quickFixNote: string;
  available: string;
  applyFix: string;
  /** "Quick fix: {0} (line {1})" */
  quickFixAria: string;
  /** "Quick fix: {0}" */
  quickFix: string;
  /** "Rule {0}, {1}{2}": the rule, its findings, `whyNote` or nothing. */
  ruleLabel: string;
  /** ". Why: {0}" */
  whyNote: string;
  /** "Why: {0}" */
  why: string;
  openDocs: string;
  /** "Linting… " before the summary. */
  lintingPrefix: string;
  linting: string;
  openAFile: string;
  noFindingsAtAll: string;
}

export type HostToWebview = {
  type: 'update';
  strings: DiagnosticsStrings;
  scope: Scope;
  /** Path of the file the `file` scope shows, if any. */
  activeFile?: string;
  files: FileGroup[];
  /** True while lints are still running (the view shows a progress hint). */
  busy: boolean;
};

export type WebviewToHost =
  | { type: 'ready' }
  | { type: 'setScope'; scope: Scope }
  | { type: 'refresh' }
  | { type: 'reveal'; uri: string; line: number; character: number; endLine: number; endCharacter: number }
  | { type: 'openDocs'; url: string }
  /** Apply the first fix of the finding of `rule` that starts at line/character in `uri`. */
  | { type: 'applyFix'; uri: string; line: number; character: number; rule: string };

const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0;

/** The host trusts nothing from the webview: every message is checked before use. */
export function parseWebviewMessage(raw: unknown): WebviewToHost | undefined {
  if (!raw || typeof raw !== 'object') return undefined;
  const m = raw as Record<string, unknown>;
  switch (m.type) {
    case 'ready':
    case 'refresh':
      return { type: m.type };
    case 'setScope':
      return m.scope === 'file' || m.scope === 'workspace' ? { type: 'setScope', scope: m.scope } : undefined;
    case 'reveal':
      if (typeof m.uri !== 'string' || !isInt(m.line) || !isInt(m.character) || !isInt(m.endLine) || !isInt(m.endCharacter)) return undefined;
      return { type: 'reveal', uri: m.uri, line: m.line, character: m.character, endLine: m.endLine, endCharacter: m.endCharacter };
    case 'applyFix':
      if (typeof m.uri !== 'string' || !isInt(m.line) || !isInt(m.character) || typeof m.rule !== 'string' || m.rule.length > 200) return undefined;
      return { type: 'applyFix', uri: m.uri, line: m.line, character: m.character, rule: m.rule };
    case 'openDocs':
      return typeof m.url === 'string' && /^https:\/\//.test(m.url) ? { type: 'openDocs', url: m.url } : undefined;
    default:
      return undefined;
  }
}
