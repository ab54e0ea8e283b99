/**
 * The live models and the watch engine against a real kube-apiserver + etcd (test/integration/apiserver.ts),
 * checked against `kubectl get` ground truth. Run: npm run test:integration
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { loadKubeAdapter, type KubeAdapter } from '../../../src/adapters/kube/load';
import type { KubeConnection } from '../../../src/adapters/kube/index';
import { parseInventory } from '../../../src/core/inventory/parse';
import type { Inventory } from '../../../src/core/inventory/types';
import { ALL_RESOURCES } from '../../../src/core/live/resources';
import { Reflector } from '../../../src/core/live/watch';
import { verdict } from '../../../src/core/live/status';
import { assessHealth } from '../../../src/core/live/health';
import type { Lease, Node, Pod } from '../../../src/core/live/types';
import { createMirrorPod, createNode, etcdctl, makePki, putLeaderLease, putNodeLease, setNodeReady, setPodStatus, startTestCluster, waitFor, type TestCluster } from '../apiserver';

const COMPONENTS = ['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler'];
const CP = ['m01', 'm02', 'm03'];
const INVENTORY_YAML = `cluster:
  name: itest
  kubernetesVersion: v1.34.12
  controlPlaneEndpoint: 127.0.0.1:6443
  podSubnet: 10.244.0.0/16
  serviceSubnet: 10.96.0.0/12
  cni: flannel
hosts:
  - { name: lb, address: 10.3.60.50, roles: [loadbalancer] }
  - { name: m01, address: 10.3.60.51, roles: [control-plane] }
  - { name: m02, address: 10.3.60.52, roles: [control-plane] }
  - { name: m03, address: 10.3.60.53, roles: [control-plane] }
  - { name: w01, address: 10.3.60.54, roles: [worker] }
`;

let c: TestCluster;
let adapter: KubeAdapter;
let conn: KubeConnection;
let inventory: Inventory;
let inventoryFile: string;

before(async () => {
  adapter = loadKubeAdapter(); // fails with a clear message when dist/kube.js was not built
  c = await startTestCluster({ extraApiserverArgs: ['--watch-cache-sizes=configmaps#0'] });
  const parsed = parseInventory(INVENTORY_YAML);
  assert.ok(parsed.inventory, JSON.stringify(parsed.findings));
  inventory = parsed.inventory;
  inventoryFile = join(c.root, 'inventory.yaml');
  writeFileSync(inventoryFile, INVENTORY_YAML);
  const now = Date.now();
  for (const [i, n] of CP.entries()) {
    await createNode(c, n, { controlPlane: true, address: `10.3.60.5${i + 1}` });
    await putNodeLease(c, n, now);
    for (const comp of COMPONENTS) await createMirrorPod(c, comp, n, comp === 'kube-scheduler' && n === 'm02' ? { ready: false, restarts: 5 } : {});
  }
  await createNode(c, 'w01', { address: '10.3.60.54' });
  await putNodeLease(c, 'w01', now);
  await putLeaderLease(c, 'kube-scheduler', 'm01_3a7d9e0b-2c4f-4b1a-8e6d-7c5b9a0f1e23', 0, now);
  await putLeaderLease(c, 'kube-controller-manager', 'm02_8f2e6c1a-4d3b-4a7e-b9c0-5e1f2a3d6b78', 3, now);
  conn = await adapter.connect({ kubeconfig: c.kubeconfig, inventory, live: { notifyIntervalMs: 200 } });
});

after(async () => {
  conn?.dispose();
  await c?.stop();
});

test('connects with the kubeconfig (client cert) and /readyz answers through it', async () => {
  assert.equal(conn.context, 'kw-admin@kw-test');
  const h = await conn.health();
  assert.equal(h.ok, true, JSON.stringify(h));
});

test('the watched model matches kubectl ground truth: nodes, control-plane pods, leases', async () => {
  const release = conn.cluster.acquire(ALL_RESOURCES);
  try {
    await waitFor(() => conn.cluster.synced(ALL_RESOURCES), 10_000, 'all reflectors synced');
    const model = conn.cluster.model();

    const nodes = (JSON.parse(c.kubectl(['get', 'nodes', '-o', 'json'])) as { items: Node[] }).items;
    const truthReady = Object.fromEntries(nodes.map((n) => [n.metadata.name, n.status!.conditions!.find((x) => x.type === 'Ready')!.status === 'True' ? 'Ready' : 'NotReady']));
    assert.deepEqual(Object.fromEntries(model.controlPlane.nodes.map((n) => [n.name, n.readiness])), { m01: truthReady.m01, m02: truthReady.m02, m03: truthReady.m03 });
    assert.deepEqual(model.hosts.filter((h) => h.node).map((h) => [h.host, h.node, h.readiness]), [['m01', 'm01', 'Ready'], ['m02', 'm02', 'Ready'], ['m03', 'm03', 'Ready'], ['w01', 'w01', 'Ready']]);

    const pods = (JSON.parse(c.kubectl(['get', 'pods', '-n', 'kube-system', '-o', 'json'])) as { items: Pod[] }).items;
    for (const n of model.controlPlane.nodes) {
      const truthNode = nodes.find((x) => x.metadata.name === n.name)!;
      assert.deepEqual(n.taints, (truthNode.spec?.taints ?? []).map((t) => `${t.key}${t.value ? `=${t.value}` : ''}:${t.effect}`));
      assert.ok(n.taints.includes('node-role.kubernetes.io/control-plane:NoSchedule'));
      for (const comp of n.components) {
        const truth = pods.find((p) => p.metadata.name === `${comp.component}-${n.name}`)!;
        assert.ok(truth, `${comp.component}-${n.name} in kubectl`);
        const cs = truth.status!.containerStatuses!;
        assert.equal(comp.phase, truth.status!.phase);
        assert.equal(comp.readyContainers, cs.filter((s) => s.ready).length);
        assert.equal(comp.restarts, cs.reduce((a, s) => a + s.restartCount, 0));
        assert.equal(comp.mirror, !!truth.metadata.annotations!['kubernetes.io/config.mirror']);
        assert.equal(comp.source, 'file');
      }
    }

    const leases = (JSON.parse(c.kubectl(['get', 'leases', '-A', '-o', 'json'])) as { items: Lease[] }).items;
    const nodeLeases = leases.filter((l) => l.metadata.namespace === 'kube-node-lease');
    assert.deepEqual(model.leases.nodes.map((l) => [l.node, l.holder, l.durationSeconds, l.renewTime]), nodeLeases.map((l) => [l.metadata.name, l.spec!.holderIdentity, l.spec!.leaseDurationSeconds, Date.parse(l.spec!.renewTime!)]).sort());
    assert.deepEqual(model.leases.leaders.map((l) => [l.name, l.inventoryHost, l.transitions]), [['kube-controller-manager', 'm02', 3], ['kube-scheduler', 'm01', 0]]);
    // The apiserver's own identity lease, created by the real kube-apiserver.
    const identity = leases.filter((l) => l.metadata.labels?.['apiserver.kubernetes.io/identity'] === 'kube-apiserver');
    assert.equal(identity.length, 1);
    assert.deepEqual(model.leases.apiservers.map((a) => [a.name, a.hostname]), [[identity[0]!.metadata.name, identity[0]!.metadata.labels!['kubernetes.io/hostname']]]);
    assert.equal(model.leases.apiservers[0]!.hostname, hostname());
    assert.ok(model.hosts.find((h) => h.host === 'm01')!.leases.includes('kube-system/kube-scheduler (leader)'));

    const v = verdict(model);
    assert.equal(v.degraded, true, 'the m02 scheduler is not ready');
    assert.deepEqual(v.problems.filter((p) => p.severity === 'critical').map((p) => p.what), ['kube-scheduler-m02: Running, ready 0/1 (CrashLoopBackOff)']);
  } finally {
    release();
  }
});

test('a change reaches the model by watch, coalesced, without a new list', async () => {
  const release = conn.cluster.acquire(['nodes', 'pods']);
  try {
    await waitFor(() => conn.cluster.synced(['nodes', 'pods']), 10_000, 'synced');
    const lists = conn.cluster.reflectors.nodes.stats.lists;
    const seen: string[] = [];
    const off = conn.cluster.onDidChange((keys) => seen.push(...keys));
    const t0 = Date.now();
    await setNodeReady(c, 'w01', false);
    await waitFor(() => conn.cluster.model().hosts.find((h) => h.host === 'w01')!.readiness === 'NotReady', 5000, 'w01 NotReady via watch', 20);
    const latency = Date.now() - t0;
    await waitFor(() => seen.includes('nodes:w01'), 2000, 'coalesced notification for nodes:w01', 20);
    off();
    assert.equal(conn.cluster.reflectors.nodes.stats.lists, lists, 'no re-list');
    assert.ok(latency < 2000, `latency ${latency} ms`);
    assert.match(verdict(conn.cluster.model()).problems.map((p) => p.what).join('\n'), /node w01 is NotReady/);
    await setNodeReady(c, 'w01', true);
  } finally {
    release();
  }
});

test('etcd compacted past the watch resourceVersion → 410 Gone → exactly one re-list, then the watch resumes', async () => {
  // configmaps are not in the watch cache in this harness (--watch-cache-sizes=configmaps#0), so their
  // watches are served by etcd and an etcd compaction expires old resourceVersions, like the
  // apiserver's own compaction every 5 minutes does on a real cluster.
  const path = '/api/v1/namespaces/kube-system/configmaps';
  const changes: string[] = [];
  const r = new Reflector(conn.transport, { key: 'cm', path, labelSelector: 'kw-test=410' }, (cs) => changes.push(...cs.map((x) => `${x.type}:${x.key}`)));
  const cm = (name: string) => c.api('POST', path, { metadata: { name, labels: { 'kw-test': '410' } }, data: { a: name } });
  await cm('cm-a');
  r.start();
  try {
    await waitFor(() => r.synced && r.state === 'watching', 10_000, 'configmaps watching');
    r.stop(); // keeps its resourceVersion
    await cm('cm-b');
    await cm('cm-c');
    const st = JSON.parse(etcdctl(c.pki, c.etcd[0]!.clientUrl, ['endpoint', 'status', '-w', 'json']).stdout) as { Status: { header: { revision: number } } }[];
    const rev = st[0]!.Status.header.revision;
    assert.equal(etcdctl(c.pki, c.etcd[0]!.clientUrl, ['compact', String(rev)]).code, 0);
    const lists = r.stats.lists;
    r.start(); // watch from the kept, now compacted resourceVersion
    await waitFor(() => r.stats.relistsAfterGone === 1 && r.state === 'watching', 10_000, 'one re-list after 410');
    await new Promise((res) => setTimeout(res, 1000));
    assert.equal(r.stats.relistsAfterGone, 1);
    assert.equal(r.stats.lists, lists + 1);
    assert.deepEqual([...r.store.keys()].sort(), ['kube-system/cm-a', 'kube-system/cm-b', 'kube-system/cm-c']);
    assert.ok(changes.includes('added:kube-system/cm-c'));
    await cm('cm-d');
    await waitFor(() => r.store.has('kube-system/cm-d'), 5000, 'event after the re-list', 20);
    assert.equal(r.stats.lists, lists + 1);
  } finally {
    r.stop();
  }
});

test('a node lease going stale: healthy → late → expired as time passes without renewals; a renewal heals it via watch', async () => {
  const release = conn.cluster.acquire(['nodeLeases']);
  try {
    await putNodeLease(c, 'w01', Date.now(), 2); // a 2 s lease, renewed now
    await waitFor(() => conn.cluster.model().leases.nodes.find((l) => l.node === 'w01')?.durationSeconds === 2, 5000, 'lease via watch', 20);
    assert.equal(conn.cluster.model().leases.nodes.find((l) => l.node === 'w01')!.health, 'healthy');
    await waitFor(() => conn.cluster.model().leases.nodes.find((l) => l.node === 'w01')!.health === 'late', 4000, 'late', 50);
    await waitFor(() => conn.cluster.model().leases.nodes.find((l) => l.node === 'w01')!.health === 'expired', 4000, 'expired', 50);
    assert.ok(verdict(conn.cluster.model()).problems.some((p) => /node lease w01 not renewed/.test(p.what)));
    const t0 = Date.now();
    await putNodeLease(c, 'w01', Date.now(), 40);
    await waitFor(() => conn.cluster.model().leases.nodes.find((l) => l.node === 'w01')!.health === 'healthy', 3000, 'healthy again', 10);
    assert.ok(Date.now() - t0 < 1000, `renewal visible after ${Date.now() - t0} ms`);
  } finally {
    release();
  }
});

test('watches run only while acquired: no open watch and no request after release', async () => {
  const t = conn.transport.stats;
  const release = conn.cluster.acquire(['nodes']);
  await waitFor(() => conn.cluster.reflectors.nodes.state === 'watching', 5000, 'watching');
  release();
  assert.equal(conn.cluster.reflectors.nodes.state, 'stopped');
  const requests = t.requests;
  await new Promise((r) => setTimeout(r, 1500));
  assert.equal(t.requests, requests);
});

test('errors say what failed and where: refused, TLS (unknown CA), auth (foreign client cert)', async () => {
  const base = readFileSync(c.kubeconfig, 'utf8');
  const port = Number(new URL(c.server).port);
  const refusedCfg = join(c.root, 'refused.conf');
  writeFileSync(refusedCfg, base.replace(`:${port}`, ':1'));
  const refused = await adapter.connect({ kubeconfig: refusedCfg });
  const h1 = await refused.health(3000);
  refused.dispose();
  assert.equal(h1.error?.kind, 'refused', JSON.stringify(h1.error));
  assert.match(h1.error!.describe(), /connection refused \(https:\/\/127\.0\.0\.1:1\/readyz\)/);

  // Another CA: the server's certificate is not trusted.
  const other = makePki(join(c.root, 'other-pki'));
  const tlsCfg = join(c.root, 'tls.conf');
  writeFileSync(tlsCfg, base.replace(`certificate-authority: ${c.pki.ca}`, `certificate-authority: ${other.ca}`));
  const bad = await adapter.connect({ kubeconfig: tlsCfg });
  const h2 = await bad.health(3000);
  bad.dispose();
  assert.equal(h2.error?.kind, 'tls', JSON.stringify(h2.error));

  // A client certificate from a CA the API server does not trust: anonymous → 401 on lists.
  const authCfg = join(c.root, 'auth.conf');
  writeFileSync(authCfg, base.replace(c.pki.file('admin.crt'), other.file('admin.crt')).replace(c.pki.file('admin.key'), other.file('admin.key')));
  const anon = await adapter.connect({ kubeconfig: authCfg });
  await assert.rejects(anon.transport.list('/api/v1/nodes', {}), (e: { kind?: string; status?: number }) => (e.kind === 'auth' && e.status === 401) || (e.kind === 'forbidden' && e.status === 403));
  anon.dispose();
});

test('health model: a kubeconfig without the client certificate is unauthorised as system:anonymous although /readyz answers; the admin is kw-admin', async () => {
  const anonConf = join(c.root, 'anonymous.conf');
  const text = readFileSync(c.kubeconfig, 'utf8');
  const stripped = text.replace(/ {2}user:\n {4}client-certificate: .*\n {4}client-key: .*\n/, '  user: {}\n');
  assert.notEqual(stripped, text, 'the admin kubeconfig has a client certificate to strip');
  writeFileSync(anonConf, stripped);
  const anon = await adapter.connect({ kubeconfig: anonConf });
  try {
    assert.equal((await anon.health()).ok, true, 'anonymous /readyz answers 200 (system:public-info-viewer)');
    const h = assessHealth(await anon.healthFacts());
    assert.equal(h.state, 'unauthorised', JSON.stringify(h));
    assert.equal(h.identity?.username, 'system:anonymous');
    assert.match(h.headline, /system:anonymous/);
  } finally {
    anon.dispose();
  }
  const admin = assessHealth(await conn.healthFacts());
  assert.equal(admin.identity?.username, 'kw-admin');
  assert.ok(admin.identity?.groups.includes('system:masters'), JSON.stringify(admin.identity));
  assert.deepEqual(admin.denied, []);
  const cli = join(__dirname, '../../../dist/cli.js');
  const r = spawnSync(process.execPath, [cli, 'status', '--inventory', inventoryFile, '--kubeconfig', anonConf, '--no-etcd'], { encoding: 'utf8', timeout: 30_000 });
  assert.equal(r.status, 1);
  assert.match(r.stderr, /unauthorised: .*system:anonymous/);
});

test('CLI status prints the model and exits 1 when degraded, 0 when healthy', async () => {
  const cli = join(__dirname, '../../../dist/cli.js');
  const run = (...extra: string[]) => spawnSync(process.execPath, [cli, 'status', '--inventory', inventoryFile, '--kubeconfig', c.kubeconfig, '--no-etcd', ...extra], { encoding: 'utf8', timeout: 30_000 });
  const bad = run();
  assert.equal(bad.status, 1, bad.stderr + bad.stdout);
  assert.match(bad.stdout, /kube-scheduler-m02: kube-scheduler · Running · ready 0\/1 · restarts 5/);
  assert.match(bad.stdout, /leader kube-controller-manager · m02 \(m02_8f2e6c1a-4d3b-4a7e-b9c0-5e1f2a3d6b78\) · transitions 3/);
  assert.match(bad.stdout, /VERDICT: degraded/);
  // Heal the scheduler: healthy, exit 0 (JSON output).
  await setPodStatus(c, 'kube-scheduler-m02', 'kube-scheduler', true, 5);
  const now = Date.now();
  for (const n of [...CP, 'w01']) await putNodeLease(c, n, now);
  await putLeaderLease(c, 'kube-scheduler', 'm01_3a7d9e0b-2c4f-4b1a-8e6d-7c5b9a0f1e23', 0, now);
  await putLeaderLease(c, 'kube-controller-manager', 'm02_8f2e6c1a-4d3b-4a7e-b9c0-5e1f2a3d6b78', 3, now);
  const ok = run('--json');
  assert.equal(ok.status, 0, ok.stdout + ok.stderr);
  const json = JSON.parse(ok.stdout) as { degraded: boolean; model: { hosts: { host: string; node?: string }[] } };
  assert.equal(json.degraded, false);
  assert.equal(json.model.hosts.find((h) => h.host === 'm03')!.node, 'm03');
  // API unreachable: exit 1 with the reason.
  const down = spawnSync(process.execPath, [cli, 'status', '--inventory', inventoryFile, '--kubeconfig', join(c.root, 'refused.conf'), '--no-etcd'], { encoding: 'utf8', timeout: 30_000 });
  assert.equal(down.status, 1);
  assert.match(down.stderr, /connection refused/);
});

test("etcd over SSH only on the inventory's own cluster: a context pointed at another API server never dials the inventory's hosts", async () => {
  // This API server has no etcd pods, so the next source would be SSH to m01..m03 (10.3.60.51–53): someone else's machines here (the inventory's endpoint is another port).
  const dialed: string[] = [];
  const other = await adapter.connect({ kubeconfig: c.kubeconfig, inventory, remote: { exec: async (host) => { dialed.push(host); return { code: 1, stdout: '', stderr: 'recorded' }; } } });
  try {
    await assert.rejects(other.readEtcd(), /not read over SSH: this context's server https:\/\/127\.0\.0\.1:\d+ is not the inventory's controlPlaneEndpoint 127\.0\.0\.1:6443/);
    assert.deepEqual(dialed, []);
  } finally {
    other.dispose();
  }
});
