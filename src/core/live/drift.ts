/**
 * Manifest drift over SSH: reads /etc/kubernetes/manifests/<component>.yaml on a control-plane host and
 * compares each with its mirror pod (see manifestDrift in controlPlane.ts for the method and why not the
 * config.hash).
 */
import { t } from '../l10n';
import { parse } from 'yaml';
import { CONTROL_PLANE_COMPONENTS, componentOf, manifestDrift, type Component, type ControlPlaneModel } from './controlPlane';
import type { RemoteExec } from './etcdSource';
import { seq, sh } from '../ssh/command';
import type { Container, Pod } from './types';

const MARK = '=====KW-MANIFEST ';

export const MANIFEST_DIR = '/etc/kubernetes/manifests';

/** One SSH command for the four manifests; a missing file comes back as absent. */
export async function readManifests(remote: RemoteExec, host: string, sudo = false): Promise<Map<Component, { spec?: { containers?: Container[] } }>> {
  const s = sudo ? sh`sudo -n ` : sh``;
  const script = seq(...CONTROL_PLANE_COMPONENTS.map((c) => sh`echo ${MARK + c}; ${s}cat ${`${MANIFEST_DIR}/${c}.yaml`} 2>/dev/null || true`));
  const r = await remote.exec(host, script.text);
  const out = new Map<Component, { spec?: { containers?: Container[] } }>();
  const parts = r.stdout.split(MARK).slice(1);
  for (const part of parts) {
    const nl = part.indexOf('\n');
    const component = part.slice(0, nl).trim() as Component;
    const text = part.slice(nl + 1);
    if (!text.trim()) continue;
    try {
      out.set(component, parse(text) as { spec?: { containers?: Container[] } });
    } catch {
      // unparsable manifest: kubelet would not run it either; reported as drift below
      out.set(component, {});
    }
  }
  return out;
}

/** Sets `drift` on the model's components of `node` from the manifests read on its host. */
export function applyDrift(model: ControlPlaneModel, node: string, manifests: Map<Component, { spec?: { containers?: Container[] } }>, pods: Pod[]): void {
  const n = model.nodes.find((x) => x.name === node);
  if (!n) return;
  for (const c of n.components) {
    if (!c.present) continue;
    const pod = pods.find((p) => p.metadata.name === c.podName && componentOf(p) === c.component);
    const manifest = manifests.get(c.component);
    if (!pod) continue;
    c.drift = manifest ? manifestDrift(manifest, pod) : { drift: true, differences: [t('{0}/{1}.yaml is missing on the host', MANIFEST_DIR, c.component)] };
  }
}
