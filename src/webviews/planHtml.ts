/**
 * The plan webview's HTML shell: CSP `default-src 'none'`, script and style by nonce only, colours from the theme.
 * Commands wrap (pre-wrap, long words broken) instead of running off to the right; phases, hosts and steps fold.
 */
import { inEnglish, t } from '../core/l10n';
import { escapeAttr, webviewPage } from './csp';

export { makeNonce } from './csp';

/** The shell's words; English unless the panel passes the display language's (planShellTexts). */
export interface PlanShellTexts {
  /** The language of these texts (`vscode.env.language`), the page's `lang`. */
  lang: string;
  expandAll: string;
  collapseAll: string;
  /** The plan's accessible name. */
  plan: string;
}

/** The shell's words in the catalogue's language; `lang` names it for the page. */
export function planShellTexts(lang: string): PlanShellTexts {
  return { lang, expandAll: t('Expand all'), collapseAll: t('Collapse all'), plan: t('Bring-up plan by phase, host and step') };
}

export const ENGLISH_SHELL: PlanShellTexts = inEnglish(() => planShellTexts('en'));

export function planHtml(opts: { cspSource: string; scriptUri: string; nonce: string; title: string; texts?: PlanShellTexts }): string {
  const { cspSource, scriptUri, nonce } = opts;
  const texts = opts.texts ?? ENGLISH_SHELL;
  return webviewPage({
    cspSource, nonce, scriptUri, title: opts.title, lang: texts.lang,
    style: `  body { margin: 0; padding: 0 16px 24px; color: var(--vscode-foreground); background: var(--vscode-editor-background);
         font-family: var(--vscode-font-family); font-size: var(--vscode-font-size); line-height: 1.4; }
  header { position: sticky; top: 0; z-index: 1; display: flex; flex-wrap: wrap; gap: 8px 16px; align-items: center; padding: 8px 0;
           background: var(--vscode-editor-background); border-bottom: 1px solid var(--vscode-panel-border, transparent); }
  h1 { font-size: 1.15em; margin: 0; }
  #summary, #status, .muted { color: var(--vscode-descriptionForeground); }
  details { margin: 4px 0; }
  summary { cursor: pointer; padding: 2px 0; }
  summary:focus-visible { outline: 1px solid var(--vscode-focusBorder); }
  details.phase > summary { font-weight: 600; font-size: 1.05em; padding: 6px 0; }
  details.host { margin-left: 12px; }
  details.host > summary { font-weight: 600; }
  details.step { margin-left: 16px; border-left: 2px solid var(--vscode-editorIndentGuide-background, var(--vscode-panel-border, #8884)); padding-left: 8px; }
  .warning { border-left: 3px solid var(--vscode-editorWarning-foreground); padding: 2px 8px; margin: 4px 0 4px 12px; }
  .why { margin: 2px 0 4px; }
  .cmd { display: flex; gap: 8px; align-items: flex-start; margin: 4px 0; }
  .cmd .label { flex: 0 0 5.5em; color: var(--vscode-descriptionForeground); padding-top: 4px; }
  pre { flex: 1 1 auto; margin: 0; padding: 4px 8px; white-space: pre-wrap; overflow-wrap: anywhere; word-break: break-word;
        font-family: var(--vscode-editor-font-family); font-size: var(--vscode-editor-font-size);
        background: var(--vscode-textCodeBlock-background, var(--vscode-editorWidget-background)); border-radius: 3px; }
  ul.files { margin: 2px 0 4px 5.5em; padding-left: 16px; }
  code { font-family: var(--vscode-editor-font-family); }`,
    body: `<header>
  <h1 id="title">${escapeAttr(opts.title)}</h1>
  <span id="summary"></span>
  <vscode-button id="expand" secondary>${escapeAttr(texts.expandAll)}</vscode-button>
  <vscode-button id="collapse" secondary>${escapeAttr(texts.collapseAll)}</vscode-button>
  <span id="status" role="status" aria-live="polite"></span>
</header>
<main id="plan" aria-label="${escapeAttr(texts.plan)}"></main>`,
  });
}
