/**
 * Worker-thread entry (bundled as dist/lintWorker.js): runs the registry's linters away from the
 * extension host's (or the CLI's) main thread, so a pathological file can be stopped by terminating
 * the worker. The protocol is in ./lintRunner.ts, which is the only module that talks to it.
 *
 * Each kind's linter (the kubeadm one about half a megabyte with its schemas) is a file of its own in the build
 * (./lintModules.ts): all are loaded before the worker says it is ready, so that a file's time limit counts its lint
 * only — unless the runner asked for a worker that parses inventories (the editor's Inventory view waits for that
 * one), which loads only the kinds a lint that comes needs.
 */
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { errorMessage } from '../core/errors';
import { useMessages } from '../core/l10n';
import { answerLintRequest, needsLinters } from './lintAnswer';
import { ALL_KINDS, kindsFor, LAZY_LINTERS, loadKinds } from './lintModules';
import type { LintRequest, LintWorkerData, WorkerToRunner } from './lintRunner';

if (!isMainThread && parentPort) {
  // the starting thread's catalogue (the editor's from vscode.l10n.bundle, the command line's from its bundle file)
  const { catalogue } = (workerData ?? {}) as LintWorkerData;
  if (catalogue) useMessages(catalogue.language, new Map(Object.entries(catalogue.messages)));
  const port = parentPort;
  const preload = (workerData as LintWorkerData | null | undefined)?.linters !== false;
  void (preload ? loadKinds(ALL_KINDS) : Promise.resolve()).then(() => {
    // One request at a time, in order: a request that needs the linters first waits for them to load.
    let queue = Promise.resolve();
    port.on('message', (req: LintRequest) => {
      queue = queue.then(async () => {
        if (needsLinters(req)) {
          try {
            await loadKinds(kindsFor(req));
          } catch (e) {
            port.postMessage({ type: 'error', id: req.id, message: `the linters did not load: ${errorMessage(e)}`, ms: 0 } satisfies WorkerToRunner);
            return;
          }
        }
        port.postMessage(answerLintRequest(req, needsLinters(req) ? LAZY_LINTERS : undefined) satisfies WorkerToRunner);
      });
    });
    port.postMessage({ type: 'ready' } satisfies WorkerToRunner);
  });
}
