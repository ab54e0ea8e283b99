/**
 * The CNI manifest in the workspace (flannel's kube-flannel.yml): where its pod network is set.
 * Flannel reads the `Network` of the net-conf.json key of its ConfigMap (kube-flannel-cfg); it must
 * equal kubeadm's podSubnet.
 */
import { isMap, isScalar, type Node } from 'yaml';
import { parseKubeadmFile } from './parse';

export interface CniNetwork {
  /** The CIDR in net-conf.json's "Network". */
  network: string;
  /** Offsets of the value in the manifest text. */
  start: number;
  end: number;
}

export const FLANNEL_DEFAULT_NETWORK = '10.244.0.0/16';

export { isFlannelManifest } from './detect';


/** The flannel network of a manifest, or undefined when it has no parseable net-conf.json. */
export function flannelNetwork(text: string): CniNetwork | undefined {
  if (text.length > 1_000_000) return undefined;
  for (const d of parseKubeadmFile(text)) {
    if (d.kind !== 'ConfigMap' || !d.root) continue;
    const data = d.root.get('data', true) as Node | undefined;
    if (!data || !isMap(data)) continue;
    const conf = data.get('net-conf.json', true) as Node | undefined;
    if (!conf || !isScalar(conf) || typeof conf.value !== 'string' || !conf.range) continue;
    let network: string | undefined;
    try {
      const parsed = JSON.parse(conf.value) as { Network?: unknown };
      if (typeof parsed.Network === 'string') network = parsed.Network;
    } catch {
      const m = /"Network"\s*:\s*"([^"]*)"/.exec(conf.value);
      network = m?.[1];
    }
    if (network === undefined) continue;
    // Locate the value in the source text (inside the block scalar).
    const src = d.chunk.text.slice(conf.range[0], conf.range[2]);
    const m = /"Network"\s*:\s*"([^"]*)"/.exec(src);
    const start = d.chunk.start + conf.range[0] + (m ? m.index + m[0].indexOf(m[1]!, m[0].indexOf(':')) : 0);
    return { network, start, end: start + (m ? m[1]!.length : 1) };
  }
  return undefined;
}
