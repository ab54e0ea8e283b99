/**
 * The preflight webview's HTML shell: CSP `default-src 'none'`, script and style by nonce only, colours from the
 * theme (a check's state by the editor's error, warning and success colours, and by its word, never by colour alone).
 */
import { inEnglish, t } from '../core/l10n';
import { escapeAttr, webviewPage } from './csp';

/** The shell's words; English unless the panel passes the display language's (preflightShellTexts). */
export interface PreflightShellTexts {
  /** The language of these texts (`vscode.env.language`), the page's `lang`. */
  lang: string;
  runAgain: string;
  /** The report's accessible name. */
  checks: string;
}

/** The shell's words in the catalogue's language; `lang` names it for the page. */
export function preflightShellTexts(lang: string): PreflightShellTexts {
  return { lang, runAgain: t('Run Again'), checks: t('Preflight checks by host') };
}

export const ENGLISH_SHELL: PreflightShellTexts = inEnglish(() => preflightShellTexts('en'));

export function preflightHtml(opts: { cspSource: string; scriptUri: string; nonce: string; title: string; texts?: PreflightShellTexts }): string {
  const { cspSource, scriptUri, nonce } = opts;
  const texts = opts.texts ?? ENGLISH_SHELL;
  return webviewPage({
    cspSource, nonce, scriptUri, title: opts.title, lang: texts.lang,
    style: `  body { margin: 0; padding: 0 16px 24px; color: var(--vscode-foreground); background: var(--vscode-editor-background);
         font-family: var(--vscode-font-family); font-size: var(--vscode-font-size); line-height: 1.4; }
  header { position: sticky; top: 0; z-index: 1; display: flex; flex-wrap: wrap; gap: 8px 16px; align-items: center; padding: 8px 0;
           background: var(--vscode-editor-background); border-bottom: 1px solid var(--vscode-panel-border, transparent); }
  h1 { font-size: 1.15em; margin: 0; }
  h2 { font-size: 1.05em; margin: 16px 0 6px; }
  #summary, #status, .muted { color: var(--vscode-descriptionForeground); }
  .refused { border-left: 3px solid var(--vscode-editorError-foreground); padding: 4px 8px; margin: 8px 0; }
  table { border-collapse: collapse; margin: 8px 0; }
  th, td { text-align: left; padding: 3px 10px 3px 0; vertical-align: top; }
  th { font-weight: 600; color: var(--vscode-descriptionForeground); border-bottom: 1px solid var(--vscode-panel-border, #8884); }
  td.state { white-space: nowrap; }
  .ok { color: var(--vscode-testing-iconPassed, var(--vscode-charts-green)); }
  .warn { color: var(--vscode-editorWarning-foreground); }
  .fail { color: var(--vscode-editorError-foreground); font-weight: 600; }
  .skipped { color: var(--vscode-disabledForeground, var(--vscode-descriptionForeground)); }
  tr.host-fail td.host { border-left: 3px solid var(--vscode-editorError-foreground); padding-left: 6px; }
  tr.host-warn td.host { border-left: 3px solid var(--vscode-editorWarning-foreground); padding-left: 6px; }
  tr.host-ok td.host { border-left: 3px solid var(--vscode-testing-iconPassed, var(--vscode-charts-green)); padding-left: 6px; }
  .cause { margin: 8px 0; padding: 6px 8px; border-left: 3px solid var(--vscode-panel-border, #8884); }
  .cause.fail { font-weight: normal; border-left-color: var(--vscode-editorError-foreground); color: var(--vscode-foreground); }
  .cause.warn { border-left-color: var(--vscode-editorWarning-foreground); color: var(--vscode-foreground); }
  .cause .what { font-weight: 600; }
  .row { display: flex; gap: 8px; align-items: flex-start; margin-top: 4px; flex-wrap: wrap; }
  code, pre { font-family: var(--vscode-editor-font-family); font-size: var(--vscode-editor-font-size); }
  pre { margin: 0; padding: 2px 6px; white-space: pre-wrap; overflow-wrap: anywhere; background: var(--vscode-textCodeBlock-background, var(--vscode-editorWidget-background)); border-radius: 3px; flex: 1 1 auto; }
  body.running main { opacity: 0.6; }`,
    body: `<header>
  <h1 id="title">${escapeAttr(opts.title)}</h1>
  <span id="summary"></span>
  <vscode-button id="rerun">${escapeAttr(texts.runAgain)}</vscode-button>
  <span id="status" role="status" aria-live="polite"></span>
</header>
<main id="report" aria-label="${escapeAttr(texts.checks)}"></main>`,
  });
}
