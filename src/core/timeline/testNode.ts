/**
 * Where the `kubectl run` timeline's test pod may run: any node (the scheduler decides), or one schedulable node,
 * pinned by a nodeSelector as the CLI's --node does (the scheduler still binds it, so every hop stays on the
 * timeline). Each node says whether it reports the image already: that is what makes a run cold (pulled) or warm.
 */
import { t } from '../l10n';
import type { Node } from '../live/types';

export interface TestNodeChoice {
  /** undefined: the scheduler decides. */
  node: string | undefined;
  label: string;
  description: string;
}

function schedulable(n: Node): boolean {
  return !n.spec?.unschedulable && !(n.spec?.taints ?? []).some((t) => t.effect === 'NoSchedule' || t.effect === 'NoExecute');
}

function ready(n: Node): boolean {
  return (n.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
}

/** The image as the node lists it: the reference itself, or with docker.io's implied parts. */
function holds(n: Node, image: string): boolean {
  const names = (n.status?.images ?? []).flatMap((i) => i.names ?? []);
  const full = image.includes('/') ? (image.split('/')[0]!.includes('.') || image.split('/')[0]!.includes(':') ? image : `docker.io/${image}`) : `docker.io/library/${image}`;
  const tagged = /:[\w][\w.-]*$/.test(full.split('/').pop() ?? '') || full.includes('@') ? full : `${full}:latest`;
  return names.includes(image) || names.includes(tagged);
}

export function testNodeChoices(nodes: Node[], image: string): TestNodeChoice[] {
  const out: TestNodeChoice[] = [{ node: undefined, label: t('Any node'), description: t('the scheduler decides') }];
  for (const n of nodes.filter(schedulable).sort((a, b) => a.metadata.name.localeCompare(b.metadata.name))) {
    const state = ready(n) ? '' : t('not Ready · ');
    out.push({ node: n.metadata.name, label: n.metadata.name, description: `${state}${holds(n, image) ? t('has the image: a warm start') : t('does not report the image: it is pulled (a cold start)')}` });
  }
  return out;
}
