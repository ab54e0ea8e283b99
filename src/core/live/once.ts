/** One-shot reads for the CLI: every watched resource listed once (paginated), no watches. */
import { Resources, type ResourceKey } from './resources';
import type { ClusterObjects } from './snapshot';
import type { KObject } from './types';
import type { KubeTransport, Params, ResourceSpec } from './watch';

export async function listAll(transport: KubeTransport, spec: ResourceSpec, pageLimit = 500): Promise<KObject[]> {
  const items: KObject[] = [];
  let cont: string | undefined;
  do {
    const params: Params = { limit: String(pageLimit) };
    if (spec.labelSelector) params.labelSelector = spec.labelSelector;
    if (spec.fieldSelector) params.fieldSelector = spec.fieldSelector;
    if (cont) params.continue = cont;
    const page = await transport.list(spec.path, params);
    items.push(...page.items);
    cont = page.metadata.continue || undefined;
  } while (cont);
  return items;
}

export async function readObjects(transport: KubeTransport): Promise<ClusterObjects> {
  const keys = Object.keys(Resources) as ResourceKey[];
  const lists = await Promise.all(keys.map((k) => listAll(transport, Resources[k])));
  return Object.fromEntries(keys.map((k, i) => [k, lists[i]])) as unknown as ClusterObjects;
}
