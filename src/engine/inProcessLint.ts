/**
 * The command line's lint runner: the same answers as LintRunner's worker (./lintAnswer.ts), computed on the
 * process's own thread, under the same per-file time limit. A one-shot `kubeadm-workbench lint` spent more time
 * starting the worker (a second Node environment, about 35 ms on a 2-core machine) and loading the linters into it
 * than linting: measured on a 10,000-line haproxy.cfg, 175 ms for the whole process with the worker.
 *
 * The limit: each answer runs inside a vm script with a `timeout`, whose watchdog stops synchronous code as
 * terminating a worker does; the file then gets the same "lint stopped after N ms" finding. Stopped half-way, a linter
 * may leave its caches half-written, so every later request of the run goes to a fresh worker (the LintRunner this
 * class extends), as the worker runner starts a fresh worker after a timeout. What this thread cannot have is the
 * worker's heap ceiling: a file that needs more memory than the process has ends the process — the editor, a
 * long-lived host, keeps the worker.
 */
import { Script } from 'node:vm';
import { errorMessage } from '../core/errors';
import type { FileKind, LintContext, SourceFile } from '../core/lint/types';
import { answerLintRequest, needsLinters } from './lintAnswer';
import { kindsFor, LAZY_LINTERS, loadKinds, type Linters } from './lintModules';
import { LintRunner, outcomeOf, timeoutFinding, type LintOutcome, type LintRequest } from './lintRunner';

type LintOptions = { kind?: FileKind; timeoutMs?: number; model?: boolean; detectOnly?: boolean; english?: boolean };

/** Where the vm script finds the call to make: a global slot, set only while the script runs. */
const SLOT = Symbol.for('kubeadm-workbench.inProcessLint');
const CALL = new Script(`globalThis[Symbol.for('kubeadm-workbench.inProcessLint')]()`, { filename: 'kubeadm-workbench-lint-limit' });

/** Runs `fn` on this thread, stopped after `ms`: its value, or 'timeout'. */
function withTimeLimit<T>(fn: () => T, ms: number): { value: T } | 'timeout' {
  const slots = globalThis as unknown as Record<symbol, (() => T) | undefined>;
  slots[SLOT] = fn;
  try {
    return { value: CALL.runInThisContext({ timeout: ms }) as T };
  } catch (e) {
    if ((e as { code?: string }).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') return 'timeout';
    throw e;
  } finally {
    delete slots[SLOT];
  }
}

export class InProcessLintRunner extends LintRunner {
  /** After a file was stopped: every later request goes to the worker (fresh module state). */
  private stopped = false;
  private nextRequest = 1;
  /** One request at a time, in order, as the worker answers them. */
  private inOrder: Promise<unknown> = Promise.resolve();

  /** Nothing to warm: each file's linters load before its time limit starts (./lintModules.ts), only those of its kinds. */
  override warmUp(): void {}

  override lint(file: SourceFile, context: LintContext = {}, opts: LintOptions = {}): Promise<LintOutcome> {
    if (this.disposed) return Promise.resolve({ status: 'error', findings: [], ms: 0 });
    const answer = this.inOrder.then(() => (this.stopped ? super.lint(file, context, opts) : this.answer(file, context, opts)));
    this.inOrder = answer.catch(() => undefined);
    return answer;
  }

  private async answer(file: SourceFile, context: LintContext, opts: LintOptions): Promise<LintOutcome> {
    const request: LintRequest = { id: this.nextRequest++, file, context, ...(opts.kind ? { kind: opts.kind } : {}), ...(opts.model ? { model: true } : {}), ...(opts.detectOnly ? { detectOnly: true } : {}), ...(opts.english ? { english: true } : {}) };
    let registry: Linters | undefined;
    if (needsLinters(request)) {
      try {
        await loadKinds(kindsFor(request));
        registry = LAZY_LINTERS;
      } catch (e) {
        return outcomeOf({ type: 'error', id: request.id, message: `the linters did not load: ${errorMessage(e)}`, ms: 0 });
      }
    }
    const timeoutMs = opts.timeoutMs ?? this.timeoutMs;
    const started = performance.now();
    const answered = withTimeLimit(() => answerLintRequest(request, registry), timeoutMs);
    if (answered !== 'timeout') return outcomeOf(answered.value);
    this.stopped = true;
    return { status: 'timeout', findings: [timeoutFinding(timeoutMs, this.options.timeoutSeverity ?? 'warning', file.text)], ms: performance.now() - started };
  }
}
