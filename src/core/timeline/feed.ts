/**
 * What the timeline panel is fed by: something that observes a pod and calls `update` on every change.
 * Here in core so the feed (editor) and the panel (webviews) share it without importing each other.
 */
import type { Timeline } from './model';

export interface TimelineFeed {
  /** Starts observing; calls `update` on every change until the returned handle is disposed. */
  start(update: (timeline: Timeline) => void, fail: (message: string) => void): { dispose(): void };
  /** What to undo when the panel closes (the test pod the feed created); runs once. */
  cleanup?(): Promise<void>;
  /** The user asked for the machines' own logs (SSH): read them now and again when the pod is Ready. */
  readLogs?(): void;
}
