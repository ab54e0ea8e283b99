/**
 * Completion and hovers for the fields of inventory.yaml and kubeadm config files, without another extension: the
 * YAML path under the cursor and the schema lookups are core (core/yaml/fieldDocs.ts, loaded on the first request —
 * the kubeadm schemas are large), this is the thin editor side. Registered after activate() returned. The
 * `yamlValidation` contribution stays for users who have the YAML extension.
 */
import * as vscode from 'vscode';
import type * as FieldDocs from '../core/yaml/fieldDocs';
import type { ConfigDiagnostics } from './configDiagnostics';
import type { InventoryWorkspace } from './inventoryWorkspace';

let module_: typeof FieldDocs | undefined;
async function fieldDocs(): Promise<typeof FieldDocs> {
  // An import(): the build gives it a file of its own (the schemas with it), loaded on the first request.
  module_ ??= await import('../core/yaml/fieldDocs.js');
  return module_;
}

const SELECTOR: vscode.DocumentSelector = [
  { scheme: 'file', language: 'yaml' },
  { scheme: 'untitled', language: 'yaml' },
];
const KUBEADM_API = /^apiVersion:\s*['"]?(kubeadm\.k8s\.io|kubelet\.config\.k8s\.io|kubeproxy\.config\.k8s\.io)\//m;
/** Larger documents get no completion: two passes over the text per request must stay cheap. */
const MAX_CHARS = 512 * 1024;

export class FieldDocsProviders implements vscode.CompletionItemProvider, vscode.HoverProvider, vscode.Disposable {
  private registrations: vscode.Disposable[] = [];
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly config: ConfigDiagnostics,
    private readonly inventory: InventoryWorkspace,
  ) {
    this.timer = setTimeout(() => {
      this.registrations = [vscode.languages.registerCompletionItemProvider(SELECTOR, this, ' '), vscode.languages.registerHoverProvider(SELECTOR, this)];
    }, 0);
  }

  /** Which schema a document is read with, if any. */
  private kindOf(document: vscode.TextDocument): FieldDocs.DocsKind | undefined {
    if (document.getText().length > MAX_CHARS) return undefined;
    if (this.inventory.current?.uri.toString() === document.uri.toString() || /(^|\/)inventory\.ya?ml$/.test(document.uri.path)) return 'inventory';
    if (this.config.kindOf(document.uri) === 'kubeadm' || /(^|\/)kubeadm[^/]*\.ya?ml$/.test(document.uri.path) || KUBEADM_API.test(document.getText())) return 'kubeadm';
    return undefined;
  }

  async provideCompletionItems(document: vscode.TextDocument, position: vscode.Position, _token: vscode.CancellationToken, context: vscode.CompletionContext): Promise<vscode.CompletionItem[] | undefined> {
    // A space completes only after `key:`, `-`, `,`, `[` or `{` (not every indentation space).
    if (context.triggerCharacter === ' ' && !/[:\-,[{] $/.test(document.lineAt(position.line).text.slice(0, position.character))) return undefined;
    const kind = this.kindOf(document);
    if (!kind) return undefined;
    const found = (await fieldDocs()).completionsAt(kind, document.getText(), document.offsetAt(position));
    if (!found) return undefined;
    const range = new vscode.Range(document.positionAt(found.replaceStart), position);
    return found.items.map((c, i) => {
      const item = new vscode.CompletionItem(c.label, c.kind === 'field' ? vscode.CompletionItemKind.Field : vscode.CompletionItemKind.EnumMember);
      // A mapping or a list goes on the next line, one indentation step in; a field with values offers them at once.
      item.insertText = c.container === 'object' ? new vscode.SnippetString(`${c.label}:\n\t$0`) : c.container === 'array' ? new vscode.SnippetString(`${c.label}:\n\t- $0`) : c.insertText;
      item.range = range;
      if (c.detail) item.detail = c.detail;
      if (c.documentation) item.documentation = new vscode.MarkdownString().appendText(c.documentation);
      if (c.deprecated) item.tags = [vscode.CompletionItemTag.Deprecated];
      if (c.hasValues) item.command = { command: 'editor.action.triggerSuggest', title: vscode.l10n.t('Values') };
      item.sortText = `${c.required ? 0 : 1}${String(i).padStart(4, '0')}`;
      return item;
    });
  }

  async provideHover(document: vscode.TextDocument, position: vscode.Position): Promise<vscode.Hover | undefined> {
    const kind = this.kindOf(document);
    if (!kind) return undefined;
    const found = (await fieldDocs()).hoverAt(kind, document.getText(), document.offsetAt(position));
    if (!found) return undefined;
    return new vscode.Hover(new vscode.MarkdownString(found.markdown), new vscode.Range(document.positionAt(found.start), document.positionAt(found.end)));
  }

  dispose(): void {
    clearTimeout(this.timer);
    vscode.Disposable.from(...this.registrations).dispose();
  }
}
