/**
 * Messages of the preflight webview, shared by the extension (src/webviews/preflightPanel.ts) and the browser bundle
 * (src/webview-ui/preflight/main.ts). Types and validation only.
 */
import type { PreflightReport } from '../../core/preflight/model';

export type HostToWebview =
  /** The table; `refused`: the operation it stopped; `running`: the checks run again (the table stays, marked). */
  | { type: 'report'; report: PreflightReport; refused?: string; running: boolean }
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
