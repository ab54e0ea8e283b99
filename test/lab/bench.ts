/**
 * The lab tier's benchmarks: each test records its numbers here (test-results/lab/bench.json) and
 * scripts/lab-bench.mjs prints them with their ratios at the end of the tier.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const BENCH_FILE = join(resolve(__dirname, '../..'), 'test-results', 'lab', 'bench.json');

export function recordBench(values: Record<string, number | string>): void {
  let all: Record<string, number | string> = {};
  try {
    all = JSON.parse(readFileSync(BENCH_FILE, 'utf8')) as typeof all;
  } catch {
    // first record of this run
  }
  mkdirSync(join(BENCH_FILE, '..'), { recursive: true });
  writeFileSync(BENCH_FILE, JSON.stringify({ ...all, ...values }, null, 2) + '\n');
}
