/**
 * The lab's containerd as an oracle for the containerd linter, like `haproxy -c` and `keepalived -t` for theirs:
 * `containerd --config F config dump` of the containerd the lab's nodes install (Debian 12's 1.6, served by the lab's
 * apt mirror; unpacked from that .deb here, so no node has to be up) on the fixtures, the example, generated configs
 * and mutations of them.
 *  - every file containerd refuses to load, the linter flags with an error or warning (zero misses);
 *  - every file containerd loads but would run pods with cgroupfs (runc without SystemdCgroup = true), with the CRI
 *    plugin disabled, or with another sandbox image than the generated config's, the linter flags too;
 *  - the generated config loads, containerd reads SystemdCgroup = true and the pause image from it, and it lints clean.
 * Needs the lab's build cache (`npm run lab -- build`), not a running lab.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { lintContainerd } from '../../src/core/containerd/lint';
import { generateContainerdConfig } from '../../src/core/generate/containerd';
import { parseInventory } from '../../src/core/inventory/parse';
import type { Finding } from '../../src/core/findings';
import { mutations } from '../unit/haproxy/helpers';
import { tempDir } from '../tempDir';

const ROOT = resolve(__dirname, '../..');
const CACHE = process.env.KW_LAB_CACHE ?? '/var/cache/kubeadm-workbench/lab';
const POOL = join(CACHE, 'repo/www/debian/pool/main');
const inventory = parseInventory(readFileSync(join(ROOT, 'examples/labs-k8s/inventory.yaml'), 'utf8')).inventory!;
const CONFIG_PATH = 'etc/containerd/config.toml';

let dir = '';
let containerd = '';

interface Dump {
  rc: number;
  output: string;
  /** runc's effective SystemdCgroup in the CRI plugin (version 2 layout), as containerd dumps it. */
  systemdCgroup?: string;
  sandboxImage?: string;
  criDisabled: boolean;
}

/** `containerd --config F config dump` and what it says about the CRI plugin. */
function dump(text: string, name: string): Dump {
  const file = join(dir, name.replace(/[^\w.-]/g, '_'));
  writeFileSync(file, text);
  const r = spawnSync(containerd, ['--config', file, 'config', 'dump'], { encoding: 'utf8', timeout: 20_000 });
  const output = `${r.stdout ?? ''}${r.stderr ?? ''}`;
  const out: Dump = { rc: r.status ?? -1, output, criDisabled: false };
  if (out.rc !== 0) return out;
  let table = '';
  for (const line of (r.stdout ?? '').split('\n')) {
    const t = line.trim();
    const header = /^\[(.*)\]$/.exec(t);
    if (header) {
      table = header[1]!;
      continue;
    }
    const kv = /^([\w"._-]+)\s*=\s*(.*)$/.exec(t);
    if (!kv) continue;
    if (table === '' && kv[1] === 'disabled_plugins') out.criDisabled = /"(cri|io\.containerd\.grpc\.v1\.cri)"/.test(kv[2]!);
    if (table === 'plugins."io.containerd.grpc.v1.cri"' && kv[1] === 'sandbox_image') out.sandboxImage = kv[2];
    if (table === 'plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options' && kv[1] === 'SystemdCgroup') out.systemdCgroup = kv[2];
  }
  return out;
}

const errorsAndWarnings = (fs: Finding[]) => fs.filter((f) => f.severity === 'error' || f.severity === 'warning');
const lint = (text: string) => lintContainerd({ path: CONFIG_PATH, text }, { inventory });
const describeFindings = (fs: Finding[]) => fs.map((f) => `${f.range.start.line + 1}: ${f.rule} ${f.message}`).join('\n') || '(none)';

/** The texts the oracle judges: fixtures, the example, the generated config, and mutations of each. */
function corpus(): { name: string; text: string }[] {
  const fixtures = readdirSync(join(ROOT, 'test/fixtures/containerd')).filter((f) => f.endsWith('.toml')).sort().map((f) => ({ name: f, text: readFileSync(join(ROOT, 'test/fixtures/containerd', f), 'utf8') }));
  const bases = [...fixtures, { name: 'example.toml', text: readFileSync(join(ROOT, 'examples/labs-k8s', CONFIG_PATH), 'utf8') }, { name: 'generated.toml', text: generateContainerdConfig(inventory) }];
  const junk = ['"', "'", '[', ']', '[[', '=', '{', '}', '.', '#', '\\', 'true', 'false', '1', '"x"', 'SystemdCgroup', 'version', 'cri', '"cri"', 'disabled_plugins = ["cri"]', 'SystemdCgroup = false', 'version = 1', 'sandbox_image = "k8s.gcr.io/pause:3.2"'];
  return [...bases, ...bases.flatMap((b, k) => mutations(b.text, 40, 7 + 31 * k, junk).map((text, i) => ({ name: `${b.name}~${i}`, text })))];
}

describe("the lab's containerd as an oracle for the containerd linter", () => {
  before(() => {
    const deb = existsSync(POOL) ? readdirSync(POOL).find((f) => /^containerd_.*_amd64\.deb$/.test(f)) : undefined;
    assert.ok(deb, `no containerd package in the lab's apt mirror (${POOL}): run \`npm run lab -- build\` first`);
    dir = tempDir('kw-containerd-oracle-');
    const x = spawnSync('dpkg-deb', ['-x', join(POOL, deb), join(dir, 'pkg')], { encoding: 'utf8' });
    assert.equal(x.status, 0, `dpkg-deb -x ${deb}: ${x.stderr}`);
    containerd = join(dir, 'pkg/usr/bin/containerd');
    const v = spawnSync(containerd, ['--version'], { encoding: 'utf8' });
    assert.equal(v.status, 0, `containerd --version: ${v.stderr}`);
    console.log(`oracle: ${v.stdout.trim()}`);
  });

  after(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('the generated config loads, containerd reads SystemdCgroup = true and the pause image from it, and it lints clean', () => {
    const text = generateContainerdConfig(inventory);
    const d = dump(text, 'generated.toml');
    assert.equal(d.rc, 0, d.output);
    assert.equal(d.systemdCgroup, 'true', d.output);
    assert.equal(d.criDisabled, false);
    assert.match(d.sandboxImage ?? '', /\/pause:[\d.]+"$/);
    assert.deepEqual(lint(text), []);
  });

  test('zero misses: what containerd refuses to load, or would run pods with wrongly, the linter flags', (t) => {
    const generated = dump(generateContainerdConfig(inventory), 'generated-ref.toml');
    const cases = corpus();
    const misses: string[] = [];
    let refused = 0;
    let wrongRuntime = 0;
    let falseAlarms = 0;
    for (const c of cases) {
      const d = dump(c.text, c.name);
      const ours = errorsAndWarnings(lint(c.text));
      let problem: string | undefined;
      if (d.rc !== 0) {
        refused++;
        problem = `containerd refuses it: ${d.output.split('\n').find((l) => /failed|error/i.test(l)) ?? d.output.trim()}`;
      } else if (d.criDisabled) problem = 'the CRI plugin is disabled';
      else if (d.systemdCgroup !== 'true') problem = `runc's SystemdCgroup is ${d.systemdCgroup ?? 'unset'}`;
      else if (d.sandboxImage !== generated.sandboxImage) problem = `the sandbox image is ${d.sandboxImage}, not ${generated.sandboxImage}`;
      if (problem && d.rc === 0) wrongRuntime++;
      if (problem && ours.length === 0) misses.push(`${c.name}: ${problem}; the linter: ${describeFindings(lint(c.text))}`);
      if (!problem && ours.length > 0) falseAlarms++;
    }
    t.diagnostic(`${cases.length} configs: containerd refused ${refused}, loaded ${wrongRuntime} that would run pods wrongly; misses ${misses.length}; flagged although containerd's effective config is right: ${falseAlarms}`);
    assert.ok(refused >= 10 && wrongRuntime >= 10, `the corpus should have both kinds (refused ${refused}, wrong ${wrongRuntime})`);
    assert.deepEqual(misses, []);
  });
});
