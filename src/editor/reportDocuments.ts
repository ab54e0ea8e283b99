/**
 * Read-only documents the extension shows (plans, fact reports): a virtual file system scheme so
 * they open in a normal editor tab, can be searched and copied, and cannot be edited by mistake.
 */
import * as vscode from 'vscode';

export const REPORT_SCHEME = 'kubeadm-workbench';

export class ReportDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly texts = new Map<string, string>();
  private readonly changeEmitter = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changeEmitter.event;
  private readonly registration: vscode.Disposable;

  constructor() {
    this.registration = vscode.workspace.registerTextDocumentContentProvider(REPORT_SCHEME, this);
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.path) ?? '';
  }

  /** `text` as the read-only document `name`, not opened: one side of a diff (`vscode.diff`). */
  put(name: string, text: string): vscode.Uri {
    const uri = vscode.Uri.from({ scheme: REPORT_SCHEME, path: `/${name}` });
    this.texts.set(uri.path, text);
    this.changeEmitter.fire(uri);
    return uri;
  }

  /** Shows `text` as `name` (e.g. `plan.md`), replacing an earlier version of the same name. */
  async show(name: string, text: string, language?: string): Promise<vscode.TextEditor> {
    const uri = vscode.Uri.from({ scheme: REPORT_SCHEME, path: `/${name}` });
    this.texts.set(uri.path, text);
    this.changeEmitter.fire(uri);
    let doc = await vscode.workspace.openTextDocument(uri);
    if (language && doc.languageId !== language) doc = await vscode.languages.setTextDocumentLanguage(doc, language);
    return vscode.window.showTextDocument(doc, { preview: false });
  }

  dispose(): void {
    this.registration.dispose();
    this.changeEmitter.dispose();
  }
}
