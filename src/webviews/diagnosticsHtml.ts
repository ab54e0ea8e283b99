/**
 * The Diagnostics webview's HTML shell: a strict CSP (`default-src 'none'`, the script and the style
 * allowed by nonce only, the script loaded from the extension's dist through asWebviewUri) and the theme
 * through `--vscode-*` variables. Pure, so the CSP is unit-tested.
 */
import { inEnglish, t } from '../core/l10n';
import { escapeAttr, webviewPage } from './csp';

export { makeNonce } from './csp';

export interface ShellOptions {
  /** webview.cspSource */
  cspSource: string;
  /** webview.asWebviewUri(dist/webviews/diagnostics.js) as a string. */
  scriptUri: string;
  nonce: string;
  /** The shell's words; English unless the panel passes the display language's (diagnosticsShellTexts). */
  texts?: DiagnosticsShellTexts;
}

export interface DiagnosticsShellTexts {
  /** The language of these texts (`vscode.env.language`), the page's `lang`. */
  lang: string;
  title: string;
  /** The scope switch's accessible name, its two choices. */
  scope: string;
  openFile: string;
  workspace: string;
  lintAgain: string;
  /** The tree's accessible name. */
  tree: string;
}

/** The shell's words in the catalogue's language; `lang` names it for the page. */
export function diagnosticsShellTexts(lang: string): DiagnosticsShellTexts {
  return {
    lang,
    title: t('Config Diagnostics'),
    scope: t('Show findings of'),
    openFile: t('Open file'),
    workspace: t('Workspace'),
    lintAgain: t('Lint again'),
    tree: t('Findings grouped by file and rule; press Enter on a finding to open its line'),
  };
}

export const ENGLISH_SHELL: DiagnosticsShellTexts = inEnglish(() => diagnosticsShellTexts('en'));

export function diagnosticsHtml({ cspSource, scriptUri, nonce, texts = ENGLISH_SHELL }: ShellOptions): string {
  const x = (s: string): string => escapeAttr(s);
  return webviewPage({
    cspSource, nonce, scriptUri, title: texts.title, lang: texts.lang,
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
  <h1 id="title">${x(texts.title)}</h1>
  <vscode-radio-group id="scope" aria-label="${x(texts.scope)}">
    <vscode-radio name="scope" value="file" label="${x(texts.openFile)}">${x(texts.openFile)}</vscode-radio>
    <vscode-radio name="scope" value="workspace" label="${x(texts.workspace)}">${x(texts.workspace)}</vscode-radio>
  </vscode-radio-group>
  <vscode-button id="refresh" secondary aria-label="${x(texts.lintAgain)}">${x(texts.lintAgain)}</vscode-button>
  <span id="summary" role="status" aria-live="polite"></span>
</header>
<main>
  <vscode-tree id="tree" aria-label="${x(texts.tree)}" indent-guides="onHover"></vscode-tree>
  <p id="empty" hidden></p>
</main>`,
  });
}
