/**
 * The registry (every linter, its rules and the kubeadm schemas: about half a megabyte) loaded on first use
 * instead of when the extension loads: esbuild turns this require() into a lazy initializer, so activation
 * stays cheap and a workspace without config files never pays for it. Linting itself runs in the worker.
 */
import type * as Registry from '../core/lint/registry';

let registry: typeof Registry | undefined;

export function lintRegistry(): typeof Registry {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  registry ??= require('../core/lint/registry') as typeof Registry;
  return registry;
}
