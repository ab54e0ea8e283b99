/**
 * The timeline panel's feed: the engine's (src/engine/podTimeline.ts) with its warnings said through the command's Ui.
 */
import type { KubeConnection } from '../adapters/kube';
import type { TimelineFeed } from '../core/timeline/feed';
import type { Ui } from '../engine/workflows/ui';
import { podTimelineFeed as engineFeed, type PodTarget, type TimelineSsh } from '../engine/podTimeline';

export type { PodTarget, TimelineSsh } from '../engine/podTimeline';

/** `ui`: where the feed's warnings are said (the command's Ui; a test that reads the timeline alone passes none). */
export function podTimelineFeed(conn: KubeConnection, target: PodTarget, ssh?: TimelineSsh, ui?: Pick<Ui, 'message'>): TimelineFeed {
  return engineFeed(conn.transport, target, ssh, { warn: (m) => void ui?.message('warning', m) });
}
