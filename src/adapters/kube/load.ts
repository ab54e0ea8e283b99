/**
 * Loads the kube adapter bundle (dist/kube.js) on first use. The extension and CLI bundles never
 * contain @kubernetes/client-node: activation stays cheap and the adapter loads (~100 ms) only when a
 * view or the status command connects.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';

export type KubeAdapter = typeof import('./index');

let cached: KubeAdapter | undefined;

export function loadKubeAdapter(): KubeAdapter {
  if (cached) return cached;
  const candidates = [process.env.KW_KUBE_ADAPTER, join(__dirname, 'kube.js'), join(__dirname, '../../../dist/kube.js')].filter((p): p is string => !!p);
  const found = candidates.find((p) => existsSync(p));
  if (!found) throw new Error(`kube adapter bundle not found (looked at ${candidates.join(', ')}); run \`npm run build\``);
  // A computed path: esbuild leaves this require alone, so the adapter is not bundled into the caller.
  const req = require;
  cached = req(found) as KubeAdapter;
  return cached;
}
