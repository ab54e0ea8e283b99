/**
 * Runs the registry's linters in a worker thread (./lintWorker.ts, bundled as dist/lintWorker.js) with a
 * per-file time limit: when a file takes too long the worker is terminated — the only way to stop
 * synchronous code — and the file gets a single "lint stopped after N ms" finding at line 1. The next
 * file starts a fresh worker. Shared by the editor (src/editor/configDiagnostics.ts) and the `lint`
 * CLI; it does not depend on the editor.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { Finding, Severity } from '../core/findings';
import type { InventoryParseResult } from '../core/inventory/parse';
import type { FileKind, LintContext, RuleInfo, SourceFile } from '../core/lint/types';
import { ruleTable } from '../core/lint/ruleTable';
import { errorMessage } from '../core/errors';
import { catalogueGeneration, catalogueSnapshot, msg, t } from '../core/l10n';

/** Runner → worker. */
export interface LintRequest {
  id: number;
  file: SourceFile;
  context: LintContext;
  /** Skip detection when the caller already knows the kind. */
  kind?: FileKind;
  /** For an inventory: answer the parsed model too (the editor's inventory is parsed here, under the limits). */
  model?: boolean;
  /**
   * Also the findings in English (`english`), when the catalogue speaks another language: the command line's
   * `--format json`/`sarif` keep English as the stable text and add the localised one.
   */
  english?: boolean;
  /** Answer the file's kind only, without linting it (the caller then need not load the linters itself). */
  detectOnly?: boolean;
}

/** Worker → runner for one request. */
export type LintResponse =
  | { type: 'result'; id: number; kind?: FileKind; findings: Finding[]; english?: Finding[]; ms: number; inventory?: InventoryParseResult }
  | { type: 'error'; id: number; message: string; ms: number };

export type WorkerToRunner = { type: 'ready' } | LintResponse;

export type LintStatus = 'ok' | 'unsupported' | 'timeout' | 'error';

export interface LintOutcome {
  status: LintStatus;
  kind?: FileKind;
  findings: Finding[];
  /** Time spent linting in the worker (or until it was stopped). */
  ms: number;
  /** The parsed inventory, when asked for (`model`). */
  inventory?: InventoryParseResult;
  /** The same findings in English, in the same order, when asked for (`english`) and the catalogue is not English. */
  english?: Finding[];
}

/** What the worker starts with: the catalogue of the thread that starts it (a worker begins in English). */
export interface LintWorkerData {
  /** Load the linters at start (false: a worker that only parses inventories until a lint asks for them). */
  linters?: boolean;
  catalogue?: { language: string; messages: Record<string, string> };
}

export const TIMEOUT_RULE = 'lint/timeout';
export const INTERNAL_ERROR_RULE = 'lint/internal-error';
export const DEFAULT_LINT_TIMEOUT_MS = 3000;
export const DEFAULT_LINT_MEMORY_MB = 1024;

/** Rules the runner itself reports, for hovers and SARIF next to the registry's. */
export const RUNNER_RULES: RuleInfo[] = ruleTable([
  {
    id: TIMEOUT_RULE,
    severity: 'warning',
    title: msg('The file was checked within the per-file time limit.'),
    why: msg('A file too large or too convoluted to check in time is stopped so the editor and CI never hang; its other problems are not reported.'),
  },
  {
    id: INTERNAL_ERROR_RULE,
    severity: 'error',
    title: msg('The linter ran without an internal error.'),
    why: msg('An internal error means the file was not checked at all, so it may hide real problems; please report it with the file.'),
  },
]).rules;

export interface LintRunnerOptions {
  /** The worker script; by default dist/lintWorker.js next to this bundle, or src/engine/lintWorker.ts under tsx. */
  workerFile?: string;
  /** Per-file time limit (default 3000 ms). */
  timeoutMs?: number;
  /** Severity of the "lint stopped" finding: a warning in the editor, an error in CI. */
  timeoutSeverity?: Severity;
  /** How long a fresh worker may take to load before the job fails (default 30 s). */
  bootTimeoutMs?: number;
  /** Heap ceiling of the worker (default 1024 MB); a file that needs more is stopped like a slow one. */
  maxMemoryMb?: number;
  /** A private folder for V8's compile cache of the worker's code (Node ≥ 22.1 uses it, older Node ignores it). */
  compileCacheDir?: string;
  /**
   * False for a runner that parses inventories only (parseInventory): its worker starts without loading the linters,
   * which a lint or a detection then loads first, inside its time limit. Default true.
   */
  linters?: boolean;
}

interface Job {
  request: Omit<LintRequest, 'id'>;
  timeoutMs: number;
  resolve: (outcome: LintOutcome) => void;
}

export class LintRunner {
  private worker: Worker | undefined;
  private ready: Promise<Worker> | undefined;
  private readonly queue: Job[] = [];
  private running = false;
  private nextId = 1;
  protected disposed = false;
  /** How many workers were started (tests check that a timeout replaces the worker). */
  workersStarted = 0;
  /** The catalogue generation the running worker was given. */
  private workerCatalogue = -1;

  constructor(protected readonly options: LintRunnerOptions = {}) {}

  get timeoutMs(): number {
    return this.options.timeoutMs ?? DEFAULT_LINT_TIMEOUT_MS;
  }

  /** Lints one file; never rejects: timeouts and crashes come back as findings. */
  lint(file: SourceFile, context: LintContext = {}, opts: { kind?: FileKind; timeoutMs?: number; model?: boolean; detectOnly?: boolean; english?: boolean } = {}): Promise<LintOutcome> {
    if (this.disposed) return Promise.resolve({ status: 'error', findings: [], ms: 0 });
    return new Promise((resolve) => {
      this.queue.push({ request: { file, context, ...(opts.kind ? { kind: opts.kind } : {}), ...(opts.model ? { model: true } : {}), ...(opts.detectOnly ? { detectOnly: true } : {}), ...(opts.english ? { english: true } : {}) }, timeoutMs: opts.timeoutMs ?? this.timeoutMs, resolve });
      void this.pump();
    });
  }

  /** The kind of a file by its name and text, as the registry detects it (in the worker, under the time limit). */
  async detect(file: SourceFile, timeoutMs?: number): Promise<FileKind | undefined> {
    const outcome = await this.lint(file, {}, { detectOnly: true, ...(timeoutMs ? { timeoutMs } : {}) });
    return outcome.status === 'ok' ? outcome.kind : undefined;
  }

  /** Starts the worker now, so that it loads the linters while the caller reads its files (a failure waits for the first lint). */
  warmUp(): void {
    if (!this.disposed) this.start().catch(() => undefined);
  }

  /**
   * Parses an inventory in the worker, under the time and memory limits of config files. When it is stopped
   * (too slow, too big) the answer has no model and its finding is an error, so nothing acts on the file.
   */
  async parseInventory(file: SourceFile, timeoutMs?: number): Promise<InventoryParseResult> {
    const outcome = await this.lint(file, {}, { kind: 'inventory', model: true, ...(timeoutMs ? { timeoutMs } : {}) });
    if (outcome.inventory) return outcome.inventory;
    return { findings: outcome.findings.map((f) => ({ ...f, severity: 'error' as const })), locations: { hosts: new Map(), fields: new Map() } };
  }

  /** Number of files waiting (not counting the one being linted). */
  get pending(): number {
    return this.queue.length;
  }

  dispose(): void {
    this.disposed = true;
    for (const job of this.queue.splice(0)) job.resolve({ status: 'error', findings: [], ms: 0 });
    this.stopWorker();
  }

  private async pump(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      for (let job = this.queue.shift(); job; job = this.queue.shift()) job.resolve(await this.run(job));
    } finally {
      this.running = false;
    }
  }

  private async run(job: Job): Promise<LintOutcome> {
    let worker: Worker;
    try {
      worker = await this.start();
    } catch (e) {
      return { status: 'error', findings: [internalError(errorMessage(e))], ms: 0 };
    }
    const id = this.nextId++;
    const started = performance.now();
    return new Promise<LintOutcome>((resolve) => {
      const finish = (outcome: LintOutcome): void => {
        clearTimeout(timer);
        worker.off('message', onMessage);
        worker.off('exit', onExit);
        worker.off('error', onError);
        resolve(outcome);
      };
      const onMessage = (msg: WorkerToRunner): void => {
        if (msg.type === 'ready' || msg.id !== id) return;
        finish(outcomeOf(msg));
      };
      const onError = (e: Error & { code?: string }): void => {
        this.forget(worker);
        const message = e.code === 'ERR_WORKER_OUT_OF_MEMORY' ? t('the file needs more than {0} MB to check', this.options.maxMemoryMb ?? DEFAULT_LINT_MEMORY_MB) : e.message;
        finish({ status: 'error', findings: [internalError(message)], ms: performance.now() - started });
      };
      const onExit = (): void => {
        this.forget(worker);
        finish({ status: 'error', findings: [internalError(t('the lint worker exited'))], ms: performance.now() - started });
      };
      const timer = setTimeout(() => {
        this.stopWorker();
        finish({ status: 'timeout', findings: [timeoutFinding(job.timeoutMs, this.options.timeoutSeverity ?? 'warning', job.request.file.text)], ms: performance.now() - started });
      }, job.timeoutMs);
      worker.on('message', onMessage);
      worker.on('error', onError);
      worker.on('exit', onExit);
      worker.postMessage({ id, ...job.request } satisfies LintRequest);
    });
  }

  /** A loaded worker: the time limit starts only once the worker has loaded the linters. */
  private start(): Promise<Worker> {
    // a worker keeps the catalogue it started with: after a change of language the next file starts a fresh one
    if (this.ready && this.workerCatalogue !== catalogueGeneration()) this.stopWorker();
    if (this.ready) return this.ready;
    this.workerCatalogue = catalogueGeneration();
    const catalogue = catalogueSnapshot();
    const file = resolveWorkerFile(this.options.workerFile);
    // Under tsx (unit tests) the worker loads the TypeScript source through tsx's CommonJS hook.
    // A memory ceiling as well as the time limit: an alias bomb or a huge file cannot exhaust the machine.
    const resourceLimits = { maxOldGenerationSizeMb: this.options.maxMemoryMb ?? DEFAULT_LINT_MEMORY_MB };
    const workerData: LintWorkerData = { linters: this.options.linters ?? true, ...(catalogue ? { catalogue } : {}) };
    const worker = file.endsWith('.ts')
      ? new Worker(`require('tsx/cjs/api').register(); require(${JSON.stringify(file)});`, { eval: true, stdout: false, stderr: false, resourceLimits, workerData })
      : new Worker(file, { stdout: false, stderr: false, resourceLimits, workerData, ...(this.options.compileCacheDir ? { env: { ...process.env, NODE_COMPILE_CACHE: this.options.compileCacheDir } } : {}) });
    worker.unref();
    this.worker = worker;
    this.workersStarted++;
    this.ready = new Promise<Worker>((resolve, reject) => {
      const timer = setTimeout(() => {
        cleanup();
        this.stopWorker();
        reject(new Error(t('the lint worker did not start within {0} ms', this.options.bootTimeoutMs ?? 30_000)));
      }, this.options.bootTimeoutMs ?? 30_000);
      const onMessage = (msg: WorkerToRunner): void => {
        if (msg.type !== 'ready') return;
        cleanup();
        resolve(worker);
      };
      const onError = (e: Error): void => {
        cleanup();
        this.forget(worker);
        reject(new Error(t('the lint worker failed to start: {0}', e.message)));
      };
      const onExit = (code: number): void => {
        cleanup();
        this.forget(worker);
        reject(new Error(t('the lint worker exited while starting (code {0})', String(code))));
      };
      const cleanup = (): void => {
        clearTimeout(timer);
        worker.off('message', onMessage);
        worker.off('error', onError);
        worker.off('exit', onExit);
      };
      worker.on('message', onMessage);
      worker.on('error', onError);
      worker.on('exit', onExit);
    });
    return this.ready;
  }

  private forget(worker: Worker): void {
    if (this.worker !== worker) return;
    this.worker = undefined;
    this.ready = undefined;
  }

  private stopWorker(): void {
    const worker = this.worker;
    this.worker = undefined;
    this.ready = undefined;
    void worker?.terminate();
  }
}

/** The outcome of a worker's (or the command line's own thread's) answer. */
export function outcomeOf(msg: LintResponse): LintOutcome {
  if (msg.type === 'error') return { status: 'error', findings: [internalError(msg.message)], ms: msg.ms };
  return { status: msg.kind ? 'ok' : 'unsupported', ...(msg.kind ? { kind: msg.kind } : {}), findings: msg.findings, ms: msg.ms, ...(msg.inventory ? { inventory: msg.inventory } : {}), ...(msg.english ? { english: msg.english } : {}) };
}

function resolveWorkerFile(explicit: string | undefined): string {
  if (explicit) return explicit;
  // Bundled into dist/cli.js or dist/extension.js the worker sits next to the bundle.
  const bundled = join(__dirname, 'lintWorker.js');
  if (existsSync(bundled)) return bundled;
  const source = join(__dirname, 'lintWorker.ts');
  return existsSync(source) ? source : bundled;
}

export function timeoutFinding(ms: number, severity: Severity, text = ''): Finding {
  const eol = text.indexOf('\n');
  const end = Math.max(0, Math.min(eol < 0 ? text.length : eol, 200) - (text.charCodeAt(eol - 1) === 13 ? 1 : 0));
  return {
    rule: TIMEOUT_RULE,
    severity,
    message: t('lint stopped after {0} ms: the file is too large or too complex to check within the time limit', ms),
    why: RUNNER_RULES[0]!.why,
    range: { start: { line: 0, character: 0 }, end: { line: 0, character: end } },
  };
}

export function internalError(message: string): Finding {
  return {
    rule: INTERNAL_ERROR_RULE,
    severity: 'error',
    message: t('lint failed: {0}', message),
    why: RUNNER_RULES[1]!.why,
    range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
  };
}
