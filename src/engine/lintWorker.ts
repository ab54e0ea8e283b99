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
import { parseInventory } from '../core/inventory/parse';
import type * as Registry from '../core/lint/registry';
import { catalogueLanguage, inEnglish, useMessages } from '../core/l10n';
import type { LintRequest, LintResponse, LintWorkerData, WorkerToRunner } from './lintRunner';

let registry: typeof Registry | undefined;

/** Run from the TypeScript source (tsx, in tests), the worker has a CommonJS hook only: the source is required then. */
const FROM_SOURCE = __filename.endsWith('.ts');
const REGISTRY_SOURCE = '../core/lint/registry';

async function loadRegistry(): Promise<typeof Registry> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  registry ??= FROM_SOURCE ? (require(REGISTRY_SOURCE) as typeof Registry) : await import('../core/lint/registry.js');
  return registry;
}

/** Whether answering `req` takes the linters: anything but the parse of an inventory. */
function needsLinters(req: LintRequest): boolean {
  return !(req.model && req.kind === 'inventory' && !req.detectOnly);
}

function handle(req: LintRequest): LintResponse {
  const started = performance.now();
  try {
    const kind = req.kind ?? registry!.detectKind(req.file.path, req.file.text);
    if (!kind || req.detectOnly) return { type: 'result', id: req.id, ...(kind ? { kind } : {}), findings: [], ms: performance.now() - started };
    if (req.model && kind === 'inventory') {
      const inventory = parseInventory(req.file.text);
      return { type: 'result', id: req.id, kind, findings: inventory.findings, inventory, ms: performance.now() - started };
    }
    const findings = registry!.lintText(req.file, req.context, kind);
    // the English findings come from a second run in English (the result cache is cleared on each switch)
    const english = req.english && catalogueLanguage() !== 'en' ? inEnglish(() => registry!.lintText(req.file, req.context, kind)) : undefined;
    return { type: 'result', id: req.id, kind, findings, ...(english ? { english } : {}), ms: performance.now() - started };
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    return { type: 'error', id: req.id, message, ms: performance.now() - started };
  }
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
        port.postMessage(handle(req) satisfies WorkerToRunner);
      });
    });
    port.postMessage({ type: 'ready' } satisfies WorkerToRunner);
  });
}
