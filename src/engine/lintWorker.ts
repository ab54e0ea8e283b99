/**
 * Worker-thread entry (bundled as dist/lintWorker.js): runs the registry's linters away from the
 * extension host's (or the CLI's) main thread, so a pathological file can be stopped by terminating
 * the worker. The protocol is in ./lintRunner.ts, which is the only module that talks to it.
 *
 * The linters (about half a megabyte with the kubeadm schemas) are a file of their own in the build: loaded before the
 * worker says it is ready, so that a file's time limit counts its lint only — unless the runner asked for a worker that
 * parses inventories (the editor's Inventory view waits for that one), which loads them only if a lint comes.
 */
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import type * as Registry from '../core/lint/registry';
import { useMessages } from '../core/l10n';
import { answerLintRequest, needsLinters } from './lintAnswer';
import type { LintRequest, LintWorkerData, WorkerToRunner } from './lintRunner';

let registry: typeof Registry | undefined;

/** Run from the TypeScript source (tsx, in tests), the worker has a CommonJS hook only: the source is required then. */
const FROM_SOURCE = __filename.endsWith('.ts');
const REGISTRY_SOURCE = '../core/lint/registry';

async function loadRegistry(): Promise<typeof Registry> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  registry ??= FROM_SOURCE ? (require(REGISTRY_SOURCE) as typeof Registry) : await import('../core/lint/registry.js');
  return registry;
}

if (!isMainThread && parentPort) {
  // the starting thread's catalogue (the editor's from vscode.l10n.bundle, the command line's from its bundle file)
  const { catalogue } = (workerData ?? {}) as LintWorkerData;
  if (catalogue) useMessages(catalogue.language, new Map(Object.entries(catalogue.messages)));
  const port = parentPort;
  const preload = (workerData as LintWorkerData | null | undefined)?.linters !== false;
  void (preload ? loadRegistry() : Promise.resolve()).then(() => {
    // One request at a time, in order: a request that needs the linters first waits for them to load.
    let queue = Promise.resolve();
    port.on('message', (req: LintRequest) => {
      queue = queue.then(async () => {
        if (!registry && needsLinters(req)) {
          try {
            await loadRegistry();
          } catch (e) {
            port.postMessage({ type: 'error', id: req.id, message: `the linters did not load: ${e instanceof Error ? e.message : String(e)}`, ms: 0 } satisfies WorkerToRunner);
            return;
          }
        }
        port.postMessage(answerLintRequest(req, registry) satisfies WorkerToRunner);
      });
    });
    port.postMessage({ type: 'ready' } satisfies WorkerToRunner);
  });
}
