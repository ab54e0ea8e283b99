/**
 * The test pod's default image for the `kubectl run` timeline: one every schedulable node already holds, so the
 * pod starts in an air-gapped cluster with nothing to pull. The pause image is on every node (the runtime's pod
 * sandbox) and runs until deleted, so it is preferred; without node images, the inventory's registry's pause image.
 */
import { t } from '../l10n';
import type { Node } from '../live/types';

export const PAUSE_TAG = '3.10';

export interface ImageChoice {
  image: string;
  /** Why this one, for the input box's prompt. */
  why: string;
}

function taggedNames(node: Node): Set<string> {
  const out = new Set<string>();
  for (const img of node.status?.images ?? []) for (const n of img.names ?? []) if (!n.includes('@') && /:[\w][\w.-]*$/.test(n.split('/').pop() ?? '')) out.add(n);
  return out;
}

function schedulable(n: Node): boolean {
  return !n.spec?.unschedulable && !(n.spec?.taints ?? []).some((t) => t.effect === 'NoSchedule' || t.effect === 'NoExecute');
}

export function defaultTestImage(nodes: Node[], imageRepository: string | undefined, lastUsed: string | undefined): ImageChoice {
  const candidates = nodes.filter(schedulable);
  const pool = candidates.length ? candidates : nodes;
  const sets = pool.map(taggedNames).filter((s) => s.size);
  const common = sets.length ? [...sets[0]!].filter((n) => sets.every((s) => s.has(n))) : [];
  if (lastUsed && common.includes(lastUsed)) return { image: lastUsed, why: t('the last one used; present on all {0} schedulable nodes', sets.length) };
  const pause = common.filter((n) => /(^|\/)pause:/.test(n)).sort().reverse()[0];
  if (pause) return { image: pause, why: t('already on all {0} schedulable nodes: nothing to pull', sets.length) };
  if (common.length) return { image: [...common].sort()[0]!, why: t('already on all {0} schedulable nodes: nothing to pull', sets.length) };
  if (imageRepository) return { image: `${imageRepository.replace(/\/+$/, '')}/pause:${PAUSE_TAG}`, why: t('from the inventory\'s imageRepository') };
  return { image: lastUsed ?? `registry.k8s.io/pause:${PAUSE_TAG}`, why: lastUsed ? t('the last one used') : t('the nodes report no images; this one needs registry.k8s.io') };
}
