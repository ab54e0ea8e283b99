/**
 * The bring-up's "etcd member joined and every member is healthy" gate against a real TLS etcd cluster with a
 * started learner — what a control-plane join interrupted after `member add --learner` leaves (seen on the lab: the
 * resumed run's gate for m02 failed for 180 s on m03's leftover learner, "rpc not supported for learner", before the
 * step that removes that learner could run). The gate's command runs in a local shell with a stand-in kubectl that
 * turns `kubectl exec etcd-… -- etcdctl …` into the real etcdctl with this cluster's client certificate.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { votingMemberHealthy } from '../../../src/core/phases/bringUp';
import type { HostSpec } from '../../../src/core/inventory/types';
import { etcdctl, etcdPodKubectl, findBinary, freePort, makePki, startEtcdCluster, startProc, waitFor, type EtcdMemberProc, type Pki, type Proc } from '../apiserver';
import { tempDir } from '../../tempDir';

let root: string;
let pki: Pki;
let members: EtcdMemberProc[];
let learner: Proc | undefined;
let bin: string;

const host = (name: string) => ({ name, address: '127.0.0.1', roles: ['control-plane'] }) as unknown as HostSpec;

/** Runs the gate's command as the SSH layer would on the first control-plane node; its exit code. */
function gate(name: string): { code: number; stderr: string } {
  const r = spawnSync('sh', ['-c', votingMemberHealthy(host('etcd1'), host(name)).text], {
    encoding: 'utf8', env: { ...process.env, PATH: `${bin}:${dirname(findBinary('etcdctl'))}:${process.env.PATH}` }, timeout: 30_000,
  });
  return { code: r.status ?? -1, stderr: r.stderr };
}

before(async () => {
  root = tempDir('kw-etcd-gate-');
  pki = makePki(join(root, 'pki'));
  members = await startEtcdCluster(root, pki, 3);
  bin = etcdPodKubectl(root, pki, members[0]!);
  // A fourth member added as a learner and started, as `kubeadm join --control-plane` does before it promotes it.
  const [client, peer] = [`https://127.0.0.1:${await freePort()}`, `https://127.0.0.1:${await freePort()}`];
  // etcd refuses a member change until every member has been connected for a while ("unhealthy cluster").
  await waitFor(() => etcdctl(pki, members[0]!.clientUrl, ['member', 'add', 'etcd4', '--learner', `--peer-urls=${peer}`]).code === 0, 30_000, 'member add --learner etcd4', 1000);
  const initial = [...members.map((m) => `${m.name}=${m.peerUrl}`), `etcd4=${peer}`].join(',');
  learner = startProc(findBinary('etcd'), [
    '--name', 'etcd4', '--data-dir', join(root, 'etcd4'), '--listen-client-urls', client, '--advertise-client-urls', client,
    '--listen-peer-urls', peer, '--initial-advertise-peer-urls', peer, '--initial-cluster', initial, '--initial-cluster-state', 'existing',
    '--cert-file', pki.file('etcd-server.crt'), '--key-file', pki.file('etcd-server.key'), '--client-cert-auth', '--trusted-ca-file', pki.ca,
    '--peer-cert-file', pki.file('etcd-server.crt'), '--peer-key-file', pki.file('etcd-server.key'), '--peer-client-cert-auth', '--peer-trusted-ca-file', pki.ca,
    '--heartbeat-interval', '100', '--election-timeout', '1000', '--log-level', 'warn',
  ], join(root, 'etcd4.log'));
  await waitFor(() => /, started, etcd4, .*, true$/m.test(etcdctl(pki, members[0]!.clientUrl, ['member', 'list']).stdout), 20_000, 'the learner etcd4 started');
});

after(async () => {
  await Promise.all([...(members ?? []), ...(learner ? [learner] : [])].map((m) => m.stop()));
  if (root && !process.env.KW_KEEP_TEST_DIR) rmSync(root, { recursive: true, force: true });
});

test('a started learner of another host: the whole-cluster health check fails on it, the gate for a voting member passes', () => {
  const cluster = etcdctl(pki, members[0]!.clientUrl, ['endpoint', 'health', '--cluster']);
  assert.notEqual(cluster.code, 0, 'etcdctl endpoint health --cluster counts the learner (what the gate used to ask)');
  assert.match(cluster.stderr + cluster.stdout, /learner/);
  const r = gate('etcd2');
  assert.equal(r.code, 0, r.stderr);
});

test('the gate for the learner itself fails: a member that was never promoted has not joined', () => {
  assert.notEqual(gate('etcd4').code, 0);
});

test('the gate fails when a voting member does not answer (quorum kept), and for a name etcd does not know', async () => {
  assert.notEqual(gate('m09').code, 0);
  await members[2]!.stop();
  // Two of three voters keep the quorum: the member list still answers, so it is the health check that fails.
  assert.equal(etcdctl(pki, members[0]!.clientUrl, ['member', 'list']).code, 0);
  const r = gate('etcd1');
  assert.notEqual(r.code, 0);
  assert.match(r.stderr, /unhealthy|deadline|connection refused/i);
});
