/**
 * `certs renew` below SSH: the plan's order and commands, and its gates bound to a cluster — the quorum
 * guard on etcd's JSON, /readyz, the served certificate against the renewed file (openssl-made), the
 * kubeconfig refresh. The lab runs the same plan on the lab cluster.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseCertificate, type CertFacts } from '../../../src/core/certs/x509';
import { prepareRenew } from '../../../src/engine/renew';
import { haproxyServerNames } from '../../../src/core/generate/haproxy';
import { EtcdHosts, inv } from '../backup/etcdHosts';
import { PkiFixture } from './pkiFixture';
import { tempDir } from '../../tempDir';

const pki = new PkiFixture({ address: '10.3.60.51', endpointHost: '10.3.60.100' });
const ok = (stdout: string) => ({ code: 0, signal: null, stdout, stderr: '' });

/** The hosts: etcd from EtcdHosts; the PKI script and `cat` of apiserver.crt/admin.conf from the fixture. */
function hosts(down: string[] = []) {
  return new EtcdHosts({
    leader: 'm01',
    ...(down.length ? { downMembers: down } : {}),
    extra: (_host, text) => {
      if (text.includes('kw-file')) {
        const marked = text.replace(/'\/(etc|var)\//g, `'${pki.root}/$1/`).replace(/ \/(etc|var)\//g, ` ${pki.root}/$1/`);
        return ok(execFileSync('sh', ['-c', marked], { encoding: 'utf8' }).split(pki.root).join(''));
      }
      if (text.includes('cat /etc/kubernetes/pki/apiserver.crt')) return ok(pki.read('/etc/kubernetes/pki/apiserver.crt'));
      if (text.includes('cat /etc/kubernetes/admin.conf')) return ok(pki.read('/etc/kubernetes/admin.conf'));
      return undefined;
    },
  });
}

test('renew plan: one node at a time, guard → renew → move-leader → etcd → apiserver → controllers, then the kubeconfig', async () => {
  const served = parseCertificate(pki.read('/etc/kubernetes/pki/apiserver.crt'));
  const prep = await prepareRenew({ inventory: inv, ssh: hosts(), become: () => undefined, served: async () => served, readyz: async () => true, kubeconfig: join(tempDir('kw-kc-'), 'config') });
  assert.deepEqual(prep.refusals, []);
  const steps = prep.plan.phases[0]!.steps;
  assert.equal(prep.plan.phases[0]!.order, 'serial');
  assert.deepEqual(
    steps.map((s) => s.id),
    [...['m01', 'm02', 'm03'].flatMap((h) => ['guard', 'renew', 'move-leader', 'etcd', 'apiserver', 'controllers'].map((k) => `renew-certs/${h}/${k}`)), 'renew-certs/m01/kubeconfig'],
  );
  const byId = Object.fromEntries(steps.map((s) => [s.id, s]));
  assert.equal((byId['renew-certs/m02/renew']!.run as { display: string }).display, 'kubeadm certs renew all');
  assert.match((byId['renew-certs/m02/etcd']!.run as { display: string }).display, /crictl ps -q --name '\^etcd\$' --state running.*crictl --timeout 60s stop --timeout 20 \$ids/);
  assert.match(byId['renew-certs/m02/etcd']!.verify!.display, /endpoint health/);
  assert.match((byId['renew-certs/m02/controllers']!.run as { display: string }).display, /kube-controller-manager.*kube-scheduler/);
});

test('quorum guard: refuses while another member is down or another API server is not ready', async () => {
  const served = parseCertificate(pki.read('/etc/kubernetes/pki/apiserver.crt'));
  const downM03 = await prepareRenew({ inventory: inv, ssh: hosts(['m03']), become: () => undefined, served: async () => served, readyz: async () => true });
  const guard = (p: typeof downM03, h: string) => p.plan.phases[0]!.steps.find((s) => s.id === `renew-certs/${h}/guard`)!.action!({ get: () => undefined });
  await assert.rejects(guard(downM03, 'm01'), /refused by the quorum guard: etcd would lose quorum/);
  await guard(downM03, 'm03'); // renewing the node whose member is already down costs nothing more
  const notReady = await prepareRenew({ inventory: inv, ssh: hosts(), become: () => undefined, served: async () => served, readyz: async (a) => a !== '10.3.60.52' });
  await assert.rejects(guard(notReady, 'm01'), /m02 is NotReady/);
  await guard(notReady, 'm02');
});

test('API server gate: the served certificate must be the renewed file, not the old one', async () => {
  const fx = pki;
  const before = parseCertificate(fx.read('/etc/kubernetes/pki/apiserver.crt'));
  let serving: CertFacts = before;
  const prep = await prepareRenew({ inventory: inv, ssh: hosts(), become: () => undefined, served: async () => serving, readyz: async () => true, apiWaitMs: 2000 });
  const back = () => prep.plan.phases[0]!.steps.find((s) => s.id === 'renew-certs/m01/apiserver')!.action!({ get: () => undefined });
  // renewed on disk, the old one still served
  fx.leaf('/etc/kubernetes/pki/apiserver', 'ca', '/CN=kube-apiserver', 365, 'serverAuth', ['IP:10.3.60.51', 'IP:10.3.60.100']);
  await assert.rejects(back(), /does not serve the renewed apiserver\.crt/);
  serving = parseCertificate(fx.read('/etc/kubernetes/pki/apiserver.crt'));
  await back();
  // /readyz never answers: a finite wait, then a clear failure
  const dead = await prepareRenew({ inventory: inv, ssh: hosts(), become: () => undefined, served: async () => serving, readyz: async () => false, apiWaitMs: 1500 });
  await assert.rejects(dead.plan.phases[0]!.steps.find((s) => s.id === 'renew-certs/m02/apiserver')!.action!({ get: () => undefined }), /did not answer \/readyz within 1\.5 s/);
});

test('kubeconfig refresh: the renewed admin.conf merged 0600 under the cluster name', async () => {
  const served = parseCertificate(pki.read('/etc/kubernetes/pki/apiserver.crt'));
  const kc = join(tempDir('kw-kc-'), 'config');
  const prep = await prepareRenew({ inventory: inv, ssh: hosts(), become: () => undefined, served: async () => served, readyz: async () => true, kubeconfig: kc });
  await prep.plan.phases[0]!.steps.at(-1)!.action!({ get: () => undefined });
  assert.equal(statSync(kc).mode & 0o777, 0o600);
  assert.match(readFileSync(kc, 'utf8'), /name: labs-k8s-admin@labs-k8s/);
});

test('with balancers: each node\'s HAProxy server in maintenance on every balancer before its etcd restarts, ready again after its API server is back', async () => {
  const served = parseCertificate(pki.read('/etc/kubernetes/pki/apiserver.crt'));
  const withLbs = { ...inv, hosts: [...inv.hosts, { name: 'lb1', address: '10.3.60.50', roles: ['loadbalancer' as const] }, { name: 'lb2', address: '10.3.60.56', roles: ['loadbalancer' as const] }] };
  const prep = await prepareRenew({ inventory: withLbs, ssh: hosts(), become: () => undefined, served: async () => served, readyz: async () => true });
  const steps = prep.plan.phases[0]!.steps;
  const lbs = (state: string, h: string) => ['lb1', 'lb2'].map((b) => `renew-certs/${h}/haproxy-${state}@${b}`);
  assert.deepEqual(
    steps.map((s) => s.id),
    ['m01', 'm02', 'm03'].flatMap((h) => [
      `renew-certs/${h}/guard`, `renew-certs/${h}/renew`, ...lbs('others-up', h), ...lbs('maint', h), `renew-certs/${h}/move-leader`, `renew-certs/${h}/etcd`, `renew-certs/${h}/apiserver`, ...lbs('ready', h), `renew-certs/${h}/controllers`,
    ]),
  );
  const byId = Object.fromEntries(steps.map((s) => [s.id, s]));
  const maint = byId['renew-certs/m02/haproxy-maint@lb2']!;
  assert.equal(maint.host, 'lb2', 'run on the balancer');
  // The server name the generated haproxy.cfg gives m02, through the admin socket; verified MAINT.
  const server = haproxyServerNames(withLbs).find((s) => s.host === 'm02')!.server;
  assert.match((maint.run as { display: string }).display, new RegExp(`set server kubernetes-master-nodes/${server} state maint`));
  assert.match(maint.verify!.display, /MAINT/);
  const ready = byId['renew-certs/m02/haproxy-ready@lb1']!;
  assert.match((ready.run as { display: string }).display, new RegExp(`set server kubernetes-master-nodes/${server} state ready`));
  assert.match(ready.verify!.display, /UP/);
  assert.match(ready.check!.display, /UP/, 'a re-run skips a server already UP');
});
