/**
 * The timeline webview's HTML shell: CSP `default-src 'none'`, script and style by nonce only,
 * the script from the extension's dist, colours from the editor theme.
 */
import { contentSecurityPolicy, escapeAttr } from './csp';

export { makeNonce } from './csp';

export function timelineHtml(opts: { cspSource: string; scriptUri: string; nonce: string; title: string }): string {
  const { cspSource, scriptUri, nonce } = opts;
  const csp = contentSecurityPolicy(cspSource, nonce);
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${escapeAttr(csp)}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>${escapeAttr(opts.title)}</title>
<style nonce="${nonce}">
  body { margin: 0; padding: 0 12px 16px; color: var(--vscode-foreground); background: var(--vscode-editor-background);
         font-family: var(--vscode-font-family); font-size: var(--vscode-font-size); }
  header { display: flex; flex-wrap: wrap; gap: 8px 16px; align-items: center; padding: 8px 0; border-bottom: 1px solid var(--vscode-panel-border, transparent); }
  h1 { font-size: 1.1em; margin: 0; }
  #status { color: var(--vscode-descriptionForeground); }
  #status.error { color: var(--vscode-errorForeground); }
  #stall { border-left: 3px solid var(--vscode-editorWarning-foreground); padding: 4px 8px; margin: 8px 0; }
  #stall h2 { font-size: 1em; margin: 0 0 4px; }
  #chart { overflow-x: auto; margin-top: 8px; }
  #chart svg .tl-text { fill: var(--vscode-foreground); }
  #chart svg .tl-lane { fill: var(--vscode-descriptionForeground); }
  #chart svg .tl-axis { stroke: var(--vscode-editorIndentGuide-background, #888); }
  #chart svg .tl-mark { fill: var(--vscode-charts-blue, var(--vscode-textLink-foreground)); }
  #chart svg .tl-coarse { fill: var(--vscode-charts-yellow, var(--vscode-editorWarning-foreground)); }
  #chart svg .tl-warn { fill: var(--vscode-charts-red, var(--vscode-errorForeground)); }
  table { border-collapse: collapse; margin-top: 12px; width: 100%; }
  caption { text-align: left; font-weight: 600; padding: 4px 0; }
  th, td { text-align: left; padding: 3px 8px; border-bottom: 1px solid var(--vscode-editorWidget-border, transparent); vertical-align: top; }
  td.t { font-variant-numeric: tabular-nums; white-space: nowrap; }
  tr.warn td { color: var(--vscode-errorForeground); }
  tr:focus-visible { outline: 1px solid var(--vscode-focusBorder); }
</style>
</head>
<body>
<header>
  <h1 id="title">${escapeAttr(opts.title)}</h1>
  <vscode-badge id="sli" hidden></vscode-badge>
  <vscode-button id="export-svg" secondary>Export SVG</vscode-button>
  <vscode-button id="export-json" secondary>Export JSON</vscode-button>
  <vscode-button id="stop" secondary hidden>Stop watching</vscode-button>
  <span id="status" role="status" aria-live="polite"></span>
</header>
<section id="stall" hidden aria-live="polite"></section>
<div id="chart" aria-hidden="true"></div>
<table id="steps" aria-describedby="title"><caption>Steps in order (time from the first step)</caption>
<thead><tr><th scope="col">Time</th><th scope="col">Component</th><th scope="col">Step</th><th scope="col">Source</th><th scope="col">Detail</th></tr></thead>
<tbody></tbody></table>
<script type="module" nonce="${nonce}" src="${escapeAttr(scriptUri)}"></script>
</body>
</html>`;
}
