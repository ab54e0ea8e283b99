import { cordonNode } from './cordonNode';
import type { CommandContext } from './context';

/** Uncordon Node: clears spec.unschedulable (see cordonNode.ts, which both share). */
export function uncordonNode(ctx: CommandContext) {
  return cordonNode(ctx, false);
}
