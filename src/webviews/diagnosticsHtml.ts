/**
 * The Diagnostics webview's HTML shell: a strict CSP (`default-src 'none'`, the script and the style
 * allowed by nonce only, the script loaded from the extension's dist through asWebviewUri) and the theme
 * through `--vscode-*` variables. Pure, so the CSP is unit-tested.
 */
import { webviewPage } from './csp';

export { makeNonce } from './csp';

export interface ShellOptions {
  /** webview.cspSource */
  cspSource: string;
  /** webview.asWebviewUri(dist/webviews/diagnostics.js) as a string. */
  scriptUri: string;
  nonce: string;
}

export function diagnosticsHtml({ cspSource, scriptUri, nonce }: ShellOptions): string {
  return webviewPage({
    cspSource, nonce, scriptUri, title: 'Config Diagnostics',
    style: `  body { margin: 0; padding: 0 12px 12px; color: var(--vscode-foreground); background: var(--vscode-editor-background);
         font-family: var(--vscode-font-family); font-size: var(--vscode-font-size); font-weight: var(--vscode-font-weight); }
  header { position: sticky; top: 0; z-index: 1; display: flex; flex-wrap: wrap; gap: 8px 16px; align-items: center;
           padding: 8px 0; background: var(--vscode-editor-background); border-bottom: 1px solid var(--vscode-panel-border, transparent); }
  h1 { font-size: 1.1em; font-weight: 600; margin: 0; }
  #summary { color: var(--vscode-descriptionForeground); }
  #empty { padding: 16px 4px; color: var(--vscode-descriptionForeground); }
  .sev-error { color: var(--vscode-editorError-foreground); }
  .sev-warning { color: var(--vscode-editorWarning-foreground); }
  .sev-info { color: var(--vscode-editorInfo-foreground); }
  .why { color: var(--vscode-descriptionForeground); white-space: normal; }
  .loc { color: var(--vscode-descriptionForeground); font-variant-numeric: tabular-nums; }
  .sr-only { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
  vscode-tree { margin-top: 4px; }
  vscode-button.fix { margin-left: 8px; }
  a { color: var(--vscode-textLink-foreground); }
  a:focus-visible { outline: 1px solid var(--vscode-focusBorder); }`,
    body: `<header>
  <h1 id="title">Config Diagnostics</h1>
  <vscode-radio-group id="scope" aria-label="Show findings of">
    <vscode-radio name="scope" value="file" label="Open file">Open file</vscode-radio>
    <vscode-radio name="scope" value="workspace" label="Workspace">Workspace</vscode-radio>
  </vscode-radio-group>
  <vscode-button id="refresh" secondary aria-label="Lint again">Lint again</vscode-button>
  <span id="summary" role="status" aria-live="polite"></span>
</header>
<main>
  <vscode-tree id="tree" aria-label="Findings grouped by file and rule; press Enter on a finding to open its line" indent-guides="onHover"></vscode-tree>
  <p id="empty" hidden></p>
</main>`,
  });
}
