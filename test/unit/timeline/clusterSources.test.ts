import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readClusterSources } from '../../../src/core/timeline/clusterSources';
import type { RemoteExec } from '../../../src/core/live/etcdSource';
import { parseWebviewMessage } from '../../../src/webviews/protocol/timeline';

// The SSH boundary only: each host answers what its machine would (the parsers are tested on real lines).
const AUDIT = readFileSync(join(__dirname, 'fixtures', 'audit-kube-apiserver.log'), 'utf8');
const SID = 'a3f1c0d2e4b5968778695a4b3c2d1e0f9a8b7c6d5e4f30211203948576afbecd';
const JOURNAL = `2026-11-30T15:33:51.900000+00:00 w01 kubelet[612]: I1130 15:33:51.899990     612 kubelet.go:2472] "SyncLoop ADD" source="api" pods=["default/web"]
2026-11-30T15:33:51.950000+00:00 w01 containerd[301]: time="2026-11-30T15:33:51.949000000Z" level=info msg="RunPodSandbox for &PodSandboxMetadata{Name:web,Uid:u1,Namespace:default,Attempt:0,}"
2026-11-30T15:33:52.150000+00:00 w01 containerd[301]: time="2026-11-30T15:33:52.149000000Z" level=info msg="RunPodSandbox for &PodSandboxMetadata{Name:web,Uid:u1,Namespace:default,Attempt:0,} returns sandbox id \\"${SID}\\""
--- kubeadm-workbench: cni leases ---
1796052832.100000000 /var/lib/cni/networks/cbr0/10.244.3.17 ${SID}
`;

function machines(answers: Record<string, { code: number; stdout?: string; stderr?: string } | Error>): RemoteExec & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    async exec(host, command) {
      asked.push(`${host}: ${command}`);
      const a = answers[host];
      if (!a) throw new Error(`no route to ${host}`);
      if (a instanceof Error) throw a;
      return { code: a.code, stdout: a.stdout ?? '', stderr: a.stderr ?? '' };
    },
  };
}

const pod = { namespace: 'default', name: 'web', uid: 'u1', node: 'w01' };
const hosts = { node: { host: 'w01', sudo: true }, controlPlanes: [{ host: 'm01', sudo: false }, { host: 'm02', sudo: false }] };

test('the control-plane node that holds the create is the one that served it; the node gives journal and CNI lease', async () => {
  const remote = machines({ m01: { code: 1 }, m02: { code: 0, stdout: AUDIT }, w01: { code: 0, stdout: JOURNAL } });
  const more = await readClusterSources(remote, hosts, pod, Date.parse('2026-11-30T15:33:51Z'));
  assert.deepEqual(more.evidence!.map((e) => `${e.source}:${e.step}`), ['audit:request-received', 'audit:stored', 'audit:bound', 'journal:kubelet-sync', 'journal:sandbox-start', 'journal:sandbox-ready', 'journal:cni-add']);
  assert.match(more.sources!.find((s) => s.source === 'API server audit log')!.text, /^m02 served the create/);
  assert.ok(more.sources!.every((s) => s.state === 'read'), JSON.stringify(more.sources));
  assert.match(remote.asked.find((a) => a.startsWith('w01'))!, /^w01: sudo -n journalctl -u kubelet -u containerd -o short-iso-precise --no-pager --since @1796052826 --until @1796053426 \| head -n 50000;/);
});

test('without an audit log or SSH the view says what is missing and how to get it', async () => {
  const noAudit = await readClusterSources(machines({ m01: { code: 3, stderr: 'no audit log' }, m02: { code: 3 }, w01: new Error('connect ECONNREFUSED 10.3.60.54:22') }), hosts, pod, 0);
  const note = (s: string) => noAudit.sources!.find((n) => n.source === s)!;
  assert.equal(note('API server audit log').state, 'missing');
  assert.match(note('API server audit log').text, /cluster\.apiServerAuditLog: true in inventory\.yaml/);
  assert.match(note('kubelet and containerd journal').text, /not read on w01: connect ECONNREFUSED/);
  const noSsh = await readClusterSources(undefined, undefined, pod, 0);
  assert.match(noSsh.sources!.find((n) => n.source === 'kubelet and containerd journal')!.text, /trusted workspace/);
  assert.equal(noSsh.evidence, undefined);
});

test('the webview may ask for the machines\' logs, and nothing else new', () => {
  assert.deepEqual(parseWebviewMessage({ type: 'readLogs' }), { type: 'readLogs' });
  assert.equal(parseWebviewMessage({ type: 'readLogs2' }), undefined);
});

test('the binding served by another API server (the scheduler\'s own node) is taken from that node\'s log', async () => {
  const lines = AUDIT.trim().split('\n');
  const create = lines.filter((l) => !l.includes('/binding')).join('\n');
  const binding = lines.filter((l) => l.includes('/binding')).join('\n');
  const remote = machines({ m01: { code: 0, stdout: binding }, m02: { code: 0, stdout: create }, w01: { code: 0, stdout: JOURNAL } });
  const more = await readClusterSources(remote, hosts, pod, Date.parse('2026-11-30T15:33:51Z'));
  assert.deepEqual(more.evidence!.filter((e) => e.source === 'audit').map((e) => e.step).sort(), ['bound', 'request-received', 'stored']);
  assert.match(more.sources!.find((s) => s.source === 'API server audit log')!.text, /^m02 served the create: its stages in µs; m01 served the binding/);
});
