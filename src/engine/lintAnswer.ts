/**
 * The answer to one lint request, wherever it runs: in the lint worker (./lintWorker.ts) or, for the command line, on
 * its own thread under a time limit (./inProcessLint.ts). One function, so both give the same findings.
 */
import { parseInventory } from '../core/inventory/parse';
import { errorMessage } from '../core/errors';
import { catalogueLanguage, inEnglish } from '../core/l10n';
import type { Linters } from './lintModules';
import type { LintRequest, LintResponse } from './lintRunner';

/** Whether answering `req` takes the linters: anything but the parse of an inventory. */
export function needsLinters(req: LintRequest): boolean {
  return !(req.model && req.kind === 'inventory' && !req.detectOnly);
}

/**
 * Detects, parses or lints as `req` asks, with the registry or with the linters of the kinds `req` needs
 * (./lintModules.ts: loadKinds(kindsFor(req)) first); `registry` may be undefined only when `needsLinters(req)` is false.
 */
export function answerLintRequest(req: LintRequest, registry: Linters | undefined): LintResponse {
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
    const message = errorMessage(e);
    return { type: 'error', id: req.id, message, ms: performance.now() - started };
  }
}
