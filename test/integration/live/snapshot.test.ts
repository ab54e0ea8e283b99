/**
 * The backup's checks against a real 3-member TLS etcd: the member it picks (a follower, read through the
 * same etcdctl JSON the SSH source gets), and the SHA-256 trailer of a real `etcdctl snapshot save` file
 * (what the pulled copy is verified by, and what `etcdutl snapshot restore` checks): it verifies, and one
 * flipped byte or a cut file does not.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { join } from 'node:path';
import { SNAPSHOT_DIR, SNAPSHOT_SCRIPT } from '../../../src/core/backup/schedule';
import { chooseSnapshotSource, SnapshotChecksum } from '../../../src/core/backup/snapshot';
import type { Inventory } from '../../../src/core/inventory/types';
import { buildEtcd } from '../../../src/core/live/etcd';
import { etcdctlTlsArgs, readEtcd, type ExecResult } from '../../../src/core/live/etcdSource';
import { etcdctl, findBinary, makePki, startEtcdCluster, waitFor, type EtcdMemberProc, type Pki } from '../apiserver';
import { tempDir } from '../../tempDir';

let root: string;
let pki: Pki;
let members: EtcdMemberProc[];

before(async () => {
  root = tempDir('kw-snap-');
  pki = makePki(join(root, 'pki'));
  members = await startEtcdCluster(root, pki, 3);
  await waitFor(() => etcdctl(pki, members[0]!.clientUrl, ['endpoint', 'health', '--cluster']).code === 0, 20_000, 'all 3 members healthy');
  for (let i = 0; i < 200; i++) etcdctl(pki, members[0]!.clientUrl, ['put', `/registry/configmaps/default/cm-${i}`, 'x'.repeat(200)]);
});

after(async () => {
  await Promise.all((members ?? []).map((m) => m.stop()));
  if (root && !process.env.KW_KEEP_TEST_DIR) rmSync(root, { recursive: true, force: true });
});

const run = (args: string[]) =>
  new Promise<ExecResult>((resolve) => {
    const child = spawn(findBinary('etcdctl'), args, { env: { ...process.env, ETCDCTL_API: '3' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d));
    child.stderr.on('data', (d: Buffer) => (stderr += d));
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });

test('the snapshot source is a healthy follower of the real cluster', async () => {
  const model = buildEtcd(await readEtcd(run, etcdctlTlsArgs(members[0]!.clientUrl, pki.dir)), 'local', Date.now());
  const inv: Inventory = {
    cluster: { name: 'loop', kubernetesVersion: '1.34.12', controlPlaneEndpoint: '127.0.0.1:6443', podSubnet: '10.244.0.0/16', serviceSubnet: '10.96.0.0/12', cni: 'flannel' },
    ssh: {},
    hosts: members.map((m) => ({ name: m.name, address: '127.0.0.1', roles: ['control-plane'] })),
  };
  for (const m of model.members) m.host = m.name; // one address for all three here: map by name, as kubeadm's member names are the node names
  const source = chooseSnapshotSource(model, inv);
  assert.ok(source.ok, JSON.stringify(source));
  assert.equal(source.member.isLeader, false);
  assert.notEqual(source.member.name, model.members.find((m) => m.isLeader)!.name);
});

test("a real snapshot's SHA-256 trailer verifies; a flipped byte or a cut copy does not", () => {
  const file = join(root, 'snapshot.db');
  const saved = etcdctl(pki, members[1]!.clientUrl, ['snapshot', 'save', file]);
  assert.equal(saved.code, 0, saved.stderr);
  const bytes = readFileSync(file);
  assert.equal(bytes.length % 512, 32, 'a bbolt file plus 32 bytes of SHA-256');
  const check = (b: Buffer, chunk = 7919) => {
    const c = new SnapshotChecksum();
    for (let i = 0; i < b.length; i += chunk) c.update(b.subarray(i, i + chunk));
    return c.digest();
  };
  assert.equal(check(bytes).trailer, 'verified');
  assert.equal(check(bytes, 1).size, bytes.length);
  const flipped = Buffer.from(bytes);
  flipped[Math.floor(bytes.length / 2)] ^= 0x40;
  assert.equal(check(flipped).trailer, 'mismatch');
  assert.equal(check(bytes.subarray(0, bytes.length - 4096)).trailer, 'mismatch', 'a page short: the last 32 bytes are no longer the hash');
  assert.equal(check(bytes.subarray(0, bytes.length - 100)).trailer, 'absent');
});

test("the nodes' scheduled snapshot script: real snapshots, 0600, the newest --keep kept", async () => {
  // The node's fixed paths pointed at this test's etcd and folders; the script's logic runs as written.
  const out = join(root, 'scheduled');
  const data = join(root, 'data-dir');
  mkdirSync(data);
  const script = SNAPSHOT_SCRIPT.split(SNAPSHOT_DIR).join(out)
    .replace('[ -n "$d" ] || d=/var/lib/etcd', `[ -n "$d" ] || d=${data}`)
    .replace('https://127.0.0.1:2379', members[2]!.clientUrl)
    .split('/etc/kubernetes/pki/etcd/').join(`${pki.dir}/`);
  const file = join(root, 'etcd-snapshot.sh');
  writeFileSync(file, script);
  for (let i = 0; i < 4; i++) {
    execFileSync('sh', [file, '2'], { env: { ...process.env, PATH: `${dirname(findBinary('etcdctl'))}:${process.env.PATH}` }, stdio: 'pipe' });
    await new Promise((r) => setTimeout(r, 1100)); // one file per second (the name carries the second)
  }
  const kept = readdirSync(out).sort();
  assert.equal(kept.length, 2, kept.join(', '));
  assert.deepEqual(readdirSync(data), [], 'nothing left in the data dir');
  for (const f of kept) {
    assert.equal(statSync(join(out, f)).mode & 0o777, 0o600);
    const c = new SnapshotChecksum();
    c.update(readFileSync(join(out, f)));
    assert.equal(c.digest().trailer, 'verified', f);
  }
});
