// Tier 1: unit tests of the editor-free code with Node's test runner (TypeScript through tsx).
// Runs every test/unit/**/*.test.ts, or the files given as arguments.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
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
const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=spec', ...files], { cwd: root, stdio: 'inherit' });
process.exit(result.status ?? 1);
