/**
 * Day-2 on the lab's running HA cluster, through the command line the way an admin runs it:
 *  - `certs`: every kubeadm certificate on the control-plane nodes and workers over SSH, ~1 year left on a
 *    cluster built today, the API server's SANs covering the VIP, the certificates served through the VIP
 *    and on each node's 6443 equal to the files on disk; exit 0;
 *  - `backup`: a snapshot from an etcd follower, verified and pulled 0600 with its manifest; duration and
 *    size go to the lab bench;
 *  - `certs renew --host m02`: that node renewed with the API through the VIP polled meanwhile by an authenticated
 *    client (no request may fail; the poll count proves it ran), serving the renewed certificate after, the other
 *    two untouched (ui-day2.test.ts renews all three from the palette), a copy of the admin kubeconfig refreshed;
 *  - `backup schedule`: a 20 s systemd timer on each control-plane node; the snapshot files looked for on every
 *    node until each has one (within the interval and a margin), the status's lists matching them; removed;
 *  - `restore` of a large etcd: ConfigMap A and ≥ 400 MiB of etcd data (BULK_KEYS values of 1 MB, written with
 *    etcdctl under a prefix the API server never reads) → backup → ConfigMap B → restore (forced: etcd is healthy)
 *    → A exists, B does not, the bulk data is back, three voting members with one leader, every Node Ready; the
 *    backup's and the restore's time and peak RSS asserted, the RTO reported and bounded, to the bench; then the bulk
 *    data is deleted and every member defragmented, so the files after this one find the etcd they had. Nothing is
 *    installed first: the restore takes etcdutl from the cluster's own etcd image.
 * Runs last, on the cluster the tier already has (the snapshot file is removed from the node again;
 * renewed certificates leave every existing credential valid; the restore brings the cluster back to a
 * minute earlier).
 */
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { BackupManifest } from '../../src/core/backup/snapshot';
import { SNAPSHOT_DIR } from '../../src/core/backup/schedule';
import type { CertReport, CertSummary } from '../../src/core/certs/report';
import { recordBench } from './bench';
import { minimumPolls, pollApi } from './clusterHealth';
import { failuresMessage } from './httpPoller';
import { tempDir } from '../tempDir';

const ROOT = resolve(__dirname, '../..');
const LAB = join(ROOT, 'lab/lab.sh');
const CLI = join(ROOT, 'dist/cli.js');
const env: Record<string, string> = {};
const CONTROL_PLANE = ['labs-k8s-m01', 'labs-k8s-m02', 'labs-k8s-m03'];
/** The one node the CLI renews (the palette's renewal in ui-day2.test.ts does all three). */
const RENEWED = 'labs-k8s-m02';

/** Runs a verb (`backup schedule`: verb and subcommand) with the lab's inventory and SSH files; its peak RSS from Node itself. */
function cli(verb: string, args: string[], timeoutMs = 5 * 60_000): { code: number; stdout: string; stderr: string; seconds: number; peakRssBytes: number } {
  const t0 = Date.now();
  const rssFile = join(env.HOME_DIR!, `peak-rss-${t0}`);
  const r = spawnSync(process.execPath, ['--require', PEAK_RSS_PRELOAD, CLI, ...verb.split(' '), '--inventory', env.LAB_INVENTORY!, '--ssh-config', env.LAB_SSH_CONFIG!, '--known-hosts', env.LAB_KNOWN_HOSTS!, ...args], {
    env: { ...process.env, PATH: env.PATH!, HOME: env.HOME_DIR!, KW_PEAK_RSS_FILE: rssFile },
    encoding: 'utf8',
    timeout: timeoutMs,
    killSignal: 'SIGKILL',
    maxBuffer: 64 * 1024 * 1024,
  });
  process.stderr.write(r.stderr);
  const peakRssBytes = existsSync(rssFile) ? Number(readFileSync(rssFile, 'utf8')) * 1024 : NaN;
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr, seconds: (Date.now() - t0) / 1000, peakRssBytes };
}

/** Written into the test's home: Node's own peak RSS of the CLI process (resourceUsage().maxRSS, KiB) at its exit. */
let PEAK_RSS_PRELOAD = '';

describe('day-2 on the lab cluster: certificates and etcd backup', { timeout: 45 * 60_000 }, () => {
  before(() => {
    if (process.getuid?.() !== 0) throw new Error('the lab needs root');
    if (!existsSync(CLI)) throw new Error('dist/cli.js missing: run npm run build first');
    for (const m of execFileSync('bash', [LAB, 'env'], { encoding: 'utf8' }).matchAll(/^export (\w+)="(.*)"$/gm)) env[m[1]!] = m[2]!.replace('$PATH', process.env.PATH ?? '');
    assert.ok(existsSync(env.KUBECONFIG!), `no lab cluster: ${env.KUBECONFIG} is missing — run \`npm run lab -- up --cluster\` first`);
    env.HOME_DIR = tempDir('kw-day2-home-');
    PEAK_RSS_PRELOAD = join(env.HOME_DIR, 'peak-rss.cjs');
    writeFileSync(PEAK_RSS_PRELOAD, "process.on('exit', () => require('node:fs').writeFileSync(process.env.KW_PEAK_RSS_FILE, String(process.resourceUsage().maxRSS)));\n");
  });

  test('certs: every certificate read, about a year left, SANs cover the VIP, served = on disk', () => {
    const r = cli('certs', ['--kubeconfig', env.KUBECONFIG!, '--json']);
    const report = JSON.parse(r.stdout) as CertReport & { summary: CertSummary };
    console.log(`certs: ${r.seconds.toFixed(1)} s, ${report.summary.certificates} certificates, soonest ${report.summary.minDaysLeft} days`);
    recordBench({ certsInspectSeconds: r.seconds, certsInspected: report.summary.certificates });
    assert.equal(r.code, 0, `certs exited ${r.code}:\n${report.summary.lines.join('\n')}`);
    const cps = report.hosts.filter((h) => h.controlPlane);
    assert.equal(cps.length, 3);
    for (const h of report.hosts) assert.equal(h.error, undefined, `${h.host}: ${h.error}`);
    const vip = env.LAB_VIP ?? '10.3.60.100';
    for (const h of cps) {
      const api = h.entries.find((e) => e.id === 'apiserver')!;
      assert.ok(api.daysLeft! >= 360 && api.daysLeft! <= 365, `${h.host} apiserver: ${api.daysLeft} days left`);
      assert.ok(api.facts!.ipAddresses.includes(vip), `${h.host} apiserver SANs: ${api.facts!.ipAddresses.join(', ')}`);
      assert.ok(h.entries.find((e) => e.id === 'ca')!.daysLeft! > 3600);
      for (const id of ['etcd/server', 'etcd/peer', 'admin.conf', 'controller-manager.conf', 'scheduler.conf', 'front-proxy-client']) assert.ok(h.entries.some((e) => e.id === id && e.facts), `${h.host}: ${id}`);
    }
    assert.ok(report.hosts.filter((h) => !h.controlPlane).every((h) => h.entries.some((e) => e.id === 'kubelet-client' && e.facts)), 'each worker shows its kubelet client certificate');
    const served = Object.fromEntries(report.served.map((c) => [c.target, c]));
    assert.ok(served.endpoint?.matchesHost, `the VIP serves a node's apiserver.crt: ${JSON.stringify(served.endpoint?.problems)}`);
    for (const h of cps) assert.deepEqual(served[h.host]?.problems, [], `${h.host}:6443 serves its apiserver.crt`);
    assert.ok(report.local.length >= 1, "the admin context in the lab's kubeconfig is inspected too");
  });

  test('status --ssh: a warning threshold above a year degrades the cluster and names the certificates', () => {
    const r = cli('status', ['--kubeconfig', env.KUBECONFIG!, '--no-etcd', '--ssh', '--warning-days', '400']);
    assert.equal(r.code, 1, r.stdout.slice(-3000));
    assert.match(r.stdout, /certificate apiserver on labs-k8s-m01 expires in 36\d day\(s\) \(under the warning threshold of 400 days\)/);
    const normal = cli('status', ['--kubeconfig', env.KUBECONFIG!, '--no-etcd', '--ssh']);
    assert.doesNotMatch(normal.stdout, /under the warning threshold/, 'a fresh cluster has no certificate under 30 days');
  });

  test('backup: a follower snapshot, verified, pulled 0600 with its manifest', () => {
    const out = tempDir('kw-day2-backups-');
    const r = cli('backup', ['--out', out, '--json'], 10 * 60_000);
    assert.equal(r.code, 0, `backup exited ${r.code}:\n${r.stderr.slice(-3000)}`);
    const { dir, durationMs, manifest } = JSON.parse(r.stdout) as { dir: string; durationMs: number; manifest: BackupManifest };
    console.log(`backup: ${manifest.snapshot.size} bytes in ${(durationMs / 1000).toFixed(2)} s (CLI ${r.seconds.toFixed(1)} s) from ${manifest.member.name}, revision ${manifest.status?.revision ?? manifest.revisionAtSave}, ${manifest.statusFrom}`);
    recordBench({ backupSeconds: durationMs / 1000, backupCliSeconds: r.seconds, backupBytes: manifest.snapshot.size });
    assert.equal(manifest.member.wasLeader, false, 'taken on a follower');
    assert.equal(manifest.snapshot.trailer, 'verified');
    assert.equal(manifest.members.length, 3);
    assert.ok(manifest.snapshot.size > 100_000);
    for (const f of readdirSync(dir)) assert.equal(statSync(join(dir, f)).mode & 0o777, 0o600, f);
    assert.ok(readdirSync(dir).includes('etcd-ca.crt'));
    // The node keeps nothing: the snapshot is removed after the copy arrived.
    const left = spawnSync('ssh', ['-F', env.LAB_SSH_CONFIG!, '-o', `UserKnownHostsFile=${env.LAB_KNOWN_HOSTS}`, manifest.host, 'ls /var/lib/etcd'], { encoding: 'utf8' });
    assert.doesNotMatch(left.stdout, /kw-snapshot/);
  });

  // One node from the CLI (--host): the palette's renewal after this file (ui-day2.test.ts) renews all three, node by node.
  test('certs renew --host: that node renewed with the API through the VIP answering, the others untouched, kubeconfig refreshed', async () => {
    const before = JSON.parse(cli('certs', ['--json']).stdout) as CertReport;
    const kubeconfig = join(env.HOME_DIR!, 'kubeconfig');
    copyFileSync(env.KUBECONFIG!, kubeconfig);
    // The API through the VIP, every 250 ms while the renewal runs: an authenticated GET as the admin, any non-2xx a failure.
    const poller = pollApi(env.KUBECONFIG!, env.LAB_VIP ?? '10.3.60.100');
    const t0 = Date.now();
    const run = await new Promise<{ code: number; stdout: string }>((res) => {
      const p = spawn(process.execPath, [CLI, 'certs', 'renew', '--inventory', env.LAB_INVENTORY!, '--ssh-config', env.LAB_SSH_CONFIG!, '--known-hosts', env.LAB_KNOWN_HOSTS!, '--kubeconfig', kubeconfig, '--host', RENEWED, '--yes', '--json'], {
        env: { ...process.env, PATH: env.PATH!, HOME: env.HOME_DIR! },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let out = '';
      p.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        process.stderr.write(d);
      });
      p.on('exit', (code) => res({ code: code ?? -1, stdout: out }));
    });
    const api = await poller.stop();
    const { polls } = api;
    const failures = api.failures.length;
    const seconds = (Date.now() - t0) / 1000;
    const last = run.stdout.trim().split('\n').at(-1) ?? '{}';
    const result = JSON.parse(last) as { ok: boolean; perNode: { host: string; seconds?: number }[] };
    console.log(`certs renew: ${seconds.toFixed(1)} s; per node ${result.perNode.map((n) => `${n.host} ${n.seconds?.toFixed(1)} s`).join(', ')}; API through the VIP: ${failures} failed of ${polls} polls`);
    const bench: Record<string, number> = { renewSeconds: seconds, renewApiFailedPolls: failures, renewApiPolls: polls };
    for (const n of result.perNode) if (n.seconds !== undefined) bench[`renewNodeSeconds@${n.host}`] = n.seconds;
    recordBench(bench);
    assert.equal(run.code, 0, 'certs renew succeeded');
    assert.deepEqual(result.perNode.map((n) => n.host), [RENEWED]);
    // The node is out of both balancers while its API server restarts: no request through the VIP may fail, and the
    // poller must have run the whole time to say so.
    assert.ok(polls >= minimumPolls(seconds), `the API poller ran: ${polls} polls in ${seconds.toFixed(1)} s (at least ${minimumPolls(seconds)})`);
    assert.deepEqual(api.failures, [], failuresMessage(api, 'API requests through the VIP failed during the renewal'));
    const after = JSON.parse(cli('certs', ['--json']).stdout) as CertReport & { summary: CertSummary };
    const controlPlane = after.hosts.filter((x) => x.controlPlane);
    assert.equal(controlPlane.length, 3);
    for (const h of controlPlane) {
      const was = before.hosts.find((x) => x.host === h.host)!.entries.find((e) => e.id === 'apiserver')!.facts!;
      const now = h.entries.find((e) => e.id === 'apiserver')!.facts!;
      const served = after.served.find((c) => c.target === h.host)!;
      assert.equal(served.facts?.fingerprint, now.fingerprint, `${h.host}:6443 serves its apiserver.crt`);
      if (h.host !== RENEWED) {
        assert.equal(now.fingerprint, was.fingerprint, `${h.host}: not asked for, not renewed`);
        continue;
      }
      assert.notEqual(now.fingerprint, was.fingerprint, `${h.host}: apiserver.crt renewed`);
      assert.ok(Date.parse(now.notAfter) > Date.parse(was.notAfter), `${h.host}: later not-after`);
    }
    // The refreshed copy of the admin kubeconfig works.
    const nodes = execFileSync('kubectl', ['--kubeconfig', kubeconfig, '--context', 'labs-k8s-admin@labs-k8s', 'get', 'nodes', '-o', 'name'], { encoding: 'utf8', env: { ...process.env, PATH: env.PATH! } });
    assert.equal(nodes.trim().split('\n').length, 5);
  });

  test('scheduled snapshots: a 20 s timer on each control-plane node; the files appear on every node within the interval, as the status lists them; then removed', async () => {
    const INTERVAL = 20;
    const install = cli('backup schedule', ['--interval', `${INTERVAL}s`, '--keep', '2', '--yes']);
    assert.equal(install.code, 0, install.stdout.slice(-2000));
    const installed = Date.now();
    // The timer's first run comes one interval after it starts (OnActiveSec), within a second (AccuracySec=1s); a
    // snapshot of the lab's small etcd takes a few seconds more. Looked for on the nodes themselves, not in the product's list.
    const boundSeconds = INTERVAL + 25;
    const files: Record<string, string[]> = {};
    const ls = (h: string) => spawnSync('ssh', ['-F', env.LAB_SSH_CONFIG!, '-o', `UserKnownHostsFile=${env.LAB_KNOWN_HOSTS}`, h, `find ${SNAPSHOT_DIR} -maxdepth 1 -name 'etcd-*.db' -size +100k -printf '%f\\n' 2>/dev/null | sort`], { encoding: 'utf8', timeout: 20_000 }).stdout.trim().split('\n').filter(Boolean);
    for (;;) {
      for (const h of CONTROL_PLANE) files[h] = ls(h);
      if (CONTROL_PLANE.every((h) => files[h]!.length >= 1)) break;
      if (Date.now() - installed > boundSeconds * 1000) break;
      await new Promise((r) => setTimeout(r, 2000));
    }
    const firstAfter = (Date.now() - installed) / 1000;
    console.log(`scheduled snapshots on the nodes after ${firstAfter.toFixed(1)} s: ${CONTROL_PLANE.map((h) => `${h} ${files[h]!.length}`).join(', ')}`);
    const st = cli('backup schedule', ['--status', '--interval', `${INTERVAL}s`, '--json']);
    const status = JSON.parse(st.stdout) as { nodes: { host: string; timerActive: boolean; snapshots: { name: string; bytes: number }[]; newestAgeSeconds?: number }[]; warnings: string[] };
    const removed = cli('backup schedule', ['--remove', '--yes']);
    for (const h of CONTROL_PLANE) assert.ok(files[h]!.length >= 1, `${h}: no snapshot file in ${SNAPSHOT_DIR} within ${boundSeconds} s of the timer's start`);
    recordBench({ scheduledSnapshotFirstSeconds: firstAfter });
    assert.equal(st.code, 0, status.warnings.join('\n'));
    assert.deepEqual(status.nodes.map((n) => n.host).sort(), [...CONTROL_PLANE].sort(), 'the status covers every control-plane node');
    for (const n of status.nodes) {
      assert.equal(n.timerActive, true, n.host);
      // The product lists what is on the node (a file written between the two looks may be one more).
      const listed = n.snapshots.map((x) => x.name).sort();
      assert.ok(files[n.host]!.every((f) => listed.includes(f)), `${n.host}: the status lists ${listed.join(', ')}; on the node: ${files[n.host]!.join(', ')}`);
      assert.ok(listed.length >= 1 && listed.length <= 2, `${n.host}: ${listed.length} snapshots (keep 2)`);
      assert.ok(n.snapshots.every((x) => x.bytes > 100_000));
    }
    assert.equal(removed.code, 0);
    for (const h of CONTROL_PLANE) assert.match(spawnSync('ssh', ['-F', env.LAB_SSH_CONFIG!, h, 'systemctl is-active kubeadm-workbench-etcd-snapshot.timer || true'], { encoding: 'utf8' }).stdout, /inactive|unknown/, `${h}: the timer is gone`);
  });

  test('restore of ≥ 400 MiB of etcd: ConfigMap A and the bulk data → backup → ConfigMap B → restore → A and the bulk data exist, B does not; time, peak RSS, RTO', { timeout: 30 * 60_000 }, async () => {
    const kubectl = (...args: string[]) => execFileSync('kubectl', ['--kubeconfig', env.KUBECONFIG!, '--request-timeout=10s', ...args], { encoding: 'utf8', env: { ...process.env, PATH: env.PATH! } });
    // Nothing installed first: the nodes have no etcdutl of their own, the restore takes the one in the etcd image.
    for (const h of CONTROL_PLANE) assert.notEqual(spawnSync('ssh', ['-F', env.LAB_SSH_CONFIG!, h, 'command -v etcdutl'], { encoding: 'utf8' }).status, 0, `${h} has no etcdutl of its own`);
    for (const n of ['day2-a', 'day2-b']) kubectl('-n', 'default', 'delete', 'configmap', n, '--ignore-not-found');
    kubectl('-n', 'default', 'create', 'configmap', 'day2-a', '--from-literal=written=before-backup');
    const fill = fillEtcd();
    console.log(`etcd filled: ${BULK_KEYS} values of ${BULK_VALUE_BYTES} bytes in ${fill.seconds.toFixed(1)} s; db ${(fill.dbBytes / 1024 ** 2).toFixed(0)} MiB`);
    try {
      const out = tempDir('kw-day2-restore-');
      const b = cli('backup', ['--out', out, '--json'], 15 * 60_000);
      assert.equal(b.code, 0, b.stderr.slice(-2000));
      const { dir, manifest } = JSON.parse(b.stdout) as { dir: string; manifest: BackupManifest };
      const size = manifest.snapshot.size;
      console.log(`backup: ${(size / 1024 ** 2).toFixed(0)} MiB in ${b.seconds.toFixed(1)} s, peak RSS ${(b.peakRssBytes / 1024 ** 2).toFixed(0)} MB`);
      assert.ok(size >= 400 * 1024 ** 2, `the snapshot is ${(size / 1024 ** 2).toFixed(0)} MiB, at least 400 MiB were meant`);
      kubectl('-n', 'default', 'create', 'configmap', 'day2-b', '--from-literal=written=after-backup');

      const refused = cli('restore', ['--from', join(dir, 'snapshot.db'), '--yes']);
      assert.equal(refused.code, 1, 'refused while etcd has a healthy quorum');
      assert.match(refused.stderr, /healthy quorum/);

      const r = cli('restore', ['--from', join(dir, 'snapshot.db'), '--force', '--yes', '--json'], 25 * 60_000);
      const last = JSON.parse(r.stdout.trim().split('\n').at(-1) ?? '{}') as { ok?: boolean; rtoSeconds?: number; totalSeconds?: number };
      console.log(`restore: ${(size / 1024 ** 2).toFixed(0)} MiB, CLI ${r.seconds.toFixed(1)} s (checks, send to 3 members, restore, every Node Ready: ${last.totalSeconds?.toFixed(1)} s), RTO ${last.rtoSeconds?.toFixed(1)} s from stopping the API servers, peak RSS ${(r.peakRssBytes / 1024 ** 2).toFixed(0)} MB`);
      recordBench({ restoreBytes: size, restoreCliSeconds: r.seconds, restorePeakRssBytes: r.peakRssBytes, backupLargeSeconds: b.seconds, backupPeakRssBytes: b.peakRssBytes, ...(last.rtoSeconds !== undefined ? { restoreRtoSeconds: last.rtoSeconds, restoreTotalSeconds: last.totalSeconds ?? 0 } : {}) });
      assert.equal(r.code, 0, `restore failed:\n${r.stdout.slice(-4000)}\n${r.stderr.slice(-4000)}`);
      assert.match(`${r.stdout}\n${r.stderr}`, /etcdutl from the etcd image \S+\/etcd:\S+/, 'etcdutl came from the cluster\'s own etcd image');
      // The RTO (stopping the API servers → the API answering through the VIP) is bounded by what the restore waits on
      // (core/backup/restorePlan.ts, kubeadm's static pods): the kubelet notices a moved manifest within its 20 s file
      // check, stops etcd and the API server (30 s grace at most), etcdutl restores the snapshot (≈ 10 s for 400 MiB
      // here), etcd comes back within another file check and elects a leader, the API server starts within a third
      // file check and needs about 15 s to serve: 20 + 30 + 10 + 20 + 10 + 20 + 15 = 125 s, half again for the load;
      // a larger snapshot adds etcdutl's time for the rest (≈ 40 MiB/s, from the 10 s per 400 MiB above).
      const RTO_BOUND = 190 + Math.max(0, size - 400 * 1024 ** 2) / (40 * 1024 ** 2);
      assert.ok(last.rtoSeconds !== undefined, `the restore reports its RTO: ${r.stdout.slice(-1000)}`);
      assert.ok(last.rtoSeconds <= RTO_BOUND, `RTO ${last.rtoSeconds.toFixed(1)} s within ${RTO_BOUND} s`);
      // Memory: the snapshot streams through both (a chunk and the SSH windows per member): the issue's goal of
      // 200 MB holds at 400 MiB with room, whereas reading it whole took 1.07 GB and failed above ~384 MiB.
      assert.ok(b.peakRssBytes < 200 * 1024 ** 2, `backup peak RSS ${(b.peakRssBytes / 1024 ** 2).toFixed(0)} MB`);
      assert.ok(r.peakRssBytes < 200 * 1024 ** 2, `restore peak RSS ${(r.peakRssBytes / 1024 ** 2).toFixed(0)} MB`);
      // Time: hashing here and on each node, the send (3 × the size over SSH, ≥ 10 MiB/s in all even on a loaded
      // 2-core machine: 50 MiB/s measured on loopback), etcdutl writing each member's data dir, then the gates the
      // small restore already needs (etcd healthy, the API servers' /readyz, every Node Ready: up to ~120 s).
      const bound = 300 + (3 * size) / (10 * 1024 ** 2);
      assert.ok(r.seconds < bound, `restore took ${r.seconds.toFixed(0)} s, bound ${bound.toFixed(0)} s`);
      assert.match(kubectl('-n', 'default', 'get', 'configmap', 'day2-a', '-o', 'jsonpath={.data.written}'), /before-backup/);
      assert.throws(() => kubectl('-n', 'default', 'get', 'configmap', 'day2-b'), /NotFound|not found/);
      assert.equal(bulkCount(), BULK_KEYS, 'the bulk data came back with the snapshot');
      // exit 0 includes the plan's own gates: three voting members with one leader, the API through the VIP, every Node Ready.
    } finally {
      const freed = emptyEtcd();
      console.log(`etcd emptied again: ${freed.seconds.toFixed(1)} s, db ${(freed.dbBytes / 1024 ** 2).toFixed(0)} MiB`);
      kubectl('-n', 'default', 'delete', 'configmap', 'day2-a', 'day2-b', '--ignore-not-found');
    }
  });
});

/**
 * The quota-filling trick of the tier: ≥ 400 MiB of etcd written with etcdctl on m01 as BULK_KEYS values of 1 MB
 * (etcd takes at most 1.5 MiB a request) under /kw-lab-bulk/, which no Kubernetes object lives under: the API
 * servers neither cache nor watch it, so 400 MiB cost etcd's disk only, not three API servers' memory. One random
 * value written BULK_KEYS times (etcd does not compress; one urandom read instead of 420). KW_LAB_BULK_KEYS measures a
 * larger restore by hand (2,150 for 2 GiB; the members' --quota-backend-bytes raised above it first).
 */
const BULK_KEYS = Number(process.env.KW_LAB_BULK_KEYS ?? 440);
const BULK_VALUE_BYTES = 1_000_000;
const M01 = 'labs-k8s-m01';
const ETCDCTL_TLS = '--endpoints=https://127.0.0.1:2379 --cacert=/etc/kubernetes/pki/etcd/ca.crt --cert=/etc/kubernetes/pki/etcd/healthcheck-client.crt --key=/etc/kubernetes/pki/etcd/healthcheck-client.key --command-timeout=120s';

function onM01(script: string, timeoutMs = 10 * 60_000): string {
  return execFileSync('ssh', ['-F', env.LAB_SSH_CONFIG!, '-o', `UserKnownHostsFile=${env.LAB_KNOWN_HOSTS}`, M01, script], { encoding: 'utf8', timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 });
}

/** etcdctl in a folder of its own on m01 (not on PATH: the product keeps using the etcd container's). */
function etcdctlOnM01(): string {
  const version = /^ETCD_VERSION=(\S+)/m.exec(readFileSync(join(ROOT, 'lab/versions.env'), 'utf8'))![1]!;
  const bin = join(process.env.KW_LAB_CACHE ?? '/var/cache/kubeadm-workbench/lab', 'bin', `etcd-${version}`, 'etcdctl');
  onM01('mkdir -p /root/kw-bulk');
  execFileSync('scp', ['-q', '-F', env.LAB_SSH_CONFIG!, '-o', `UserKnownHostsFile=${env.LAB_KNOWN_HOSTS}`, bin, `${M01}:/root/kw-bulk/etcdctl`]);
  return `/root/kw-bulk/etcdctl ${ETCDCTL_TLS}`;
}

const dbSize = (etcdctl: string): number => Math.max(...[...onM01(`${etcdctl} endpoint status --cluster -w json`).matchAll(/"dbSize":(\d+)/g)].map((m) => Number(m[1])));

function fillEtcd(): { seconds: number; dbBytes: number } {
  const t0 = Date.now();
  const etcdctl = etcdctlOnM01();
  onM01(`set -e; head -c ${BULK_VALUE_BYTES} /dev/urandom > /root/kw-bulk/v; i=0; while [ $i -lt ${BULK_KEYS} ]; do ${etcdctl} put /kw-lab-bulk/$i < /root/kw-bulk/v > /dev/null; i=$((i+1)); done`, 20 * 60_000);
  return { seconds: (Date.now() - t0) / 1000, dbBytes: dbSize(etcdctl) };
}

function bulkCount(): number {
  // etcdctl 3.6 prints --count-only only as fields: `"Count" : 440`.
  return Number(/"Count" : (\d+)/.exec(onM01(`/root/kw-bulk/etcdctl ${ETCDCTL_TLS} get /kw-lab-bulk/ --prefix --count-only -w fields`))?.[1] ?? -1);
}

/** The bulk keys deleted, the history compacted and every member defragmented: etcd back to its size before. */
function emptyEtcd(): { seconds: number; dbBytes: number } {
  const t0 = Date.now();
  const etcdctl = `/root/kw-bulk/etcdctl ${ETCDCTL_TLS}`;
  onM01(`set -e; ${etcdctl} del /kw-lab-bulk/ --prefix >/dev/null; rev=$(${etcdctl} endpoint status -w json | sed -n 's/.*"revision":\\([0-9]*\\).*/\\1/p'); ${etcdctl} compact --physical "$rev" >/dev/null; ${etcdctl} defrag --cluster >/dev/null`);
  const dbBytes = dbSize(etcdctl);
  onM01('rm -rf /root/kw-bulk');
  return { seconds: (Date.now() - t0) / 1000, dbBytes };
}

