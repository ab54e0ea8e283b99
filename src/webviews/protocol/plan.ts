/**
 * Messages of the bring-up plan webview, shared by the extension (src/webviews/planPanel.ts) and the browser bundle
 * (src/webview-ui/plan/main.ts). Types and validation only.
 */
import type { PlanView } from '../../core/plan/view';

export type CopyField = 'run' | 'skipIf' | 'verify';

export type HostToWebview = { type: 'plan'; title: string; view: PlanView } | { type: 'status'; text: string };

export type WebviewToHost = { type: 'ready' } | { type: 'copy'; stepId: string; field: CopyField };

/** The extension trusts nothing from the webview. */
export function parseWebviewMessage(raw: unknown): WebviewToHost | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const m = raw as Record<string, unknown>;
  if (m.type === 'ready') return { type: 'ready' };
  if (m.type === 'copy' && typeof m.stepId === 'string' && m.stepId.length <= 500 && (m.field === 'run' || m.field === 'skipIf' || m.field === 'verify')) return { type: 'copy', stepId: m.stepId, field: m.field };
  return undefined;
}
