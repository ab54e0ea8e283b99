/**
 * `status --ssh` exits 1 when a certificate is under the warning threshold or the scheduled snapshots stopped,
 * 0 otherwise. The certificates are real (openssl, read by the inspection's own script in a local shell under a
 * temporary root); the schedule lines are what the node script prints (systemd is not here; the lab runs it).
 * The API side is a connection answering empty lists: the integration tier runs `status` against a real
 * kube-apiserver.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { runStatus, type StatusDeps } from '../../../src/cli/status';
import type { CliIo } from '../../../src/cli/io';
import type { RemoteCommand } from '../../../src/core/ssh/command';
import { RemoteCommandError, type ExecResult, type SshTransport } from '../../../src/core/ssh/transport';
import { readDay2 } from '../../../src/engine/day2Status';
import { PkiFixture } from '../certs/pkiFixture';
import { FakeTransport } from './fakes';


const INVENTORY = `cluster:
  name: day2
  kubernetesVersion: v1.34.12
  controlPlaneEndpoint: 192.0.2.100:6443
  podSubnet: 10.244.0.0/16
  serviceSubnet: 10.96.0.0/12
  cni: flannel
hosts:
  - { name: m1, address: 192.0.2.51, roles: [control-plane] }
`;

/** The API's side of a healthy one-node control plane: the Node Ready, the four mirror pods running and ready. */
function healthyApi(): FakeTransport {
  const api = new FakeTransport();
  const at = new Date(Date.now() - 3_600_000).toISOString();
  api.data.set('/api/v1/nodes', [{ metadata: { name: 'm1', labels: { 'node-role.kubernetes.io/control-plane': '' } }, status: { addresses: [{ type: 'InternalIP', address: '192.0.2.51' }], conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: at }] } } as never]);
  api.data.set(
    '/api/v1/namespaces/kube-system/pods',
    ['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler'].map(
      (component) =>
        ({
          metadata: { name: `${component}-m1`, namespace: 'kube-system', labels: { component, tier: 'control-plane' }, annotations: { 'kubernetes.io/config.mirror': 'h' } },
          spec: { nodeName: 'm1', containers: [{ name: component }] },
          status: { phase: 'Running', startTime: at, conditions: [{ type: 'Ready', status: 'True' }], containerStatuses: [{ name: component, ready: true, restartCount: 0, state: { running: { startedAt: at } } }] },
        }) as never,
    ),
  );
  return api;
}

/** No SSH connection at all: the manifests are not read here, the day-2 reads go through readDay2 below. */
const noSsh = () => ({
  transport: { exec: () => Promise.reject(new Error('no SSH in this test')), close: async () => undefined },
  loginUser: () => 'root',
  remote: { exec: () => Promise.reject(new Error('no SSH in this test')) },
  close: async () => undefined,
});
const ROOT_MARK = '/kw-root-of-host';

/** m1's PKI script runs in a local shell under the fixture's root; the schedule script answers `schedule`. */
function nodeShell(pki: PkiFixture, schedule: string): SshTransport {
  return {
    exec(host: string, command: RemoteCommand): Promise<ExecResult> {
      if (command.text.includes('kubeadm-workbench-etcd-snapshot.timer')) return Promise.resolve({ code: 0, signal: null, stdout: schedule, stderr: '' });
      const text = command.text.split(ROOT_MARK).join(pki.root);
      return new Promise((resolve, reject) =>
        execFile('/bin/sh', ['-c', text], (err, stdout, stderr) => {
          const result = { code: err ? 1 : 0, signal: null, stdout: stdout.split(pki.root).join(ROOT_MARK), stderr };
          if (err) reject(new RemoteCommandError(host, command, result));
          else resolve(result);
        }),
      );
    },
    close: async () => undefined,
  };
}

async function status(pki: PkiFixture, schedule: string, extra: string[] = []): Promise<{ code: number; out: string }> {
  const out: string[] = [];
  const io: CliIo = { stdout: (t) => out.push(t), stderr: (t) => out.push(t), readFile: async () => INVENTORY, writeFile: async () => undefined };
  const deps: StatusDeps = {
    connect: async () =>
      ({
        context: 'day2-admin',
        server: 'https://192.0.2.100:6443',
        transport: healthyApi(),
        healthFacts: async () => ({ reach: { ok: true, ms: 4 }, identity: { username: 'kubernetes-admin', groups: ['kubeadm:cluster-admins'] }, access: [] }),
        readEtcd: () => Promise.reject(new Error('not asked')),
        dispose: () => undefined,
      }) as never,
    openSsh: noSsh,
    readDay2: (inventory, thresholds) => readDay2({ inventory, ssh: nodeShell(pki, schedule), become: () => undefined, thresholds, pkiRoot: ROOT_MARK }, 43_200),
  };
  const code = await runStatus(['--inventory', 'inventory.yaml', '--no-etcd', '--ssh', ...extra], io, deps);
  return { code, out: out.join('') };
}

const now = () => Math.round(Date.now() / 1000);
const healthySchedule = () => `active active\ninstalled yes\ninterval 43200s\nsince ${now() - 90_000}\n${now() - 3600} 2502688 etcd-20261130T110000Z.db\n`;
const fine = new PkiFixture({ address: '192.0.2.51', endpointHost: '192.0.2.100' });
const short = new PkiFixture({ address: '192.0.2.51', endpointHost: '192.0.2.100', days: { 'apiserver-kubelet-client': 29 } });

test('status --ssh: every certificate a year away and a fresh snapshot: exit 0', async () => {
  const r = await status(fine, healthySchedule());
  assert.equal(r.code, 0, r.out);
  assert.match(r.out, /HEALTH: healthy/);
});

test('status --ssh: a certificate with 29 days left: exit 1, the certificate listed', async () => {
  const r = await status(short, healthySchedule());
  assert.equal(r.code, 1, r.out);
  assert.match(r.out, /certificate apiserver-kubelet-client on m1 expires in 2[89] day\(s\) \(under the warning threshold of 30 days\)/);
  // A lower threshold (the setting's twin on the command line) makes it fine again.
  assert.equal((await status(short, healthySchedule(), ['--warning-days', '20', '--error-days', '7'])).code, 0);
});

test('status --ssh: the newest scheduled snapshot three intervals old: exit 1, the node listed', async () => {
  const r = await status(fine, `active active\ninstalled yes\ninterval 43200s\nsince ${now() - 300_000}\n${now() - 3 * 43_200} 2502688 etcd-20261129T000000Z.db\n`);
  assert.equal(r.code, 1, r.out);
  assert.match(r.out, /m1: the newest etcd snapshot is 36 h old \(more than two intervals of 12 h\)/);
});

test('status without --ssh reads no certificates and no snapshots', async () => {
  const out: string[] = [];
  let asked = false;
  const code = await runStatus(['--inventory', 'i.yaml', '--no-etcd'], { stdout: (t) => out.push(t), stderr: (t) => out.push(t), readFile: async () => INVENTORY, writeFile: async () => undefined }, {
    connect: async () => ({ context: 'c', server: 'https://192.0.2.100:6443', transport: healthyApi(), healthFacts: async () => ({ reach: { ok: true, ms: 1 }, identity: { username: 'a', groups: [] }, access: [] }), dispose: () => undefined }) as never,
    readDay2: async () => {
      asked = true;
      throw new Error('not over SSH');
    },
  });
  assert.equal(code, 0, out.join(''));
  assert.equal(asked, false);
});
