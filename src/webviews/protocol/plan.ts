/**
 * Messages of the bring-up plan webview, shared by the extension (src/webviews/planPanel.ts) and the browser bundle
 * (src/webview-ui/plan/main.ts). Types and validation only.
 */
import type { PlanView } from '../../core/plan/view';
import type { Counted } from './fill';

export type CopyField = 'run' | 'skipIf' | 'verify';

/** The webview's words in the display language (planPanel.ts localises them); `{0}` placeholders filled by the webview. */
export interface PlanStrings {
  copy: string;
  copyTitle: string;
  /** {0} the command's label (`run`), {1} the step's title. */
  copyAria: string;
  labels: Record<CopyField, string>;
  /** " (about {0})" */
  about: string;
  skippedEarlier: string;
  /** "write " before the file's path. */
  write: string;
  /** " (mode {0}{1})": {1} is `secret` or `lines`. */
  mode: string;
  secret: string;
  lines: Counted;
  inEditor: string;
  parallel: string;
  inOrder: string;
  besidePrevious: string;
  beside: string;
  steps: Counted;
  phases: Counted;
  hosts: Counted;
  /** "{0}, {1} on {2}; nothing runs from here": phases, steps, hosts. */
  summary: string;
}

export type HostToWebview = { type: 'plan'; title: string; view: PlanView; strings: PlanStrings } | { type: 'status'; text: string };

export type WebviewToHost = { type: 'ready' } | { type: 'copy'; stepId: string; field: CopyField };

/** The extension trusts nothing from the webview. */
export function parseWebviewMessage(raw: unknown): WebviewToHost | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const m = raw as Record<string, unknown>;
  if (m.type === 'ready') return { type: 'ready' };
  if (m.type === 'copy' && typeof m.stepId === 'string' && m.stepId.length <= 500 && (m.field === 'run' || m.field === 'skipIf' || m.field === 'verify')) return { type: 'copy', stepId: m.stepId, field: m.field };
  return undefined;
}
