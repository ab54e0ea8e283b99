import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runStatus } from '../../../src/cli/status';
import type { CliIo } from '../../../src/cli/io';

function io(files: Record<string, string> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const cli: CliIo = {
    stdout: (t) => out.push(t),
    stderr: (t) => err.push(t),
    readFile: async (p) => {
      if (!(p in files)) throw new Error(`ENOENT: ${p}`);
      return files[p]!;
    },
    writeFile: async () => undefined,
  };
  return { cli, out, err };
}

test('status: usage errors exit 2 with the usage line', async () => {
  const a = io();
  assert.equal(await runStatus([], a.cli), 2);
  assert.match(a.err.join(''), /usage: kubeadm-workbench status --inventory FILE/);
  const b = io();
  assert.equal(await runStatus(['--inventory'], b.cli), 2);
  assert.match(b.err.join(''), /--inventory needs a value/);
  const c = io();
  assert.equal(await runStatus(['--inventory', 'x.yaml', '--frobnicate'], c.cli), 2);
  assert.match(c.err.join(''), /unknown argument --frobnicate/);
  const d = io();
  assert.equal(await runStatus(['--inventory', 'missing.yaml'], d.cli), 2);
  assert.match(d.err.join(''), /cannot read missing\.yaml/);
  const e = io({ 'bad.yaml': 'cluster: [' });
  assert.equal(await runStatus(['--inventory', 'bad.yaml'], e.cli), 2);
  assert.match(e.err.join(''), /not a valid inventory/);
});
