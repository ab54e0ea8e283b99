// Tier 1: unit tests of the editor-free code with Node's test runner (TypeScript through tsx).
// Runs every test/unit/**/*.test.ts, or the files given as arguments.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

function find(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const p = join(dir, d.name);
    if (d.isDirectory()) return find(p);
    return d.name.endsWith('.test.ts') ? [p] : [];
  });
}

const files = process.argv.length > 2 ? process.argv.slice(2) : find(join(root, 'test/unit')).map((f) => relative(root, f)).sort();
if (files.length === 0) {
  console.error('no unit tests found under test/unit');
  process.exit(1);
}
// Two files at a time: node:test's default on a two-core machine is one, and a file spends about a second and a half
// starting (tsx compiling its imports) before its first test; measured on such a machine, 349 s → 236 s for the
// tier (three at a time: 232 s, the CPU is then the limit). The timing-sensitive cases (ssh/pool) pass at two.
// The tests' temporary folders (test PKI, fake snapshots, generated configs: hundreds per run) go into one folder of
// this run, removed at the end — not left in the machine's /tmp by every test that forgets its own.
const scratch = mkdtempSync(join(tmpdir(), 'kw-unit-'));
chmodSync(scratch, 0o1777); // like /tmp: some tests run scripts as an unprivileged user
// tsx keeps its compile cache in the temporary folder: this run's points at the usual one (warm between runs).
const tsxCacheName = `tsx-${process.getuid?.() ?? 0}`;
mkdirSync(join(tmpdir(), tsxCacheName), { recursive: true, mode: 0o700 });
symlinkSync(join(tmpdir(), tsxCacheName), join(scratch, tsxCacheName));
// The key that signs what runs write into state folders (src/adapters/fs/stateKey.ts) lives under XDG_STATE_HOME:
// this run's own, not the user's.
const stateHome = join(scratch, 'state-home');
mkdirSync(stateHome, { mode: 0o700 });
const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=spec', '--test-concurrency=2', ...files], { cwd: root, stdio: 'inherit', env: { ...process.env, TMPDIR: scratch, XDG_STATE_HOME: stateHome } });
rmSync(scratch, { recursive: true, force: true });
process.exit(result.status ?? 1);
