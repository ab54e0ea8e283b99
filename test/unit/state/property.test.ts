/**
 * Property (issue 34): whatever a repository plants in `.kubeadm-workbench/` — random ledgers (well-formed or not,
 * unsigned, with a forged or copied signature), run logs, locks, a VRRP password, a .gitignore, and in any of these
 * places a symlink to a file or folder outside, a hard link to a file outside, or a FIFO — running the state folder's
 * operations (prepare the folder, look for a run to resume, open the ledger and its log, mark steps, lock and unlock
 * hosts, read the VRRP password) writes nothing outside the folder, never hangs, and resumes only a run this
 * machine's user signed in this trial.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { linkSync, lstatSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { createLedger, findResumable, loadLedger } from '../../../src/engine/state/runLedger';
import { openLedger } from '../../../src/engine/bringUp';
import { HostLocks } from '../../../src/engine/state/hostLocks';
import { RunLogFile } from '../../../src/engine/state/runLogFile';
import { ensureStateFolder, vrrpAuthPass } from '../../../src/engine/stateFolder';
import { tempDir } from '../../tempDir';

type Plant = 'absent' | 'file' | 'link-file' | 'link-dir' | 'hardlink' | 'fifo';
const plantKind = fc.constantFrom<Plant>('absent', 'file', 'link-file', 'link-dir', 'hardlink', 'fifo');

const runId = fc.integer({ min: 2020, max: 2999 }).map((y) => `${y}-01-01T00-00-00-000Z-up`);
/** A copy of this trial's own signed ledger under another run id (its signature then covers another record). */
const COPY_OURS = '<copy of our signed ledger>';
const hex = fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: 64, maxLength: 64 });
const ledgerBody = (id: string) =>
  fc.oneof(
    fc.constant(JSON.stringify({ runId: id, command: 'up', fingerprint: 'fp', createdAt: '2026-01-01T00:00:00Z', updatedAt: '2026-01-01T00:00:00Z', completedAt: null, steps: {} })),
    hex.map((h) => JSON.stringify({ runId: id, command: 'up', fingerprint: 'fp', createdAt: '2026-01-01T00:00:00Z', updatedAt: '2026-01-01T00:00:00Z', completedAt: null, steps: {}, signature: `hmac-sha256:${h}` })),
    fc.constant(COPY_OURS),
    fc.string(),
    fc.json(),
  );

interface Trial {
  runs: { id: string; kind: Plant; body: string; log: Plant }[];
  locks: { host: string; kind: Plant; body: string }[];
  vrrp: Plant;
  gitignore: Plant;
  runsFolder: 'dir' | 'link-dir';
  ownRun: boolean;
}

const trial: fc.Arbitrary<Trial> = fc.record({
  runs: fc.array(runId.chain((id) => fc.record({ id: fc.constant(id), kind: plantKind, body: ledgerBody(id), log: plantKind })), { maxLength: 4 }),
  locks: fc.array(fc.record({ host: fc.constantFrom('m01', 'm02', 'lb'), kind: plantKind, body: fc.oneof(fc.string(), fc.constant('{"pid":1,"runId":"x","since":"2026-01-01T00:00:00Z"}')) }), { maxLength: 3 }),
  vrrp: plantKind,
  gitignore: plantKind,
  runsFolder: fc.constantFrom<'dir' | 'link-dir'>('dir', 'dir', 'link-dir'),
  ownRun: fc.boolean(),
});

/** Everything under `dir` as path → content (or kind and mode), to compare before and after. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      const st = lstatSync(p);
      if (e.isDirectory()) {
        out[p] = `dir ${st.mode & 0o777}`;
        walk(p);
      } else out[p] = e.isFile() ? `file ${st.mode & 0o777} ${readFileSync(p, 'utf8')}` : `other ${st.mode}`;
    }
  };
  walk(dir);
  return out;
}

const within = <T>(p: Promise<T>): Promise<T | 'hung'> => Promise.race([p, new Promise<'hung'>((r) => setTimeout(() => r('hung'), 3000).unref())]);

test('property: planted state files never make us write outside the state folder, hang, or resume a run we did not sign', async () => {
  const signedLedgers = new Set<string>();
  await fc.assert(
    fc.asyncProperty(trial, async (t) => {
      const outside = tempDir('kw-prop-outside-');
      writeFileSync(join(outside, 'victim'), 'untouched\n');
      mkdirSync(join(outside, 'folder'));
      writeFileSync(join(outside, 'folder', 'kept'), 'kept\n');
      const root = tempDir('kw-prop-');
      const dir = join(root, '.kubeadm-workbench');
      mkdirSync(dir, { mode: 0o700 });
      const runs = join(dir, 'runs');
      if (t.runsFolder === 'link-dir') symlinkSync(join(outside, 'folder'), runs);
      else mkdirSync(runs, { mode: 0o700 });
      const plant = (path: string, kind: Plant, body: string): void => {
        try {
          if (kind === 'file') writeFileSync(path, body, { flag: 'wx' });
          else if (kind === 'link-file') symlinkSync(join(outside, 'victim'), path);
          else if (kind === 'link-dir') symlinkSync(join(outside, 'folder'), path);
          else if (kind === 'hardlink') linkSync(join(outside, 'victim'), path);
          else if (kind === 'fifo') execFileSync('mkfifo', [path], { stdio: 'ignore' });
        } catch {
          // the name is taken already (two random runs of one id), or runs/ is a link outside: not planted
        }
      };
      let ours: string | undefined;
      if (t.ownRun && t.runsFolder === 'dir') {
        const l = createLedger(runs, 'up', 'fp', new Date('2025-06-01T00:00:00Z'));
        await l.mark('prepare/m01/x', { state: 'failed', error: 'killed' });
        ours = l.file;
        signedLedgers.add(l.file);
      }
      const before = snapshot(outside);
      if (t.runsFolder === 'dir') {
        for (const r of t.runs) {
          const body = r.body === COPY_OURS ? (ours ? readFileSync(ours, 'utf8').replace(/"runId": "[^"]+"/, `"runId": "${r.id}"`) : '{}') : r.body;
          plant(join(runs, `${r.id}.json`), r.kind, body);
          plant(join(runs, `${r.id}.log`), r.log, 'log\n');
        }
      }
      mkdirSync(join(dir, 'locks'), { mode: 0o700 });
      for (const l of t.locks) plant(join(dir, 'locks', `${l.host}.lock`), l.kind, l.body);
      plant(join(dir, 'vrrp-auth-pass'), t.vrrp, 'known123\n');
      plant(join(dir, '.gitignore'), t.gitignore, '');

      const step = async <T>(what: string, p: () => Promise<T>): Promise<T | undefined> => {
        const r = await within(p().catch(() => undefined));
        assert.notEqual(r, 'hung', `${what} hung`);
        return r === 'hung' ? undefined : r;
      };
      await step('ensureStateFolder', () => ensureStateFolder(dir));
      const found = await step('findResumable', () => findResumable(runs, 'up', 'fp'));
      if (found?.ledger) assert.ok(signedLedgers.has(found.ledger.file), `found ${found.ledger.file}, which this trial did not sign`);
      // The run's own way in: the ledger to resume or a new one (engine/bringUp.ts's openLedger), then its log.
      const opened = await step('openLedger', () => openLedger({ fingerprint: 'fp', phases: [] }, { stateDir: dir, command: 'up', resume: true }));
      if (opened?.resumed) assert.equal(opened.ledger.file, ours, 'only the run this trial signed is resumed');
      const ledger = opened?.ledger ?? createLedger(runs, 'up', 'fp');
      const log = await step('log', () => RunLogFile.open(ledger.file.replace(/\.json$/, '.log'), Boolean(opened?.resumed)));
      log?.sink({ host: 'm01', stream: 'stdout', text: 'a line', time: new Date() });
      await step('close log', async () => log?.close());
      await step('mark', () => ledger.mark('prepare/m01/y', { state: 'done' }));
      const locks = new HostLocks(join(dir, 'locks'), ledger.data.runId);
      for (const h of ['m01', 'm02', 'lb']) await step(`lock ${h}`, () => locks.acquire(h));
      await step('unlock', () => locks.releaseAll());
      await step('vrrp', () => vrrpAuthPass(dir));
      if (t.runsFolder === 'dir') {
        const reread = await step('reload', () => loadLedger(ledger.file));
        if (reread) signedLedgers.add(ledger.file);
      }
      assert.deepEqual(snapshot(outside), before, 'nothing outside the state folder changed');
      assert.equal(statSync(join(outside, 'victim')).nlink >= 1, true);
    }),
    { numRuns: 100 },
  );
});
