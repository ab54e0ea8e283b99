/**
 * The timeline webview's HTML shell: CSP `default-src 'none'`, script and style by nonce only,
 * the script from the extension's dist, colours from the editor theme.
 */
import { inEnglish, t } from '../core/l10n';
import { escapeAttr, webviewPage } from './csp';

export { makeNonce } from './csp';

/** The shell's words; English unless the panel passes the display language's (timelineShellTexts). */
export interface TimelineShellTexts {
  /** The language of these texts (`vscode.env.language`), the page's `lang`. */
  lang: string;
  exportSvg: string;
  exportJson: string;
  stop: string;
  compareTitle: string;
  compare: string;
  zoom: string;
  zoomOut: string;
  zoomIn: string;
  fitTitle: string;
  fit: string;
  sources: string;
  readLogsTitle: string;
  readLogs: string;
  chart: string;
  chartTitle: string;
  secondRun: string;
  hopCaption: string;
  hop: string;
  firstRunCol: string;
  secondRunCol: string;
  difference: string;
  took: string;
  stepsCaption: string;
  time: string;
  component: string;
  step: string;
  source: string;
  detail: string;
}

/** The shell's words in the catalogue's language; `lang` names it for the page. */
export function timelineShellTexts(lang: string): TimelineShellTexts {
  return {
    lang,
    exportSvg: t('Export SVG'),
    exportJson: t('Export JSON'),
    stop: t('Stop watching'),
    compareTitle: t('Create the same test pod again (the image is now on the node, or it lands on another node) and compare the two runs'),
    compare: t('Run again to compare'),
    zoom: t('Zoom the chart'),
    zoomOut: t('Zoom out (-)'),
    zoomIn: t('Zoom in (+, or Ctrl+wheel)'),
    fitTitle: t('Fit (0)'),
    fit: t('Fit'),
    sources: t('Sources'),
    readLogsTitle: t('SSH to the pod\'s node and the control-plane nodes; read the journal, the CNI lease and the audit log'),
    readLogs: t('Read machine logs'),
    chart: t('Chart of the steps below; + and - zoom, arrows scroll'),
    chartTitle: t('Drag or scroll to pan; Ctrl+wheel or +/- to zoom'),
    secondRun: t('Second run, on the same time scale'),
    hopCaption: t('Time of each hop (≈: from second-precision readings)'),
    hop: t('Hop'),
    firstRunCol: t('First run'),
    secondRunCol: t('Second run'),
    difference: t('Difference'),
    took: t('Took'),
    stepsCaption: t('Steps in causal order (time from the first step; a second-precision reading is the interval it can be in)'),
    time: t('Time'),
    component: t('Component'),
    step: t('Step'),
    source: t('Source'),
    detail: t('Detail'),
  };
}

export const ENGLISH_SHELL: TimelineShellTexts = inEnglish(() => timelineShellTexts('en'));

export function timelineHtml(opts: { cspSource: string; scriptUri: string; nonce: string; title: string; texts?: TimelineShellTexts }): string {
  const t = opts.texts ?? ENGLISH_SHELL;
  const x = (s: string): string => escapeAttr(s);
  const { cspSource, scriptUri, nonce } = opts;
  return webviewPage({
    cspSource, nonce, scriptUri, title: opts.title, lang: t.lang,
    style: `  body { margin: 0; padding: 0 12px 16px; color: var(--vscode-foreground); background: var(--vscode-editor-background);
         font-family: var(--vscode-font-family); font-size: var(--vscode-font-size); }
  header { display: flex; flex-wrap: wrap; gap: 8px 16px; align-items: center; padding: 8px 0; border-bottom: 1px solid var(--vscode-panel-border, transparent); }
  h1 { font-size: 1.1em; margin: 0; }
  #status { color: var(--vscode-descriptionForeground); }
  #status.error { color: var(--vscode-errorForeground); }
  #stall { border-left: 3px solid var(--vscode-editorWarning-foreground); padding: 4px 8px; margin: 8px 0; }
  #stall h2 { font-size: 1em; margin: 0 0 4px; }
  #chart { overflow-x: auto; margin-top: 8px; cursor: grab; }
  #chart:focus-visible { outline: 1px solid var(--vscode-focusBorder); }
  #chart svg .tl-grid , #chart-b svg .tl-grid { stroke: var(--vscode-editorIndentGuide-background, #8884); }
  #chart svg .tl-band , #chart-b svg .tl-band { fill: var(--vscode-list-hoverBackground, transparent); }
  #chart svg .tl-leader , #chart-b svg .tl-leader { stroke: var(--vscode-editorIndentGuide-background, #888); }
  #chart svg .tl-spanbar , #chart-b svg .tl-spanbar { fill: var(--vscode-charts-blue, var(--vscode-textLink-foreground)); }
  #chart svg .tl-spantext , #chart-b svg .tl-spantext { fill: var(--vscode-descriptionForeground); font-style: italic; }
  #chart svg .tl-focus .tl-label , #chart-b svg .tl-focus .tl-label { fill: var(--vscode-textLink-activeForeground, var(--vscode-focusBorder)); font-weight: bold; }
  #chart svg .tl-focus circle, #chart svg .tl-focus rect { stroke: var(--vscode-focusBorder); stroke-width: 2; }
  .zoom { display: flex; gap: 4px; align-items: center; }
  #sources-box { margin: 8px 0; }
  #sources-box h2 { font-size: 1em; margin: 0 0 4px; }
  #sources { margin: 0; padding-left: 1.2em; color: var(--vscode-descriptionForeground); }
  #sources li.missing { color: var(--vscode-editorWarning-foreground, var(--vscode-foreground)); }
  tr.tl-focus td { background: var(--vscode-list-activeSelectionBackground); color: var(--vscode-list-activeSelectionForeground); }
  #compare-box { border-top: 1px solid var(--vscode-panel-border, transparent); margin-top: 8px; }
  #compare-box h2 { font-size: 1em; margin: 8px 0 4px; }
  #chart-b { overflow-x: auto; }
  #chart svg .tl-text , #chart-b svg .tl-text { fill: var(--vscode-foreground); }
  #chart svg .tl-lane , #chart-b svg .tl-lane { fill: var(--vscode-descriptionForeground); }
  #chart svg .tl-axis , #chart-b svg .tl-axis { stroke: var(--vscode-editorIndentGuide-background, #888); }
  #chart svg .tl-mark , #chart-b svg .tl-mark { fill: var(--vscode-charts-blue, var(--vscode-textLink-foreground)); }
  #chart svg .tl-coarse , #chart-b svg .tl-coarse { fill: var(--vscode-charts-yellow, var(--vscode-editorWarning-foreground)); }
  #chart svg .tl-warn , #chart-b svg .tl-warn { fill: var(--vscode-charts-red, var(--vscode-errorForeground)); }
  table { border-collapse: collapse; margin-top: 12px; width: 100%; }
  caption { text-align: left; font-weight: 600; padding: 4px 0; }
  th, td { text-align: left; padding: 3px 8px; border-bottom: 1px solid var(--vscode-editorWidget-border, transparent); vertical-align: top; }
  td.t, td.src { font-variant-numeric: tabular-nums; white-space: nowrap; }
  #hops { width: auto; min-width: 24em; }
  tr.warn td { color: var(--vscode-errorForeground); }
  tr:focus-visible { outline: 1px solid var(--vscode-focusBorder); }`,
    body: `<header>
  <h1 id="title">${escapeAttr(opts.title)}</h1>
  <vscode-badge id="sli" hidden></vscode-badge>
  <vscode-button id="export-svg" secondary>${x(t.exportSvg)}</vscode-button>
  <vscode-button id="export-json" secondary>${x(t.exportJson)}</vscode-button>
  <vscode-button id="stop" secondary hidden>${x(t.stop)}</vscode-button>
  <vscode-button id="compare" secondary hidden title="${x(t.compareTitle)}">${x(t.compare)}</vscode-button>
  <span class="zoom" role="group" aria-label="${x(t.zoom)}">
    <vscode-button id="zoom-out" secondary title="${x(t.zoomOut)}">−</vscode-button>
    <span id="zoom-level">100 %</span>
    <vscode-button id="zoom-in" secondary title="${x(t.zoomIn)}">+</vscode-button>
    <vscode-button id="zoom-fit" secondary title="${x(t.fitTitle)}">${x(t.fit)}</vscode-button>
  </span>
  <span id="status" role="status" aria-live="polite"></span>
</header>
<section id="stall" hidden aria-live="polite"></section>
<section id="sources-box" hidden><h2>${x(t.sources)}</h2><ul id="sources"></ul>
<vscode-button id="read-logs" secondary title="${x(t.readLogsTitle)}">${x(t.readLogs)}</vscode-button></section>
<div id="chart" tabindex="0" aria-label="${x(t.chart)}" title="${x(t.chartTitle)}"></div>
<section id="compare-box" hidden aria-live="polite">
<h2>${x(t.secondRun)}</h2>
<ul id="compare-why"></ul>
<table id="compare-hops"><caption>${x(t.hopCaption)}</caption>
<thead><tr><th scope="col">${x(t.hop)}</th><th scope="col">${x(t.firstRunCol)}</th><th scope="col">${x(t.secondRunCol)}</th><th scope="col">${x(t.difference)}</th></tr></thead><tbody></tbody></table>
<div id="chart-b" class="chart"></div>
</section>
<table id="hops" hidden><caption>${x(t.hopCaption)}</caption>
<thead><tr><th scope="col">${x(t.hop)}</th><th scope="col">${x(t.took)}</th></tr></thead><tbody></tbody></table>
<table id="steps" aria-describedby="title"><caption>${x(t.stepsCaption)}</caption>
<thead><tr><th scope="col">${x(t.time)}</th><th scope="col">${x(t.component)}</th><th scope="col">${x(t.step)}</th><th scope="col">${x(t.source)}</th><th scope="col">${x(t.detail)}</th></tr></thead>
<tbody></tbody></table>`,
  });
}
