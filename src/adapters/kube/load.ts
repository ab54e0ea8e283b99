/**
 * Loads the kube adapter bundle (dist/kube.js) on first use. The extension and CLI bundles never
 * contain @kubernetes/client-node: activation stays cheap and the adapter loads (~100 ms) only when a
 * view or the status command connects.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { t } from '../../core/l10n';

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
        ? t('the Kubernetes adapter bundle is not built (looked at {0}): run npm run build', candidates.join(', '))
        : t('the Kubernetes adapter (kube.js) is missing from {0}: this installation of Kubeadm Workbench is incomplete; reinstall it', __dirname),
    );
  }
  // A computed path: esbuild leaves this require alone, so the adapter is not bundled into the caller.
  const req = require;
  const adapter = req(found) as KubeAdapter;
  cached = adapter;
  // The bundle has a copy of the catalogue module of its own; every copy keeps its state in one record on globalThis
  // (core/l10n/catalogue.ts), so the model's states and problems, its verdict and its errors speak the caller's
  // language with nothing handed over. (Handing the messages over as well re-fired the catalogue's change listeners
  // for ever: each hand-over is a new map, a change.)
  return adapter;
}
