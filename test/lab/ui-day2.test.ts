/**
 * Day-2 from the command palette in real VS Code (code-server, the installed .vsix) on the lab's running cluster:
 *  - "Kubeadm: Inspect Certificates" fills the Certificates view, per control-plane host and as served;
 *  - "Kubeadm: Back Up etcd…" writes a verified snapshot with its manifest into the backup folder (a setting), and
 *    the Backups view lists it; its duration and size go to the lab bench;
 *  - "Kubeadm: Renew Certificates…", the plan approved in its modal, renews node by node while a client polls the API
 *    through the VIP (failed requests counted); after it, each node's apiserver.crt (read over SSH) and the
 *    certificate its 6443 serves (TLS handshake) are the same, renewed one: later not-after, the full period again.
 *    Per node (guard to controllers back, from the run's ledger) and failed requests go to the lab bench.
 * Runs on the cluster the tier already has (after day2.test.ts); renewed certificates leave every credential valid,
 * and the snapshot stays only in this test's temporary folder. Screenshots: test-results/ui/day2-*.png.
 * Needs root, a lab cluster (`npm run lab -- up --cluster`), code-server and Chromium, the packaged .vsix.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { connect } from 'node:tls';
import type { BackupManifest } from '../../src/core/backup/snapshot';
import { parseInventory } from '../../src/core/inventory/parse';
import type { Inventory } from '../../src/core/inventory/types';
import type { LedgerData } from '../../src/core/plan/ledger';
import { recordBench } from './bench';
import { minimumPolls, pollApi, waitHealthy, TAKE_OVER_HEALTHY_MS } from './clusterHealth';
import { watchHaproxy, type StateChange } from './haproxyWatch';
import { failuresMessage, type PollResult } from './httpPoller';
import { setRowExpanded, labEnv, openKubeadmContainer, openLabEditor, planApproval, runPaletteCommand, showOnlyView, waitForLedger, waitForRows, type LabEditor } from './labEditor';
import { tempDir } from '../tempDir';

interface CertFacts {
  fingerprint: string;
  notBefore: number;
  notAfter: number;
}

const facts = (c: X509Certificate): CertFacts => ({ fingerprint: c.fingerprint256, notBefore: Date.parse(c.validFrom), notAfter: Date.parse(c.validTo) });
const day = 86_400_000;

/** The certificate a node's kube-apiserver serves on 6443 (the handshake only). */
function served(address: string): Promise<CertFacts> {
  return new Promise((res, rej) => {
    const s = connect({ host: address, port: 6443, rejectUnauthorized: false, timeout: 5000 }, () => {
      const c = s.getPeerX509Certificate();
      s.end();
      if (c) res(facts(c));
      else rej(new Error(`${address}:6443 presented no certificate`));
    });
    s.on('timeout', () => s.destroy(new Error(`${address}:6443: handshake timed out`)));
    s.on('error', rej);
  });
}

describe('day-2 from the palette in VS Code on the lab cluster: certificates, backup, renewal', { timeout: 20 * 60_000 }, () => {
  let ed: LabEditor | undefined;
  let env: Record<string, string>;
  let inventory: Inventory;
  let backups: string;
  let ok = false;
  const numbers: Record<string, number | string> = {};

  /** apiserver.crt on the node, over SSH with the lab's config and known_hosts. */
  const onDisk = (host: string): CertFacts =>
    facts(new X509Certificate(execFileSync('ssh', ['-F', env.LAB_SSH_CONFIG!, '-o', `UserKnownHostsFile=${env.LAB_KNOWN_HOSTS}`, '-o', 'BatchMode=yes', host, 'cat /etc/kubernetes/pki/apiserver.crt'], { encoding: 'utf8', timeout: 30_000 })));
  const controlPlane = () => inventory.hosts.filter((h) => h.roles.includes('control-plane'));

  before(async () => {
    if (process.getuid?.() !== 0) throw new Error('the lab needs root');
    env = labEnv();
    inventory = parseInventory(readFileSync(env.LAB_INVENTORY!, 'utf8')).inventory!;
    await waitHealthy(env, tempDir('kw-ui-day2-home-'), TAKE_OVER_HEALTHY_MS);
    // Outside any git work tree, as the command demands (a snapshot holds every Secret).
    backups = tempDir('kw-ui-day2-backups-');
    ed = await openLabEditor('ui-day2', { 'kubeadmWorkbench.backup.folder': backups });
    await openKubeadmContainer(ed.page);
  });

  after(async () => {
    console.log('day-2 from the palette:', JSON.stringify(numbers, null, 2));
    await ed?.close(ok);
    // The snapshot holds every Secret of the cluster: kept only to look into a failure.
    if (ok && backups) rmSync(backups, { recursive: true, force: true });
  });

  it('"Inspect Certificates" fills the Certificates view for every control-plane host', async () => {
    const { page, shot } = ed!;
    await showOnlyView(page, 'Certificates');
    await runPaletteCommand(page, 'Kubeadm: Inspect Certificates');
    const rows = await waitForRows(page, 'Certificates', 'every control-plane host inspected', 180_000, (r) => (controlPlane().every((h) => /^\d+ certificates · soonest \d+d$/.test(r.find((x) => x.name === h.name)?.description ?? '')) ? r : undefined), 500);
    console.log(`Certificates: ${rows.map((r) => `${r.name} ${r.description}`).join(' | ')}`);
    await setRowExpanded(page, 'Certificates', controlPlane()[0]!.name);
    await waitForRows(page, 'Certificates', `${controlPlane()[0]!.name}'s apiserver certificate`, 10_000, (r) => r.find((x) => x.name === 'apiserver' && /^\d+d left · /.test(x.description)));
    await shot('day2-1-certificates');
  });

  it('"Back Up etcd…" writes a verified snapshot with its manifest, listed in the Backups view', async () => {
    const { page, shot } = ed!;
    await showOnlyView(page, 'Backups');
    const t0 = Date.now();
    await runPaletteCommand(page, 'Kubeadm: Back Up etcd…');
    await page.locator('.tabs-container .tab', { hasText: 'etcd-backup.md' }).waitFor({ timeout: 5 * 60_000 });
    const wall = (Date.now() - t0) / 1000;
    // On disk: one backup folder, the snapshot and its manifest, every file 0600.
    const dirs = readdirSync(backups);
    assert.equal(dirs.length, 1, `one backup in ${backups}: ${dirs.join(', ')}`);
    const dir = join(backups, dirs[0]!);
    const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as BackupManifest;
    const size = statSync(join(dir, 'snapshot.db')).size;
    assert.equal(manifest.cluster, inventory.cluster.name);
    assert.equal(manifest.snapshot.size, size, 'the manifest records the size of the file that arrived');
    assert.ok(size > 100_000, `snapshot of ${size} bytes`);
    assert.equal(manifest.snapshot.trailer, 'verified');
    assert.equal(manifest.members.length, controlPlane().length);
    for (const f of readdirSync(dir)) assert.equal(statSync(join(dir, f)).mode & 0o777, 0o600, f);
    numbers.backup = `${size} bytes in ${(manifest.durationMs / 1000).toFixed(1)} s from ${manifest.member.name} (palette to report ${wall.toFixed(1)} s)`;
    console.log(`backup from the palette: ${numbers.backup}`);
    recordBench({ uiBackupSeconds: manifest.durationMs / 1000, uiBackupWallSeconds: wall, uiBackupBytes: size });
    // The Backups view lists it under the folder, with its revision and size.
    await showOnlyView(page, 'Backups');
    await waitForRows(page, 'Backups', 'the local backups row counting one', 30_000, (r) => r.find((x) => x.name === 'Local backups' && x.description.endsWith(`${backups} · 1`)));
    await setRowExpanded(page, 'Backups', 'Local backups');
    const listed = await waitForRows(page, 'Backups', 'the new backup row', 30_000, (r) => r.find((x) => x.description.startsWith(`${manifest.cluster} · `) && /· rev \d+ · /.test(x.description)));
    console.log(`Backups view: ${listed.name} · ${listed.description}`);
    await shot('day2-2-backups');
  });

  it('"Renew Certificates…" renews node by node with the API answering through the VIP; new expiry on disk and served', async () => {
    const { page, shot, dirs } = ed!;
    const hosts = controlPlane();
    const before = Object.fromEntries(await Promise.all(hosts.map(async (h) => [h.name, { disk: onDisk(h.name), served: await served(h.address) }] as const)));
    // An authenticated client through the VIP (any non-2xx a failure), and HAProxy's own account on the MASTER balancer.
    const poller = pollApi(env.KUBECONFIG!, inventory.cluster.controlPlaneEndpoint.replace(/:\d+$/, ''));
    const haproxy = watchHaproxy(env.LAB_SSH_CONFIG!, 'labs-k8s-balancer');
    let api: PollResult | undefined;
    let changes: StateChange[] = [];
    const runs = join(dirs.workspace, '.kubeadm-workbench', 'runs');
    const t0 = Date.now();
    let terminal = '';
    let ledger: LedgerData | undefined;
    try {
      await runPaletteCommand(page, 'Kubeadm: Renew Certificates…');
      // The plan opens beside the modal that asks to run it.
      const approval = await planApproval(page, 'certs-renew-plan.txt');
      await shot('day2-3-renew-approve');
      await approval.click('Run');
      // The run's ledger in the workspace says when the plan got through (or where it stopped); the run terminal and
      // the notification say the same to the user (screenshot below).
      ledger = await waitForLedger(page, runs, 'certs-renew', 'renewal', 12);
      terminal = (await page.locator('.xterm-rows').last().innerText().catch(() => '')).replace(/\u00a0/g, ' ');
    } finally {
      api = await poller.stop();
      changes = await haproxy.stop();
      numbers.renewApi = `${api.failures.length} failed of ${api.polls} polls`;
      recordBench({ uiRenewApiFailedPolls: api.failures.length, uiRenewApiPolls: api.polls });
    }
    const seconds = (Date.now() - t0) / 1000;
    // No request through the VIP fails while the nodes restart one by one behind the balancers; the poller ran throughout.
    assert.ok(api.polls >= minimumPolls(seconds), `the API poller ran: ${api.polls} polls in ${seconds.toFixed(1)} s`);
    assert.deepEqual(api.failures, [], failuresMessage(api, 'API requests through the VIP failed during the renewal'));
    // One control-plane node at a time, as HAProxy saw it: never two API servers out of the backend at once.
    const out = new Set<string>();
    for (const c of changes.sort((a, b) => a.at - b.at)) {
      if (/^(MAINT|DOWN)/.test(c.status)) out.add(c.server);
      else out.delete(c.server);
      assert.ok(out.size <= 1, `two API servers out of HAProxy at once at ${new Date(c.at).toISOString()}: ${[...out].join(', ')}\n${changes.map((x) => `${new Date(x.at).toISOString()} ${x.server} ${x.status}`).join('\n')}`);
    }
    assert.equal(new Set(changes.filter((c) => c.status.startsWith('MAINT')).map((c) => c.server)).size, hosts.length, `every node's server went into maintenance once: ${JSON.stringify(changes)}`);
    await runPaletteCommand(page, 'Notifications: Show Notifications');
    await page.locator('.notifications-center .notification-list-item', { hasText: /Certificate renewal of \S+ done/ }).first().waitFor({ timeout: 30_000 });
    // The ledger completes a moment before the terminal prints its last line: read it again for a few seconds.
    for (const end = Date.now() + 15_000; !/Certificate renewal of \S+ done in [\d.]+ s/.test(terminal) && Date.now() < end; ) {
      await page.waitForTimeout(500);
      terminal = (await page.locator('.xterm-rows').last().innerText().catch(() => '')).replace(/\u00a0/g, ' ');
    }
    assert.match(terminal, /Certificate renewal of \S+ done in [\d.]+ s/, `the run terminal's last line:\n${terminal.slice(-1500)}`);
    await shot('day2-4-renew-done');
    // Per node, as the workflow measures it: from its guard step's start to its controllers step's end.
    assert.ok(ledger, 'the renewal ended');
    const { steps } = ledger;
    const perNode: Record<string, number> = {};
    for (const h of hosts) {
      const guard = steps[`renew-certs/${h.name}/guard`];
      const controllers = steps[`renew-certs/${h.name}/controllers`];
      assert.equal(controllers?.state, 'done', `${h.name}: controllers back`);
      perNode[h.name] = (Date.parse(controllers.finishedAt!) - Date.parse(guard!.startedAt!)) / 1000;
    }
    // ... and as the run's ledger says: each node's restarts (its guard's start to its controllers' end) end before the
    // next node's begin.
    const windows = hosts.map((h) => ({ host: h.name, from: Date.parse(steps[`renew-certs/${h.name}/guard`]!.startedAt!), to: Date.parse(steps[`renew-certs/${h.name}/controllers`]!.finishedAt!) })).sort((a, b) => a.from - b.from);
    for (let i = 1; i < windows.length; i++) assert.ok(windows[i]!.from >= windows[i - 1]!.to, `${windows[i]!.host}'s renewal began before ${windows[i - 1]!.host}'s ended: ${JSON.stringify(windows)}`);
    // each step's time, in the order they ran: where a node's time goes (the CLI's run prints the same per step)
    const stepTimes = Object.entries(steps)
      .filter(([, st]) => st.startedAt && st.finishedAt)
      .sort(([, a], [, b]) => Date.parse(a.startedAt!) - Date.parse(b.startedAt!))
      .map(([id, st]) => `${id} ${((Date.parse(st.finishedAt!) - Date.parse(st.startedAt!)) / 1000).toFixed(1)} s`);
    console.log(`renewal steps from the palette:\n  ${stepTimes.join('\n  ')}`);
    numbers.renew = `${seconds.toFixed(1)} s; per node ${Object.entries(perNode).map(([h, s]) => `${h} ${s.toFixed(1)} s`).join(', ')}`;
    console.log(`renewal from the palette: ${numbers.renew}; API through the VIP: ${numbers.renewApi}`);
    recordBench({ uiRenewSeconds: seconds, ...Object.fromEntries(Object.entries(perNode).map(([h, s]) => [`uiRenewNodeSeconds@${h}`, s])) });

    for (const h of hosts) {
      const was = before[h.name]!;
      const disk = onDisk(h.name);
      const now = await served(h.address);
      assert.equal(was.served.fingerprint, was.disk.fingerprint, `${h.name} served its apiserver.crt before`);
      assert.notEqual(disk.fingerprint, was.disk.fingerprint, `${h.name}: apiserver.crt renewed on disk`);
      assert.equal(now.fingerprint, disk.fingerprint, `${h.name}:6443 serves the renewed certificate (restarted, not only written)`);
      assert.ok(disk.notAfter > was.disk.notAfter, `${h.name}: not-after ${new Date(disk.notAfter).toISOString()} later than ${new Date(was.disk.notAfter).toISOString()}`);
      // Issued during this renewal (kubeadm back-dates not-before by a few minutes), for the full period again.
      assert.ok(disk.notBefore > t0 - 15 * 60_000, `${h.name}: not-before ${new Date(disk.notBefore).toISOString()}`);
      assert.ok(Math.abs((disk.notAfter - disk.notBefore) - (was.disk.notAfter - was.disk.notBefore)) < day, `${h.name}: the same validity period as before`);
      console.log(`${h.name}: apiserver.crt not-after ${new Date(was.disk.notAfter).toISOString()} → ${new Date(disk.notAfter).toISOString()} (${((disk.notAfter - Date.now()) / day).toFixed(1)} days left), served = on disk`);
    }

    // The command inspects again after a renewal: the Certificates view shows the served certificates equal to the files.
    await showOnlyView(page, 'Certificates');
    await setRowExpanded(page, 'Certificates', hosts[0]!.name, false);
    await setRowExpanded(page, 'Certificates', 'Served by the API servers');
    await waitForRows(page, 'Certificates', "each node's served certificate equal to its apiserver.crt", 120_000, (r) => (hosts.every((h) => r.find((x) => x.name === h.name && x.description.includes(`= ${h.name}'s apiserver.crt`))) ? true : undefined), 500);
    await shot('day2-5-certificates-renewed');
    ok = true;
  });
});
