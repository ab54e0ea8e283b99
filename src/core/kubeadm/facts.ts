/** What kubeadm-config.yaml and flannel's manifest state about the cluster, for the cross-file check (../lint/crossFile.ts). */
import { isSeq, type Node } from 'yaml';
import { LineIndex, type Range } from '../findings';
import { splitEndpoint } from '../inventory/types';
import type { ClusterFacts, FactExtractor } from '../lint/crossFile';
import { maxChars } from '../lint/textGuard';
import type { FileKind, SourceFile } from '../lint/types';
import { flannelNetwork } from './cni';
import { nodeAt, parseKubeadmFile, scalarString } from './parse';

function kubeadmFacts(file: SourceFile): ClusterFacts | undefined {
  if (file.text.length > maxChars('kubeadm')) return undefined;
  const lines = new LineIndex(file.text);
  const cluster = parseKubeadmFile(file.text).find((d) => d.kind === 'ClusterConfiguration' && d.apiVersion?.startsWith('kubeadm.k8s.io/'));
  if (!cluster?.root) return undefined;
  const range = (n: Node | undefined): Range => {
    const r = n?.range;
    return r ? lines.range(cluster.chunk.start + r[0], cluster.chunk.start + r[1]) : lines.lineRange(lines.position(cluster.chunk.start).line);
  };
  const facts: ClusterFacts = {};
  const epNode = nodeAt(cluster.root, 'controlPlaneEndpoint');
  const ep = scalarString(epNode);
  const parsed = ep ? splitEndpoint(ep) : undefined;
  if (parsed) {
    facts.vip = { value: parsed.host, range: range(epNode) };
    facts.port = { value: parsed.port, range: range(epNode) };
  }
  const podNode = nodeAt(cluster.root, 'networking.podSubnet');
  const pod = scalarString(podNode);
  if (pod) facts.podSubnet = { value: pod, range: range(podNode) };
  const sans = nodeAt(cluster.root, 'apiServer.certSANs');
  if (sans && isSeq(sans)) {
    facts.controlPlanes = { value: sans.items.map((i) => scalarString(i as Node)).filter((x): x is string => !!x), range: range(sans) };
    facts.controlPlanesMode = 'superset';
  }
  return facts;
}

function flannelFacts(file: SourceFile): ClusterFacts | undefined {
  const n = flannelNetwork(file.text);
  if (!n) return undefined;
  const lines = new LineIndex(file.text);
  return { podSubnet: { value: n.network, range: lines.range(n.start, n.end) } };
}

export const KUBEADM_FACTS: Partial<Record<FileKind, FactExtractor>> = { kubeadm: kubeadmFacts, 'cni-manifest': flannelFacts };
