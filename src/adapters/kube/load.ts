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
  // Bundled (the extension, the CLI) the adapter sits next to this code. Only when this file runs from the source
  // tree (tests under tsx) is the checkout's dist/ a candidate; an installed extension never looks outside its folder.
  const fromSource = /[\\/]src[\\/]adapters[\\/]kube$/.test(__dirname);
  const candidates = [process.env.KW_KUBE_ADAPTER, join(__dirname, 'kube.js'), fromSource ? join(__dirname, '../../../dist/kube.js') : undefined].filter((p): p is string => !!p);
  const found = candidates.find((p) => existsSync(p));
  if (!found) {
    throw new Error(
      fromSource
        ? `the Kubernetes adapter bundle is not built (looked at ${candidates.join(', ')}): run npm run build`
        : `the Kubernetes adapter (kube.js) is missing from ${__dirname}: this installation of Kubeadm Workbench is incomplete; reinstall it`,
    );
  }
  // A computed path: esbuild leaves this require alone, so the adapter is not bundled into the caller.
  const req = require;
  cached = req(found) as KubeAdapter;
  return cached;
}
