/**
 * The first lint in the editor after a large config file opens: the lint worker is started then (the editor starts it
 * on the first config file), loads the linters and lints the file with its code still cold. Timed as the editor's
 * ConfigDiagnostics meets it, through a LintRunner of its own per run: from lint() to the findings, with the worker's
 * start (until it said ready) and the lint inside the worker apart. The worker is the shipped one: scripts/bench-bundled.mjs
 * builds it next to the benchmark.
 */
import { performance } from 'node:perf_hooks';
import { LintRunner } from '../src/engine/lintRunner';
import type { LintContext, SourceFile } from '../src/core/lint/types';

export interface ColdLint {
  /** lint() called to findings received. */
  totalMs: number;
  /** The lint itself, timed in the worker. */
  lintMs: number;
  findings: number;
}

/** `runs` first lints of `file`, each in a fresh worker (the previous one stopped first). */
export async function firstLints(file: SourceFile, context: LintContext, runs: number): Promise<ColdLint[]> {
  const out: ColdLint[] = [];
  for (let i = 0; i < runs; i++) {
    const runner = new LintRunner({ timeoutSeverity: 'warning' });
    try {
      const t0 = performance.now();
      const outcome = await runner.lint(file, context, { kind: 'haproxy' });
      const totalMs = performance.now() - t0;
      if (outcome.status !== 'ok') throw new Error(`the cold lint ended ${outcome.status}: ${outcome.findings[0]?.message ?? ''}`);
      out.push({ totalMs, lintMs: outcome.ms, findings: outcome.findings.length });
    } finally {
      runner.dispose();
    }
  }
  return out;
}
