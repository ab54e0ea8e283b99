/**
 * The `kubectl run` timeline panel: shows a Timeline fed live by a watch, and exports it as JSON
 * or SVG. The feed (what observes the pod) is passed in, so the panel knows nothing of the API.
 */
import * as vscode from 'vscode';
import { laneTitles, type Timeline } from '../core/timeline/model';
import type { TimelineFeed } from '../core/timeline/feed';
import { timelineToSvg } from '../core/timeline/svg';
import { compareRuns } from '../core/timeline/compare';
import { createPanel, PanelHost } from './panelHost';
import { parseWebviewMessage, type HostToWebview, type TimelineStrings, type WebviewToHost } from './protocol/timeline';
import { timelineHtml } from './timelineHtml';
import { replaceFile } from '../adapters/fs/safeFile';

export type { TimelineFeed } from '../core/timeline/feed';

/** The timeline webview's words in the display language (l10n/bundle.l10n.<language>.json), sent with each timeline. */
function timelineStrings(): TimelineStrings {
  return {
    lanes: laneTitles(),
    onNode: vscode.l10n.t(' on {0}'),
    sli: vscode.l10n.t('startup {0} s · SLO 5 s {1} · pulls {2} s excluded'),
    met: vscode.l10n.t('met'),
    missed: vscode.l10n.t('missed'),
    controlPlane: vscode.l10n.t('the control plane'),
    theNode: vscode.l10n.t('the node'),
    later: vscode.l10n.t("{0}'s readings drawn {1} later"),
    earlier: vscode.l10n.t("{0}'s readings drawn {1} earlier"),
    clocks: vscode.l10n.t("Clocks: {0} — by the causal order, to fit kubectl's clock."),
    moved: vscode.l10n.t(', moved: clocks disagree'),
    read: vscode.l10n.t('read {0}'),
    notSeen: vscode.l10n.t('not seen'),
  };
}

export class TimelinePanel extends PanelHost<WebviewToHost, HostToWebview> {
  static readonly viewType = 'kubeadm.timeline';
  private feed: { dispose(): void } | undefined;
  private latest: Timeline | undefined;
  /** The second run, when the user asked to compare. */
  private second: { source: TimelineFeed; feed: { dispose(): void } | undefined; latest?: Timeline } | undefined;
  private closed = false;

  constructor(extensionUri: vscode.Uri, title: string, private readonly source: TimelineFeed, private readonly secondRun?: () => TimelineFeed) {
    super(createPanel(TimelinePanel.viewType, title, vscode.ViewColumn.Active, extensionUri), extensionUri, parseWebviewMessage);
    this.panel.webview.html = timelineHtml({
      ...this.shell('timeline'),
      title,
      texts: {
        lang: vscode.env.language,
        exportSvg: vscode.l10n.t('Export SVG'),
        exportJson: vscode.l10n.t('Export JSON'),
        stop: vscode.l10n.t('Stop watching'),
        compareTitle: vscode.l10n.t('Create the same test pod again (the image is now on the node, or it lands on another node) and compare the two runs'),
        compare: vscode.l10n.t('Run again to compare'),
        zoom: vscode.l10n.t('Zoom the chart'),
        zoomOut: vscode.l10n.t('Zoom out (-)'),
        zoomIn: vscode.l10n.t('Zoom in (+, or Ctrl+wheel)'),
        fitTitle: vscode.l10n.t('Fit (0)'),
        fit: vscode.l10n.t('Fit'),
        sources: vscode.l10n.t('Sources'),
        readLogsTitle: vscode.l10n.t('SSH to the pod\'s node and the control-plane nodes; read the journal, the CNI lease and the audit log'),
        readLogs: vscode.l10n.t('Read machine logs'),
        chart: vscode.l10n.t('Chart of the steps below; + and - zoom, arrows scroll'),
        chartTitle: vscode.l10n.t('Drag or scroll to pan; Ctrl+wheel or +/- to zoom'),
        secondRun: vscode.l10n.t('Second run, on the same time scale'),
        hopCaption: vscode.l10n.t('Time of each hop (≈: from second-precision readings)'),
        hop: vscode.l10n.t('Hop'),
        firstRunCol: vscode.l10n.t('First run'),
        secondRunCol: vscode.l10n.t('Second run'),
        difference: vscode.l10n.t('Difference'),
        took: vscode.l10n.t('Took'),
        stepsCaption: vscode.l10n.t('Steps in causal order (time from the first step; a second-precision reading is the interval it can be in)'),
        time: vscode.l10n.t('Time'),
        component: vscode.l10n.t('Component'),
        step: vscode.l10n.t('Step'),
        source: vscode.l10n.t('Source'),
        detail: vscode.l10n.t('Detail'),
      },
    });
    this.feed = source.start(
      (timeline) => {
        this.latest = timeline;
        this.postTimeline();
      },
      (message) => this.post({ type: 'status', text: message, error: true }),
    );
  }

  private postTimeline(): void {
    if (!this.latest) return;
    const b = this.second?.latest;
    this.post({
      type: 'timeline', timeline: this.latest, strings: timelineStrings(), live: Boolean(this.feed || this.second?.feed),
      canCompare: Boolean(this.secondRun) && !this.second,
      ...(b ? { compare: { timeline: b, comparison: compareRuns(this.latest, b) } } : {}),
    });
  }

  private startSecondRun(): void {
    if (!this.secondRun || this.second || this.closed) return;
    const source = this.secondRun();
    this.second = { source, feed: undefined };
    const second = this.second;
    second.feed = source.start(
      (timeline) => {
        second.latest = timeline;
        this.postTimeline();
      },
      (message) => this.post({ type: 'status', text: vscode.l10n.t('second run: {0}', message), error: true }),
    );
    this.post({ type: 'status', text: vscode.l10n.t('Running the same pod again to compare…') });
  }

  protected async onMessage(msg: WebviewToHost): Promise<void> {
    if (msg.type === 'ready') {
      if (this.latest) this.postTimeline();
      else this.post({ type: 'status', text: vscode.l10n.t('Waiting for the pod…') });
    } else if (msg.type === 'stop') {
      this.feed?.dispose();
      this.feed = undefined;
      this.second?.feed?.dispose();
      if (this.second) this.second.feed = undefined;
      this.postTimeline();
      this.post({ type: 'status', text: vscode.l10n.t('Stopped watching.') });
    } else if (msg.type === 'compare') {
      this.startSecondRun();
    } else if (msg.type === 'readLogs') {
      if (this.feed && this.source.readLogs) {
        this.source.readLogs();
        if (this.second?.feed) this.second.source.readLogs?.();
        this.post({ type: 'status', text: vscode.l10n.t('Reading the machines\' logs over SSH…') });
      } else this.post({ type: 'status', text: vscode.l10n.t('Not watching any more: reopen the timeline to read the machines\' logs.') });
    } else if (msg.type === 'export') {
      await this.export(msg.format);
    }
  }

  private async export(format: 'json' | 'svg'): Promise<void> {
    if (!this.latest) return;
    const name = `${this.latest.pod.name}-timeline.${format}`;
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
    const target = await vscode.window.showSaveDialog({ ...(folder ? { defaultUri: vscode.Uri.joinPath(folder, name) } : {}), filters: format === 'json' ? { JSON: ['json'] } : { SVG: ['svg'] } });
    if (!target) return;
    const text = format === 'json' ? JSON.stringify(this.latest, null, 2) + '\n' : timelineToSvg(this.latest, { colors: 'export' }) + '\n';
    await replaceFile(target.fsPath, text, { mode: 'keep' });
    this.post({ type: 'status', text: vscode.l10n.t('Saved {0}', vscode.workspace.asRelativePath(target)) });
  }

  protected override onDispose(): void {
    this.closed = true;
    this.feed?.dispose();
    this.feed = undefined;
    // The test pod goes with the panel ("Stop watching" keeps it, to look at it).
    void this.source.cleanup?.();
    this.second?.feed?.dispose();
    void this.second?.source.cleanup?.();
  }
}
