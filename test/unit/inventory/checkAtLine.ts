/** check-inventory on a text, as a user runs it: its exit code and the 1-based lines and messages of one rule's findings. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCheckInventory } from '../../../src/cli/checkInventory';
import { memoryIo } from '../cli/memoryIo';
import { tempDir } from '../../tempDir';

export async function checkAtLine(text: string, rule: string): Promise<{ code: number; lines: number[]; messages: string[]; out: string }> {
  const dir = tempDir('kw-inv-');
  writeFileSync(join(dir, 'inventory.yaml'), text);
  const io = memoryIo();
  const code = await runCheckInventory([join(dir, 'inventory.yaml')], io);
  const hits = [...io.out.matchAll(new RegExp(`:(\\d+):\\d+: (\\w+): (.*)\\[${rule.replace('/', '\\/')}\\]`, 'g'))];
  return { code, lines: hits.map((m) => Number(m[1])), messages: hits.map((m) => `${m[2]}: ${m[3]}`), out: io.out };
}

/** The 1-based line of the first line containing `needle`. */
export const lineOf = (text: string, needle: string): number => text.split('\n').findIndex((l) => l.includes(needle)) + 1;

/** Replaces `from` with `to`, failing loudly when `from` is not there (a changed example must not empty a case). */
export function edit(text: string, from: string, to: string): string {
  if (!text.includes(from)) throw new Error(`case input: ${from} not found`);
  return text.replace(from, to);
}
