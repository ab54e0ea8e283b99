/**
 * The live views in real VS Code on the lab's cluster, from the installed .vsix with default settings (the lab's
 * kubeconfig is kubeadm's admin.conf: client-certificate auth through the VIP, which VS Code's proxy support must not
 * strip): the Inventory with the balancers read live (the VIP holder first), Control Plane, Leases and etcd Members,
 * healthy and during a power-off of the third control-plane node; how long the editor's etcd line took to say "at
 * risk" after the power-off command returned (goal: 5 s) goes to the lab bench. DESTRUCTIVE for the lab (power-off
 * and on of that node; it waits for a healthy cluster before and after). Screenshots: test-results/ui/live-*.png.
 * Needs root, a lab cluster (`npm run lab -- up --cluster`), code-server and Chromium, the packaged .vsix.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parseInventory } from '../../src/core/inventory/parse';
import { recordBench } from './bench';
import { waitHealthy, TAKE_OVER_HEALTHY_MS } from './clusterHealth';
import { labEnv, openKubeadmContainer, openLabEditor, showOnlyView, waitForRows, type LabEditor, type Row } from './labEditor';
import { REPO } from '../vscode/harness/codeServer';
import { tempDir } from '../tempDir';

function lab(...args: string[]): void {
  const r = spawnSync('bash', [join(REPO, 'lab/lab.sh'), ...args], { encoding: 'utf8', timeout: 120_000 });
  assert.equal(r.status, 0, `lab ${args.join(' ')}: ${r.stderr}`);
}

const find = (rows: Row[], name: string | RegExp) => rows.find((r) => (typeof name === 'string' ? r.name === name : name.test(r.name)));

describe('the live views in VS Code on the lab cluster, healthy and during a control-plane power-off', { timeout: 15 * 60_000 }, () => {
  let ed: LabEditor | undefined;
  let home: string;
  let ok = false;
  const numbers: Record<string, number> = {};

  before(async () => {
    if (process.getuid?.() !== 0) throw new Error('the lab needs root');
    home = tempDir('kw-ui-live-home-');
    await waitHealthy(labEnv(), home, TAKE_OVER_HEALTHY_MS);
    ed = await openLabEditor('ui-live');
    await openKubeadmContainer(ed.page);
  });

  after(async () => {
    console.log('live views in the editor:', JSON.stringify(numbers));
    await ed?.close(ok);
  });

  it('fills every view through the VIP with the admin client certificate, then shows m03 down and back', async () => {
    const { page, shot, env } = ed!;
    const inventory = parseInventory(readFileSync(env.LAB_INVENTORY!, 'utf8')).inventory!;
    const controlPlane = inventory.hosts.filter((h) => h.roles.includes('control-plane')).map((h) => h.name);
    const m03 = controlPlane[2]!;

    // Healthy: the VIP on one balancer with every backend UP; every control-plane node Ready; the leader leases held;
    // etcd's three members with the quorum line tolerating one failure.
    await showOnlyView(page, 'Inventory');
    const vip = await waitForRows(page, 'Inventory', 'VIP holder row', 60_000, (rows) => rows.find((r) => /^VIP \S+ on /.test(r.name) && /backends (\d+)\/\1 UP/.test(r.description)));
    console.log(`Inventory: ${vip.name} · ${vip.description}`);
    await shot('live-1-inventory-healthy');
    await showOnlyView(page, 'Control Plane');
    await waitForRows(page, 'Control Plane', 'three Ready control-plane nodes', 60_000, (rows) => (controlPlane.every((n) => find(rows, n)?.description.startsWith('Ready ·')) ? true : undefined));
    // A 403 (anonymous) or any other failure to list shows as an error row instead of the nodes.
    await shot('live-2-control-plane-healthy');
    await showOnlyView(page, 'Leases');
    await waitForRows(page, 'Leases', 'the scheduler lease held', 60_000, (rows) => (controlPlane.some((n) => find(rows, 'kube-scheduler')?.description.startsWith(`${n} ·`)) ? true : undefined));
    await shot('live-3-leases-healthy');
    await showOnlyView(page, 'etcd Members');
    const quorum = await waitForRows(page, 'etcd Members', 'the quorum line of three healthy members', 60_000, (rows) => find(rows, /^3 members · quorum 2 · tolerates 1 failure$/));
    await waitForRows(page, 'etcd Members', 'every member row', 30_000, (rows) => (controlPlane.every((n) => find(rows, n)) ? true : undefined));
    console.log(`etcd Members: ${quorum.name} · ${quorum.description}`);
    await shot('live-4-etcd-healthy');

    // The power-off, with the etcd Members view visible: the time until its quorum line says "at risk".
    lab('fault', 'power-off', m03);
    const t0 = Date.now();
    try {
      const atRisk = await waitForRows(page, 'etcd Members', 'quorum line "at risk"', 60_000, (rows) => (find(rows, /tolerates 0 failures \(at risk\)/) ? Date.now() - t0 : undefined), 100);
      numbers.etcdAtRiskMs = atRisk;
      console.log(`etcd "at risk" in the editor ${atRisk} ms after the power-off command returned (goal: within 5 s)`);
      recordBench({ uiEtcdAtRiskSeconds: atRisk / 1000 });
      assert.ok(atRisk <= 5000, `etcd "at risk" shown ${atRisk} ms after the power-off (goal ≤ 5 s: the view reads etcd every 2 s)`);
      const member = await waitForRows(page, 'etcd Members', `${m03} unreachable`, 30_000, (rows) => (/unreachable/.test(find(rows, m03)?.description ?? '') ? find(rows, m03) : undefined));
      console.log(`etcd Members during the power-off: ${m03} · ${member.description}`);
      assert.doesNotMatch(member.description, /· (leader|follower) ·/, `a dead member labelled by a role it has not now: ${member.description}`);
      await shot('live-5-etcd-m03-off');
      // kubectl's NotReady after the node monitor's grace period (about 40 s).
      await showOnlyView(page, 'Control Plane');
      const notReady = await waitForRows(page, 'Control Plane', `${m03} NotReady`, 120_000, (rows) => (find(rows, m03)?.description.startsWith('NotReady') ? Date.now() - t0 : undefined), 500);
      numbers.notReadyMs = notReady;
      const row = find(await waitForRows(page, 'Control Plane', 'rows', 5_000, (rows) => rows), m03)!;
      console.log(`Control Plane: ${m03} · ${row.description} after ${notReady} ms`);
      // The pods of a node that is not Ready are its kubelet's last report, never counted "ready" (kubectl: NotReady).
      assert.match(row.description, /^NotReady · pods last reported \d+\/\d+ ready/, row.description);
      await shot('live-6-control-plane-m03-off');
      await showOnlyView(page, 'Leases');
      await waitForRows(page, 'Leases', `scheduler lease off ${m03}`, 60_000, (rows) => (find(rows, 'kube-scheduler') && !find(rows, 'kube-scheduler')!.description.startsWith(m03) ? true : undefined));
      await shot('live-7-leases-m03-off');
      await showOnlyView(page, 'Inventory');
      const down = await waitForRows(page, 'Inventory', 'the VIP row with a backend DOWN', 30_000, (rows) => rows.find((r) => /^VIP \S+ on /.test(r.name) && r.description.includes(`backends ${controlPlane.length - 1}/${controlPlane.length} UP`)));
      console.log(`Inventory during the power-off: ${down.name} · ${down.description}`);
      await shot('live-8-inventory-m03-off');
    } finally {
      lab('fault', 'power-on', m03);
    }
    await showOnlyView(page, 'etcd Members');
    const back = await waitForRows(page, 'etcd Members', 'three healthy members again', 180_000, (rows) => (find(rows, /^3 members · quorum 2 · tolerates 1 failure$/) ? Date.now() - t0 : undefined), 1000);
    numbers.etcdBackMs = back;
    await waitHealthy(env, home, 240_000);
    await showOnlyView(page, 'Control Plane');
    await waitForRows(page, 'Control Plane', 'three Ready control-plane nodes again', 60_000, (rows) => (controlPlane.every((n) => find(rows, n)?.description.startsWith('Ready ·')) ? true : undefined));
    await shot('live-9-control-plane-back');
    ok = true;
  });
});
