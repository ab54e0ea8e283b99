/**
 * Worker-thread entry (bundled as dist/lintWorker.js): runs the registry's linters away from the
 * extension host's (or the CLI's) main thread, so a pathological file can be stopped by terminating
 * the worker. The protocol is in ./lintRunner.ts, which is the only module that talks to it.
 */
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { parseInventory } from '../core/inventory/parse';
import { detectKind, lintText } from '../core/lint/registry';
import { catalogueLanguage, inEnglish, useMessages } from '../core/l10n';
import type { LintRequest, LintResponse, LintWorkerData, WorkerToRunner } from './lintRunner';

function handle(req: LintRequest): LintResponse {
  const started = performance.now();
  try {
    const kind = req.kind ?? detectKind(req.file.path, req.file.text);
    if (!kind) return { type: 'result', id: req.id, findings: [], ms: performance.now() - started };
    if (req.model && kind === 'inventory') {
      const inventory = parseInventory(req.file.text);
      return { type: 'result', id: req.id, kind, findings: inventory.findings, inventory, ms: performance.now() - started };
    }
    const findings = lintText(req.file, req.context, kind);
    // the English findings come from a second run in English (the result cache is cleared on each switch)
    const english = req.english && catalogueLanguage() !== 'en' ? inEnglish(() => lintText(req.file, req.context, kind)) : undefined;
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
  port.on('message', (req: LintRequest) => port.postMessage(handle(req) satisfies WorkerToRunner));
  port.postMessage({ type: 'ready' } satisfies WorkerToRunner);
}
