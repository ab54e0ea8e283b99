import { cordonCommand } from './cordonNode';

/** Uncordon Node: clears spec.unschedulable (see cordonNode.ts, which both share). */
export const uncordonNode = cordonCommand(false);
