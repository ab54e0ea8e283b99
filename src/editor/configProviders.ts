/**
 * Quick fixes and hovers for config files and inventory.yaml.
 * - Code actions: every Fix of a finding under the cursor becomes a quick fix (a WorkspaceEdit that may
 *   touch other files); it is marked preferred when the finding has exactly one fix.
 * - Hovers: over a flagged range the rule id and the docs link (the why only when the diagnostic lacks it); over a keyword that a rule is
 *   about, that rule's why (from RuleInfo).
 */
import * as vscode from 'vscode';
import type { Finding, Range } from '../core/findings';
import type { FileKind, RuleInfo } from '../core/lint/types';
import { RUNNER_RULES, TIMEOUT_RULE } from '../engine/lintRunner';
import type { ConfigDiagnostics } from './configDiagnostics';
import { findingsAt, planFixes, rulesForKeyword, type FixPlan } from '../core/lint/fixPlan';
import type { InventoryWorkspace } from './inventoryWorkspace';
import { loadLintRegistry } from './lintRegistry';
import type * as Registry from '../core/lint/registry';

const SELECTOR: vscode.DocumentSelector = [{ scheme: 'file' }, { scheme: 'untitled' }];
const KEYWORD = /[A-Za-z0-9_][A-Za-z0-9_.-]*/;

export class ConfigProviders implements vscode.CodeActionProvider, vscode.HoverProvider, vscode.Disposable {
  static readonly providedCodeActionKinds = [vscode.CodeActionKind.QuickFix];
  private readonly disposables: vscode.Disposable[];

  constructor(
    private readonly config: ConfigDiagnostics,
    private readonly inventory: InventoryWorkspace,
  ) {
    this.disposables = [
      vscode.languages.registerCodeActionsProvider(SELECTOR, this, { providedCodeActionKinds: ConfigProviders.providedCodeActionKinds }),
      vscode.languages.registerHoverProvider(SELECTOR, this),
    ];
  }

  private isInventory(document: vscode.TextDocument): boolean {
    return this.inventory.current?.uri.toString() === document.uri.toString();
  }

  private kindOf(document: vscode.TextDocument): FileKind | undefined {
    return this.isInventory(document) ? 'inventory' : this.config.kindOf(document.uri);
  }

  /** The findings that belong to the document's current text (none while a re-lint is pending). */
  private findings(document: vscode.TextDocument): Finding[] {
    if (this.isInventory(document)) return this.inventory.current?.result.findings ?? [];
    return this.config.currentFindings(document) ?? [];
  }

  provideCodeActions(document: vscode.TextDocument, range: vscode.Range | vscode.Selection, context: vscode.CodeActionContext): vscode.CodeAction[] {
    if (context.only && !context.only.contains(vscode.CodeActionKind.QuickFix) && !vscode.CodeActionKind.QuickFix.contains(context.only)) return [];
    const actions: vscode.CodeAction[] = [];
    const stopped = context.diagnostics.filter((d) => d.source === 'kubeadm-workbench' && (typeof d.code === 'object' ? d.code.value : d.code) === TIMEOUT_RULE);
    if (stopped.length) {
      const action = new vscode.CodeAction(vscode.l10n.t('Change the per-file lint time limit…'), vscode.CodeActionKind.QuickFix);
      action.command = { title: action.title, command: 'workbench.action.openSettings', arguments: ['kubeadmWorkbench.lint.timeoutMs'] };
      action.diagnostics = stopped;
      actions.push(action);
    }
    const findings = this.findings(document);
    if (!findings.length) return actions;
    const path = vscode.workspace.asRelativePath(document.uri, false);
    return actions.concat(planFixes(findings, fromVsRange(range), path).map(({ finding, plan }) => {
      const action = new vscode.CodeAction(plan.title, vscode.CodeActionKind.QuickFix);
      action.edit = this.toWorkspaceEdit(plan, document, path);
      action.isPreferred = plan.preferred;
      action.diagnostics = context.diagnostics.filter((d) => sameFinding(d, finding));
      return action;
    }));
  }

  toWorkspaceEdit(plan: FixPlan, document: vscode.TextDocument, documentPath: string): vscode.WorkspaceEdit {
    const edit = new vscode.WorkspaceEdit();
    for (const file of plan.files) {
      const uri = file.path === documentPath ? document.uri : vscode.Uri.parse(this.config.resolvePath(file.path, document.uri));
      for (const e of file.edits) edit.replace(uri, new vscode.Range(e.range.start.line, e.range.start.character, e.range.end.line, e.range.end.character), e.newText);
    }
    return edit;
  }

  async provideHover(document: vscode.TextDocument, position: vscode.Position): Promise<vscode.Hover | undefined> {
    const kind = this.kindOf(document);
    if (!kind) return undefined;
    // The rules' texts are the registry's (its own file, loaded on first use).
    const registry = await loadLintRegistry();
    const lookupRule = (id: string): RuleInfo | undefined => ruleInfo(registry, id);
    const flagged = findingsAt(this.findings(document), { line: position.line, character: position.character });
    if (flagged.length) {
      const md = new vscode.MarkdownString();
      for (const [i, f] of flagged.entries()) {
        if (i) md.appendMarkdown('\n\n---\n\n');
        // The diagnostic's own hover already shows the finding's why (toDiagnostic puts it in the message): say it once.
        appendRule(md, f.rule, f.why ? undefined : lookupRule(f.rule)?.why, f.docs ?? lookupRule(f.rule)?.docs, f.why ? lookupRule(f.rule)?.title : undefined);
      }
      return new vscode.Hover(md);
    }
    const wordRange = document.getWordRangeAtPosition(position, KEYWORD);
    if (!wordRange) return undefined;
    const line = document.lineAt(position.line).text;
    const hash = line.indexOf('#');
    if (hash >= 0 && hash < wordRange.start.character && isComment(line, hash)) return undefined;
    const rules = rulesForKeyword(registry.linterFor(kind)?.rules ?? [], document.getText(wordRange).replace(/[.:-]+$/, ''));
    if (!rules.length) return undefined;
    const md = new vscode.MarkdownString();
    for (const [i, r] of rules.entries()) {
      if (i) md.appendMarkdown('\n\n---\n\n');
      appendRule(md, r.id, r.why, r.docs, r.title);
    }
    return new vscode.Hover(md, wordRange);
  }

  dispose(): void {
    vscode.Disposable.from(...this.disposables).dispose();
  }
}

function ruleInfo(registry: typeof Registry, id: string): RuleInfo | undefined {
  return registry.ruleInfo(id) ?? RUNNER_RULES.find((r) => r.id === id);
}

function appendRule(md: vscode.MarkdownString, id: string, why: string | undefined, docs: string | undefined, title?: string): void {
  md.appendMarkdown('**');
  md.appendText(id);
  md.appendMarkdown('**');
  if (title) {
    md.appendMarkdown(' — ');
    md.appendText(title);
  }
  if (why) {
    md.appendMarkdown('\n\n');
    md.appendText(why);
  }
  if (docs && /^https?:\/\//.test(docs)) md.appendMarkdown(`\n\n[${vscode.l10n.t('Documentation')}](${docs.replace(/[()\s]/g, encodeURIComponent)})`);
}

/** `#` starts a comment when it begins the line or follows whitespace (not inside `a#b` or a quoted string). */
function isComment(line: string, hash: number): boolean {
  return hash === 0 || /\s/.test(line[hash - 1]!);
}

function fromVsRange(r: vscode.Range): Range {
  return { start: { line: r.start.line, character: r.start.character }, end: { line: r.end.line, character: r.end.character } };
}

function sameFinding(d: vscode.Diagnostic, f: Finding): boolean {
  const code = typeof d.code === 'object' ? d.code.value : d.code;
  return code === f.rule && d.range.start.line === f.range.start.line && d.range.start.character === f.range.start.character;
}
