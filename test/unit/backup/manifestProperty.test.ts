/**
 * Property (issue 34): whatever someone who can write the backup folder puts in manifest.json — a valid manifest
 * with any field replaced by any JSON value, members added, renamed or moved to addresses of their own, the text cut
 * anywhere, or no JSON at all — reading it never throws (a refusal names its problems), listing the folder never
 * fails, and a restore prepared from the backup never plans an etcd member at an address the inventory does not give.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, renameSync } from 'node:fs';
import { dirname, join } from 'node:path';
import fc from 'fast-check';
import { readManifest } from '../../../src/core/backup/manifest';
import type { BackupManifest } from '../../../src/core/backup/snapshot';
import { renderPlan } from '../../../src/core/plan/types';
import { readBackupFolder } from '../../../src/engine/backup';
import { prepareRestore } from '../../../src/engine/restore';
import { EtcdHosts, inv } from './etcdHosts';
import { backupFolder } from './manifests';
import { tempDir } from '../../tempDir';

/** The addresses an attacker's manifest uses (TEST-NET-3): none is the inventory's. */
const theirs = fc.integer({ min: 1, max: 254 }).map((n) => `203.0.113.${n}`);
const anyJson = fc.jsonValue({ maxDepth: 2 });
const member = fc.record({
  id: fc.oneof(fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: 1, maxLength: 16 }), anyJson),
  name: fc.oneof(fc.constantFrom('m01', 'm02', 'm03', 'evil'), fc.string({ maxLength: 12 })),
  peerURLs: fc.oneof(theirs.map((a) => [`https://${a}:2380`]), fc.array(fc.string({ maxLength: 30 }), { maxLength: 2 })),
  clientURLs: fc.constant([] as string[]),
  isLearner: fc.oneof(fc.boolean(), anyJson),
});
const FIELDS: (keyof BackupManifest)[] = ['kind', 'version', 'cluster', 'controlPlaneEndpoint', 'takenAt', 'host', 'member', 'clusterId', 'etcdVersion', 'members', 'status', 'revisionAtSave', 'snapshot', 'files', 'warnings'];

/** Edits that leave a backup to restore: nothing changed; a member that joined after the backup (a warning). */
const keep = (_m: BackupManifest): void => undefined;
const memberJoinedLater = (m: BackupManifest): void => void (Array.isArray(m.members) && m.members.pop());

/** The member at `i` when an earlier edit left a list of objects there (edits build on each other). */
const memberAt = (m: BackupManifest, i: number): { peerURLs?: unknown } | undefined => {
  const x: unknown = Array.isArray(m.members) ? m.members[i] : undefined;
  return x !== null && typeof x === 'object' ? (x as { peerURLs?: unknown }) : undefined;
};

/** One way to change the manifest the backup wrote: the object edited, or the text replaced. */
const edit = fc.oneof(
  fc.constantFrom(keep, memberJoinedLater),
  fc.record({ field: fc.constantFrom(...FIELDS), value: anyJson }).map(({ field, value }) => (m: BackupManifest) => void ((m as unknown as Record<string, unknown>)[field] = value)),
  fc.array(member, { minLength: 1, maxLength: 3 }).map((extra) => (m: BackupManifest) => void (Array.isArray(m.members) && m.members.push(...(extra as unknown as BackupManifest['members'])))),
  fc.tuple(fc.nat({ max: 2 }), theirs).map(([i, a]) => (m: BackupManifest) => {
    const x = memberAt(m, i);
    if (x) x.peerURLs = [`https://${a}:2380`];
  }),
  fc.double({ min: 0, max: 1, noNaN: true }).map((at) => (m: BackupManifest) => JSON.stringify(m).slice(0, Math.floor(JSON.stringify(m).length * at))),
  anyJson.map((v) => () => JSON.stringify(v)),
  fc.string({ maxLength: 200 }).map((s) => () => s),
);

const withEtcdutl = () => new EtcdHosts({ downMembers: ['m01', 'm02', 'm03'], extra: (_h, t) => (t.includes('command -v etcdutl') ? { code: 0, signal: null, stdout: '/usr/local/bin/etcdutl\n53687091200\n', stderr: '' } : undefined) });

test('any manifest.json: read without throwing, listed or named as unreadable, and no member outside the inventory planned', async () => {
  const runs = { refused: 0, planned: 0 };
  await fc.assert(
    fc.asyncProperty(fc.array(edit, { minLength: 1, maxLength: 3 }), async (edits) => {
      const made = backupFolder({
        pages: 2,
        manifest: (m) => {
          let text: string | undefined;
          for (const e of edits) text = e(m) ?? text;
          return text;
        },
      });
      // The backup folder alone in a folder of backups, as `backup --out` leaves it.
      const folder = join(tempDir('kw-manifest-property-'), 'labs-k8s-20261130T120000Z');
      renameSync(dirname(made), folder);
      const snapshot = join(folder, 'snapshot.db');
      const r = readManifest(readFileSync(join(folder, 'manifest.json'), 'utf8'));
      if (!r.ok) assert.ok(r.problems.length > 0 && r.problems.every((p) => typeof p === 'string' && p.length > 0), JSON.stringify(r));
      const listed = await readBackupFolder(dirname(folder));
      assert.equal(listed.backups.length + listed.unreadable.length, 1, 'the folder is either a backup or named as unreadable');
      for (const u of listed.unreadable) assert.match(u.problem, /manifest\.json/);
      const p = await prepareRestore({ inventory: inv, ssh: withEtcdutl(), become: () => undefined }, snapshot, false);
      const planned = renderPlan(p.plan);
      assert.doesNotMatch(planned, /203\.0\.113\./, 'an address of the manifest reached the plan');
      assert.deepEqual(p.members.map((m) => m.peerURL).sort(), ['https://10.3.60.51:2380', 'https://10.3.60.52:2380', 'https://10.3.60.53:2380']);
      if (p.refusals.length) runs.refused++;
      else {
        runs.planned++;
        assert.match(planned, / m01=https:\/\/10\.3\.60\.51:2380,m02=https:\/\/10\.3\.60\.52:2380,m03=https:\/\/10\.3\.60\.53:2380 /, 'the initial cluster is the inventory\'s members');
      }
    }),
    // The two that keep a restorable backup run first, whatever the random ones do.
    { numRuns: 60, examples: [[[keep]], [[memberJoinedLater]]] },
  );
  // Both ways were taken: the restorable backups were planned (so the plan was there to look into), the rest refused.
  assert.ok(runs.refused > 0 && runs.planned > 0, JSON.stringify(runs));
});
