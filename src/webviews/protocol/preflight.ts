/**
 * Messages of the preflight webview, shared by the extension (src/webviews/preflightPanel.ts) and the browser bundle
 * (src/webview-ui/preflight/main.ts). Types and validation only.
 */
import type { CheckId, CheckResult, PreflightReport } from '../../core/preflight/model';

/** The webview's words in the display language (preflightPanel.ts localises them); `{0}` filled by the webview. */
export interface PreflightStrings {
  states: Record<CheckResult['state'], string>;
  /** Each check's name: the columns and the cause blocks. */
  checks: Record<CheckId, string>;
  /** {0} the host. */
  openLine: string;
  /** " via {0}" */
  via: string;
  /** "{0} ms" */
  ms: string;
  /** "{0} · {1}: {2}": who, the check, failed or warning. */
  causeTitle: string;
  failed: string;
  warning: string;
  fix: string;
  copy: string;
  /** {0} the host or the cluster. */
  copyFix: string;
  openInInventory: string;
  openSettings: string;
  openKubeconfigSetting: string;
  /** {0} the operation, {1} the cluster. */
  title: string;
  /** The preflight on its own (PreflightReport.standalone): {0} the cluster. */
  standaloneTitle: string;
  /** "1 host checked in {0} s{1}" / "{0} hosts checked in {1} s{2}": the last one is `runningAgain` or nothing. */
  checkedOne: string;
  checkedMany: string;
  runningAgain: string;
  /** "{0} did not start: " */
  didNotStart: string;
  host: string;
  connectsTo: string;
  took: string;
  causes: string;
  unknownKeys: string;
  compareKeys: string;
  address: string;
  type: string;
  fingerprint: string;
  readOnHost: string;
  /** "{0} (jump host {1})" */
  jumpHost: string;
  cluster: string;
  /** The cause blocks' "who" for the cluster's checks. */
  clusterWho: string;
}

export type HostToWebview =
  /** The table; `refused`: the operation it stopped; `running`: the checks run again (the table stays, marked). */
  /** `summary`: the verdict line (core/preflight/model.ts summaryLine), made where the display language is known. */
  | { type: 'report'; report: PreflightReport; summary: string; refused?: string; running: boolean; strings: PreflightStrings }
  | { type: 'status'; text: string };

export type WebviewToHost =
  | { type: 'ready' }
  /** Run the checks again (after the user fixed a cause). */
  | { type: 'rerun' }
  /** Copy a fix's command: the extension copies only a command of the report it shows. */
  | { type: 'copy'; command: string }
  /** Open the host's line in inventory.yaml. */
  | { type: 'reveal'; host: string }
  /** The settings a fix names (the kubeconfig). */
  | { type: 'settings' };

/** The extension trusts nothing from the webview. */
export function parseWebviewMessage(raw: unknown): WebviewToHost | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const m = raw as Record<string, unknown>;
  if (m.type === 'ready' || m.type === 'rerun' || m.type === 'settings') return { type: m.type };
  if (m.type === 'copy' && typeof m.command === 'string' && m.command.length <= 4000) return { type: 'copy', command: m.command };
  if (m.type === 'reveal' && typeof m.host === 'string' && m.host.length <= 253) return { type: 'reveal', host: m.host };
  return undefined;
}
