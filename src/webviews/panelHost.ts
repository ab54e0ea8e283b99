/**
 * What every panel of the extension shares, so that each panel file holds only its own content and messages:
 *  - the webview's options: scripts on, resources only from dist/webviews, its context not kept while hidden;
 *  - the shell's parts: the CSP source, the script's webview URI, a fresh nonce;
 *  - the handshake: the script says `ready` once it runs (the CSP let it), and only then is anything posted; a hidden
 *    panel's webview is discarded, so hiding un-readies the panel and the reloaded script says `ready` again;
 *  - one way to dispose (the panel closed by the user or by the extension), once.
 */
import * as vscode from 'vscode';
import { makeNonce } from './csp';

export interface ShellParts {
  cspSource: string;
  scriptUri: string;
  nonce: string;
}

/** A webview's options: scripts only from the extension's dist/webviews. */
export function webviewOptions(extensionUri: vscode.Uri): vscode.WebviewOptions & vscode.WebviewPanelOptions {
  return { enableScripts: true, localResourceRoots: [vscode.Uri.joinPath(extensionUri, 'dist', 'webviews')], retainContextWhenHidden: false };
}

export function createPanel(viewType: string, title: string, column: vscode.ViewColumn | { viewColumn: vscode.ViewColumn; preserveFocus?: boolean }, extensionUri: vscode.Uri): vscode.WebviewPanel {
  return vscode.window.createWebviewPanel(viewType, title, column, webviewOptions(extensionUri));
}

export abstract class PanelHost<In extends { type: string }, Out> implements vscode.Disposable {
  protected readonly disposables: vscode.Disposable[] = [];
  private ready = false;
  private disposed = false;

  protected constructor(
    readonly panel: vscode.WebviewPanel,
    protected readonly extensionUri: vscode.Uri,
    parse: (raw: unknown) => In | undefined,
  ) {
    panel.iconPath = vscode.Uri.joinPath(extensionUri, 'media', 'kubeadm.svg');
    this.disposables.push(
      panel.onDidDispose(() => this.dispose()),
      panel.webview.onDidReceiveMessage((raw) => {
        // Whatever the webview sends is checked against the protocol first: anything else is dropped.
        const msg = parse(raw);
        if (!msg) return;
        if (msg.type === 'ready') this.ready = true;
        void this.onMessage(msg);
      }),
      panel.onDidChangeViewState(() => {
        if (!panel.visible) this.ready = false;
      }),
    );
  }

  /** The shell's parts for dist/webviews/`script`.js. */
  protected shell(script: string): ShellParts {
    const webview = this.panel.webview;
    return { cspSource: webview.cspSource, scriptUri: webview.asWebviewUri(vscode.Uri.joinPath(this.extensionUri, 'dist', 'webviews', `${script}.js`)).toString(), nonce: makeNonce() };
  }

  /** True once the webview's script ran (the CSP let it) and said `ready`, until the panel is hidden. */
  get isReady(): boolean {
    return this.ready;
  }

  /** Posts to a ready webview; before `ready` nothing is sent (the script asks for its content when it is). */
  protected post(message: Out): Thenable<boolean> | undefined {
    return this.ready ? this.panel.webview.postMessage(message) : undefined;
  }

  /** Every message of the protocol, `ready` included (after the panel has marked itself ready). */
  protected abstract onMessage(msg: In): void | Promise<void>;

  /** What the panel lets go of before the listeners and the webview (its feeds, its `current`). */
  protected onDispose(): void {}

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.onDispose();
    vscode.Disposable.from(...this.disposables).dispose();
    this.disposables.length = 0;
    this.panel.dispose();
  }
}
