/** Shared by the haproxy and keepalived tests: real-tool oracles, fixture reading, edit application. */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LineIndex, type Finding, type TextEdit } from '../../../src/core/findings';
import { parseInventory } from '../../../src/core/inventory/parse';
import type { Inventory } from '../../../src/core/inventory/types';

export const ROOT = join(__dirname, '../../..');
export const HAPROXY_FIXTURES = join(ROOT, 'test/fixtures/haproxy');
export const KEEPALIVED_FIXTURES = join(ROOT, 'test/fixtures/keepalived');

export function loadInventory(path: string): Inventory {
  const { inventory, findings } = parseInventory(readFileSync(join(ROOT, path), 'utf8'));
  if (!inventory) throw new Error(`${path}: ${findings.map((f) => f.message).join('; ')}`);
  return inventory;
}

export const seedInventory = () => loadInventory('examples/labs-k8s/inventory.yaml');

export interface Fixture {
  name: string;
  path: string;
  text: string;
  expect: string[];
}

export function fixtures(dir: string, ext: string): Fixture[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith(ext))
    .sort()
    .map((name) => {
      const path = join(dir, name);
      const text = readFileSync(path, 'utf8');
      return { name, path, text, expect: [...text.matchAll(/^# expect: (\S+)/gm)].map((m) => m[1]!) };
    });
}

export interface ToolResult {
  rc: number;
  output: string;
}

/** Fails (never skips) when the real tool is missing, naming the Debian package that provides it. */
export function requireTool(cmd: string, args: string[], pkg: string): void {
  const r = spawnSync(cmd, args, { encoding: 'utf8', timeout: 10_000 });
  if (r.error) throw new Error(`'${cmd}' is not installed: these tests run the real tool as an oracle. Install it with: apt-get install -y ${pkg}`);
}

export function haproxyCheck(file: string): ToolResult {
  const r = spawnSync('haproxy', ['-c', '-f', file], { encoding: 'utf8', timeout: 20_000 });
  if (r.error) throw r.error;
  return { rc: r.status ?? (r.signal ? 128 : 1), output: `${r.stdout}${r.stderr}` };
}

/**
 * `keepalived -t` in a private network namespace that has the inventory's interface (a veth named like it),
 * so the check sees the balancer's NIC and not this machine's. Nothing leaves the namespace.
 */
export function keepalivedCheck(file: string, iface: string): ToolResult {
  const script = 'ip link add "$1" type veth peer name kwpeer0 || exit 97; exec keepalived -t -f "$2" -l';
  const r = spawnSync('unshare', ['-n', 'sh', '-c', script, 'sh', iface, file], { encoding: 'utf8', timeout: 20_000 });
  if (r.error) throw r.error;
  if (r.status === 97 || /unshare: .*(Operation not permitted|Permission denied)/.test(r.stderr)) {
    throw new Error(`cannot create a network namespace with interface ${iface} (needs root: unshare -n, ip link add veth): ${r.stderr.trim()}`);
  }
  return { rc: r.status ?? (r.signal === 'SIGSEGV' ? 139 : 128), output: `${r.stdout}${r.stderr}` };
}

export function requireNetns(): void {
  requireTool('keepalived', ['-v'], 'keepalived');
  requireTool('unshare', ['--version'], 'util-linux');
  requireTool('ip', ['-V'], 'iproute2');
}


export function writeTmp(dir: string, name: string, text: string): string {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
}

/** Applies non-overlapping edits (positions are 0-based line/character in `text`). */
export function applyEdits(text: string, edits: TextEdit[]): string {
  const idx = new LineIndex(text);
  const withOffsets = edits.map((e) => ({ start: idx.offset(e.range.start), end: idx.offset(e.range.end), text: e.newText })).sort((a, b) => b.start - a.start);
  let out = text;
  for (const e of withOffsets) out = out.slice(0, e.start) + e.text + out.slice(Math.min(e.end, out.length));
  return out;
}

/** Applies the first fix of the first fixable error/warning, repeatedly, until none is left (or `rounds`). */
export function applyAllFixes(text: string, lint: (t: string) => Finding[], rounds = 30): { text: string; applied: string[] } {
  const applied: string[] = [];
  let cur = text;
  const tried = new Set<string>();
  for (let i = 0; i < rounds; i++) {
    const f = lint(cur).find((x) => x.severity !== 'info' && x.fixes?.length && !x.file && !tried.has(`${x.rule}:${x.message}`));
    if (!f) break;
    tried.add(`${f.rule}:${f.message}`);
    applied.push(`${f.rule}: ${f.fixes![0]!.title}`);
    cur = applyEdits(cur, f.fixes![0]!.edits);
  }
  return { text: cur, applied };
}

export const errorsAndWarnings = (fs: Finding[]) => fs.filter((f) => f.severity !== 'info');
export const describe = (fs: Finding[]) => fs.map((f) => `${f.range.start.line + 1}:${f.range.start.character + 1} ${f.rule} ${f.message}`).join('\n');

/** Deterministic word-level mutations of a config (replace, drop, swap letters, insert a word, drop a line). */
export function mutations(text: string, count: number, seed: number, junk: string[]): string[] {
  let s = seed >>> 0;
  const r = () => (s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32;
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const lines = text.split('\n');
    const li = Math.floor(r() * lines.length);
    const toks = lines[li]!.split(/(\s+)/);
    const wi = Math.floor(r() * toks.length);
    const op = r();
    if (op < 0.3) toks[wi] = junk[Math.floor(r() * junk.length)]!;
    else if (op < 0.5) toks.splice(wi, 1);
    else if (op < 0.7 && toks[wi]!.length > 2) {
      const w = toks[wi]!;
      const k = 1 + Math.floor(r() * (w.length - 2));
      toks[wi] = w.slice(0, k) + w[k + 1] + w[k] + w.slice(k + 2);
    } else if (op < 0.85) toks.splice(wi, 0, ' ', junk[Math.floor(r() * junk.length)]!);
    else lines.splice(li, 1);
    if (op < 0.85) lines[li] = toks.join('');
    out.push(lines.join('\n'));
  }
  return out;
}
