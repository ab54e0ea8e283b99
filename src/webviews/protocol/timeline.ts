/**
 * Messages of the `kubectl run` timeline webview, shared by the extension (src/webviews/timelinePanel.ts)
 * and the browser bundle (src/webview-ui/timeline/main.ts). Types and validation only.
 */
import type { Lane, Timeline } from '../../core/timeline/model';
import type { HopId, RunComparison } from '../../core/timeline/compare';
import type { BrowserCatalogue } from '../../core/timeline/browserMessages';

/** The webview's words in the display language (timelinePanel.ts localises them); `{0}` filled by the webview. */
export interface TimelineStrings {
  /** Each lane's name (core/timeline/model.ts laneTitles). */
  lanes: Record<Lane, string>;
  /** Each hop's name (core/timeline/compare.ts hopTitles). */
  hops: Record<HopId, string>;
  /** " on {0}" after the pod in the title. */
  onNode: string;
  /** "startup {0} s · SLO 5 s {1} · pulls {2} s excluded" */
  sli: string;
  met: string;
  missed: string;
  /** The whose of `later`/`earlier` for the cluster's and the node's readings. */
  controlPlane: string;
  theNode: string;
  /** "{0}'s readings drawn {1} later" / "… earlier" */
  later: string;
  earlier: string;
  /** "Clocks: {0} — by the causal order, to fit kubectl's clock." */
  clocks: string;
  moved: string;
  /** "read {0}" */
  read: string;
  notSeen: string;
}

export type HostToWebview =
  | {
      type: 'timeline';
      timeline: Timeline;
      strings: TimelineStrings;
      /** The core's own words the webview draws (the chart): their translations, absent in English. */
      catalogue?: BrowserCatalogue;
      live: boolean;
      /** A second run can be started to compare with (a test pod of ours). */
      canCompare?: boolean;
      compare?: { timeline: Timeline; comparison: RunComparison };
    }
  | { type: 'status'; text: string; error?: boolean };

export type WebviewToHost = { type: 'ready' } | { type: 'export'; format: 'json' | 'svg' } | { type: 'stop' } | { type: 'readLogs' } | { type: 'compare' };

/** The extension trusts nothing from the webview. */
export function parseWebviewMessage(raw: unknown): WebviewToHost | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const m = raw as Record<string, unknown>;
  if (m.type === 'ready' || m.type === 'stop' || m.type === 'readLogs' || m.type === 'compare') return { type: m.type };
  if (m.type === 'export' && (m.format === 'json' || m.format === 'svg')) return { type: 'export', format: m.format };
  return undefined;
}
