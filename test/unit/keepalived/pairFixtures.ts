/**
 * The balancer-pair fixtures (test/fixtures/keepalived/pairs/NAME/...): each folder is a small workspace of
 * keepalived files, flat (keepalived-lb1.conf, keepalived-lb2.conf) or in folders of their own (site-a/, site-b/).
 * A file is linted in the context the editor and `lint` give it: its config set's files as siblings, the keepalived
 * files of other sets as vrrpElsewhere (src/core/lint/siblings.ts).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { Inventory } from '../../../src/core/inventory/types';
import { siblingsOf, vrrpFilesElsewhere } from '../../../src/core/lint/siblings';
import type { LintContext, SourceFile } from '../../../src/core/lint/types';
import { KEEPALIVED_FIXTURES } from '../haproxy/helpers';

export interface PairFile extends SourceFile {
  abs: string;
  /** The rules its `# expect: RULE` lines declare. */
  expect: string[];
}

function walk(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((n) => (statSync(join(dir, n)).isDirectory() ? walk(join(dir, n)) : [join(dir, n)]));
}

/** Every pair workspace, its files with paths relative to it. */
export function pairWorkspaces(): { name: string; files: PairFile[] }[] {
  const root = join(KEEPALIVED_FIXTURES, 'pairs');
  return readdirSync(root)
    .sort()
    .map((name) => ({
      name,
      files: walk(join(root, name)).map((abs) => {
        const text = readFileSync(abs, 'utf8');
        return { path: relative(join(root, name), abs), abs, text, expect: [...text.matchAll(/^# expect: (\S+)/gm)].map((m) => m[1]!) };
      }),
    }));
}

/** The context a file of a workspace is linted in, as the editor builds it. */
export function pairContext(file: SourceFile, files: readonly SourceFile[], inventory: Inventory): LintContext {
  const hosts = new Set(inventory.hosts.map((h) => h.name));
  const elsewhere = vrrpFilesElsewhere(file.path, files, hosts);
  return { inventory, siblings: siblingsOf(file.path, files, hosts), ...(elsewhere.length ? { vrrpElsewhere: elsewhere } : {}) };
}
