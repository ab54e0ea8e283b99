/**
 * The registry (every linter, its rules and the kubeadm schemas: about half a megabyte) in a file of its own, loaded
 * when the first document is looked at, a hover needs a rule or the Diagnostics webview lists them — not when the
 * extension activates, and never in a workspace without documents to check. Linting itself runs in the worker.
 */
import type * as Registry from '../core/lint/registry';
import { errorMessage } from '../core/errors';
import { log } from './log';

let registry: typeof Registry | undefined;
let loading: Promise<typeof Registry> | undefined;

/** The registry, loaded on the first call. */
export function loadLintRegistry(): Promise<typeof Registry> {
  loading ??= import('../core/lint/registry.js').then(
    (m) => (registry = m),
    (e: unknown) => {
      loading = undefined;
      throw e;
    },
  );
  return loading;
}

/** The registry once loadLintRegistry() has resolved; code that runs before must await that first. */
export function lintRegistry(): typeof Registry {
  if (!registry) throw new Error('the lint registry is used before loadLintRegistry() resolved');
  return registry;
}

/**
 * True when the registry is loaded and a handler may detect `document`'s kind now; otherwise the registry starts
 * loading and `again` runs once it is there. Only files and untitled documents load it: output channels and git views
 * are never config files.
 */
export function lintRegistryReadyFor(document: { uri: { scheme: string } }, again: () => void): boolean {
  if (registry) return true;
  if (document.uri.scheme === 'file' || document.uri.scheme === 'untitled') {
    loadLintRegistry().then(again, (e: unknown) => log.error(`the linters did not load: ${errorMessage(e)}`));
  }
  return false;
}
