/**
 * The timeline panel's feed: the engine's (src/engine/podTimeline.ts) with its warnings shown as VS Code messages.
 */
import * as vscode from 'vscode';
import type { KubeConnection } from '../adapters/kube';
import type { TimelineFeed } from '../core/timeline/feed';
import { podTimelineFeed as engineFeed, type PodTarget, type TimelineSsh } from '../engine/podTimeline';

export type { PodTarget, TimelineSsh } from '../engine/podTimeline';

export function podTimelineFeed(conn: KubeConnection, target: PodTarget, ssh?: TimelineSsh): TimelineFeed {
  return engineFeed(conn.transport, target, ssh, { warn: (m) => void vscode.window.showWarningMessage(m) });
}
