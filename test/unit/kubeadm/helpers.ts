import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TextEdit } from '../../../src/core/findings';
import { LineIndex } from '../../../src/core/findings';
import { parseInventory } from '../../../src/core/inventory/parse';
import type { Inventory } from '../../../src/core/inventory/types';

export const ROOT = join(__dirname, '..', '..', '..');
export const EXAMPLE = join(ROOT, 'examples', 'labs-k8s');

export function exampleInventory(): Inventory {
  return parseInventory(readFileSync(join(EXAMPLE, 'inventory.yaml'), 'utf8')).inventory!;
}

export function fixture(kind: string, name: string): string {
  return readFileSync(join(ROOT, 'test', 'fixtures', kind, name), 'utf8');
}

/** Applies non-overlapping edits to a text. */
export function applyEdits(text: string, edits: TextEdit[]): string {
  const idx = new LineIndex(text);
  const sorted = edits.map((e) => ({ s: idx.offset(e.range.start), e: idx.offset(e.range.end), t: e.newText })).sort((a, b) => b.s - a.s);
  let out = text;
  for (const e of sorted) out = out.slice(0, e.s) + e.t + out.slice(e.e);
  return out;
}
