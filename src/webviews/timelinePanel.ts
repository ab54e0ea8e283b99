/**
 * The `kubectl run` timeline panel: shows a Timeline fed live by a watch, and exports it as JSON
 * or SVG. The feed (what observes the pod) is passed in, so the panel knows nothing of the API.
 */
import * as vscode from 'vscode';
import { laneTitles, type Timeline } from '../core/timeline/model';
import type { TimelineFeed } from '../core/timeline/feed';
import { timelineToSvg } from '../core/timeline/svg';
import { compareRuns, hopTitles } from '../core/timeline/compare';
import { timelineBrowserCatalogue } from '../core/timeline/browserMessages';
import { createPanel, PanelHost } from './panelHost';
import { parseWebviewMessage, type HostToWebview, type TimelineStrings, type WebviewToHost } from './protocol/timeline';
import { timelineHtml, timelineShellTexts } from './timelineHtml';
import { replaceFile } from '../adapters/fs/safeFile';

export type { TimelineFeed } from '../core/timeline/feed';

/** The timeline webview's words in the display language (l10n/bundle.l10n.<language>.json), sent with each timeline. */
function timelineStrings(): TimelineStrings {
  return {
    lanes: laneTitles(),
    hops: hopTitles(),
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
      texts: timelineShellTexts(vscode.env.language),
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
    const catalogue = timelineBrowserCatalogue();
    this.post({
      type: 'timeline', timeline: this.latest, strings: timelineStrings(), ...(catalogue ? { catalogue } : {}), live: Boolean(this.feed || this.second?.feed),
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
