/**
 * Worker-thread entry (bundled as dist/lintWorker.js): runs the registry's linters away from the
 * extension host's (or the CLI's) main thread, so a pathological file can be stopped by terminating
 * the worker. The protocol is in ./lintRunner.ts, which is the only module that talks to it.
 */
import { isMainThread, parentPort } from 'node:worker_threads';
import { parseInventory } from '../core/inventory/parse';
import { detectKind, lintText } from '../core/lint/registry';
import type { LintRequest, LintResponse, WorkerToRunner } from './lintRunner';

function handle(req: LintRequest): LintResponse {
  const started = performance.now();
  try {
    const kind = req.kind ?? detectKind(req.file.path, req.file.text);
    if (!kind || req.detectOnly) return { type: 'result', id: req.id, ...(kind ? { kind } : {}), findings: [], ms: performance.now() - started };
    if (req.model && kind === 'inventory') {
      const inventory = parseInventory(req.file.text);
      return { type: 'result', id: req.id, kind, findings: inventory.findings, inventory, ms: performance.now() - started };
    }
    const findings = lintText(req.file, req.context, kind);
    return { type: 'result', id: req.id, kind, findings, ms: performance.now() - started };
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    return { type: 'error', id: req.id, message, ms: performance.now() - started };
  }
}

if (!isMainThread && parentPort) {
  const port = parentPort;
  port.on('message', (req: LintRequest) => port.postMessage(handle(req) satisfies WorkerToRunner));
  port.postMessage({ type: 'ready' } satisfies WorkerToRunner);
}
