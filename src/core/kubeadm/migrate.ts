/**
 * v1beta3 → v1beta4 migration (what `kubeadm config migrate` does for the fields a hand-written file
 * uses): apiVersion, extraArgs maps → name/value lists, timeoutForControlPlane → InitConfiguration
 * timeouts.controlPlaneComponentHealthCheck, discovery.timeout → timeouts.discovery.
 * Also repairs v1beta4 documents that still carry v1beta3-style fields.
 */
import { isMap, isScalar, parseDocument, type Document, type Node, type YAMLMap } from 'yaml';
import { splitDocuments } from './parse';
import { KUBEADM_V1BETA3, KUBEADM_V1BETA4 } from './schema';

const EXTRA_ARGS_PATHS: Record<string, string[][]> = {
  ClusterConfiguration: [['apiServer', 'extraArgs'], ['controllerManager', 'extraArgs'], ['scheduler', 'extraArgs'], ['etcd', 'local', 'extraArgs']],
  InitConfiguration: [['nodeRegistration', 'kubeletExtraArgs']],
  JoinConfiguration: [['nodeRegistration', 'kubeletExtraArgs']],
};

function mapToArgs(doc: Document, path: string[]): boolean {
  const node = doc.getIn(path, true) as Node | undefined;
  if (!node || !isMap(node)) return false;
  const list = node.items.map((p) => ({
    name: String(isScalar(p.key) ? p.key.value : p.key),
    value: String(isScalar(p.value) ? (p.value.value ?? '') : (p.value ?? '')),
  }));
  doc.setIn(path, doc.createNode(list));
  return true;
}

/** Migrates the text of a kubeadm file; documents that need no change keep their exact text. */
export function migrateToV1beta4(text: string): string {
  const chunks = splitDocuments(text);
  const docs = chunks.map((c) => {
    try {
      const doc = parseDocument(c.text, { prettyErrors: false });
      return doc.errors.length || !isMap(doc.contents) ? undefined : doc;
    } catch {
      return undefined;
    }
  });
  const changed = new Set<number>();
  let controlPlaneTimeout: unknown;
  let initIndex = -1;
  docs.forEach((doc, i) => {
    if (!doc) return;
    const api = String(doc.get('apiVersion') ?? '');
    const kind = String(doc.get('kind') ?? '');
    if (api !== KUBEADM_V1BETA3 && api !== KUBEADM_V1BETA4) return;
    if (api === KUBEADM_V1BETA3) {
      doc.set('apiVersion', KUBEADM_V1BETA4);
      changed.add(i);
    }
    for (const path of EXTRA_ARGS_PATHS[kind] ?? []) if (mapToArgs(doc, path)) changed.add(i);
    if (kind === 'InitConfiguration') initIndex = i;
    if (kind === 'ClusterConfiguration' && doc.hasIn(['apiServer', 'timeoutForControlPlane'])) {
      controlPlaneTimeout = doc.getIn(['apiServer', 'timeoutForControlPlane']);
      doc.deleteIn(['apiServer', 'timeoutForControlPlane']);
      const apiServer = doc.get('apiServer', true) as YAMLMap | undefined;
      if (apiServer && isMap(apiServer) && apiServer.items.length === 0) doc.delete('apiServer');
      changed.add(i);
    }
    if (kind === 'JoinConfiguration' && doc.hasIn(['discovery', 'timeout'])) {
      const t = doc.getIn(['discovery', 'timeout']);
      doc.deleteIn(['discovery', 'timeout']);
      if (!doc.hasIn(['timeouts', 'discovery'])) doc.setIn(['timeouts', 'discovery'], t);
      changed.add(i);
    }
  });
  if (controlPlaneTimeout !== undefined && initIndex >= 0) {
    const init = docs[initIndex]!;
    if (!init.hasIn(['timeouts', 'controlPlaneComponentHealthCheck'])) init.setIn(['timeouts', 'controlPlaneComponentHealthCheck'], controlPlaneTimeout);
    changed.add(initIndex);
  }
  let out = text;
  for (let i = chunks.length - 1; i >= 0; i--) {
    if (!changed.has(i)) continue;
    const c = chunks[i]!;
    let replacement: string;
    try {
      replacement = docs[i]!.toString({ lineWidth: 0 });
    } catch {
      // the library cannot write some documents back (an alias to an anchor that is not there): keep its text
      continue;
    }
    if (!c.text.endsWith('\n') && replacement.endsWith('\n')) replacement = replacement.slice(0, -1);
    out = out.slice(0, c.start) + replacement + out.slice(c.end);
  }
  return out;
}
