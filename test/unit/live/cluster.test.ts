import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LiveCluster } from '../../../src/core/live/cluster';
import { classifyError, describeError, httpError } from '../../../src/core/live/errors';
import { buildEtcd } from '../../../src/core/live/etcd';
import { FakeTransport, ManualClock, flush, lease } from './fakes';

test('watches run only while acquired (ref-counted per resource); etcd is polled only while needed', async () => {
  const clock = new ManualClock();
  const t = new FakeTransport();
  let etcdReads = 0;
  const cluster = new LiveCluster(t, async () => {
    etcdReads++;
    return buildEtcd({ members: [], statuses: [] }, 'fake', clock.now());
  }, { clock, etcdIntervalMs: 3000 });
  const a = cluster.acquire(['nodes', 'nodeLeases']);
  const b = cluster.acquire(['nodeLeases'], true);
  await flush();
  assert.deepEqual(t.lists.map((l) => l.path).sort(), ['/api/v1/nodes', '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases']);
  assert.equal(etcdReads, 1);
  await clock.advance(1); // the deferred first read
  await clock.advance(3000);
  assert.equal(etcdReads, 2);
  a();
  assert.equal(cluster.reflectors.nodes.state, 'stopped');
  assert.equal(cluster.reflectors.nodeLeases.state, 'watching', 'still held by b');
  b();
  assert.equal(cluster.reflectors.nodeLeases.state, 'stopped');
  await clock.advance(10_000);
  assert.equal(etcdReads, 2, 'no etcd read after release');
  assert.equal(t.watches.filter((w) => !w.aborted).length, 0);
});

test('changes are coalesced per object and delivered at most twice a second', async () => {
  const clock = new ManualClock();
  const t = new FakeTransport();
  const cluster = new LiveCluster(t, undefined, { clock });
  const deliveries: string[][] = [];
  cluster.onDidChange((keys) => deliveries.push([...keys].sort()));
  cluster.acquire(['nodeLeases']);
  await flush();
  await clock.advance(0);
  deliveries.length = 0;
  const w = t.current;
  for (let i = 0; i < 50; i++) {
    w.emit({ type: 'MODIFIED', object: lease(`n${i % 3}`, 'x', String(200 + i)) });
    await clock.advance(20);
  }
  await clock.advance(500);
  assert.ok(deliveries.length <= 3, `${deliveries.length} deliveries in ~1.5 s`);
  assert.deepEqual(deliveries[0], ['nodeLeases:kube-node-lease/n0', 'nodeLeases:kube-node-lease/n1', 'nodeLeases:kube-node-lease/n2']);
  assert.equal(cluster.model().leases.nodes.length, 3);
});

test('errors are classified with where they happened', () => {
  assert.equal(classifyError({ code: 'ENOTFOUND', message: 'getaddrinfo ENOTFOUND vip.lab' }, 'https://vip.lab:6443').kind, 'dns');
  assert.equal(classifyError({ code: 'ECONNREFUSED', message: 'connect ECONNREFUSED' }, 'x').kind, 'refused');
  assert.equal(classifyError({ code: 'ETIMEDOUT', message: 'connect ETIMEDOUT' }, 'x').kind, 'timeout');
  assert.equal(classifyError({ code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', message: 'unable to verify the first certificate' }, 'x').kind, 'tls');
  assert.equal(classifyError({ code: 'ERR_TLS_CERT_ALTNAME_INVALID', message: "Hostname/IP does not match certificate's altnames" }, 'x').kind, 'tls');
  assert.equal(classifyError({ code: 'EHOSTUNREACH', message: 'connect EHOSTUNREACH' }, 'x').kind, 'unreachable');
  assert.equal(httpError(401, 'https://10.3.60.100:6443/api/v1/nodes', '{"kind":"Status","message":"Unauthorized","code":401}').kind, 'auth');
  assert.equal(httpError(403, 'x', '{"message":"nodes is forbidden"}').kind, 'forbidden');
  assert.equal(describeError(classifyError({ code: 'ENOTFOUND', message: 'getaddrinfo ENOTFOUND vip.lab' }, 'https://vip.lab:6443/readyz')), 'DNS lookup failed (https://vip.lab:6443/readyz): ENOTFOUND: getaddrinfo ENOTFOUND vip.lab');
});
