/**
 * What the maintenance files (maintenance.test.ts through the CLI, ui-maintenance.test.ts from the palette) need of the
 * lab's cluster beside the product: etcdctl, kubectl and ssh from this machine, the members as `etcd status` reads
 * them, an authenticated API poller through the VIP, and the two states a user meets and the product repairs — a
 * member raising NOSPACE, and a kubelet.conf that embeds its client certificate (kubeadm#1317).
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { clusterTimings } from '../../src/core/drill/params';
import type { LabClusterEnv } from './clusterHealth';
import { pollHttp, type PollResult } from './httpPoller';
import { adminTls } from './upgradeTarget';
import { labEnv } from './labEditor';
import { tempDir } from '../tempDir';

const CLI = join(resolve(__dirname, '../..'), 'dist/cli.js');
const VIP = '10.3.60.100';
export const CONTROL_PLANE = ['labs-k8s-m01', 'labs-k8s-m02', 'labs-k8s-m03'];
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `lab env`, a fresh HOME for the CLI, and m01's etcd healthcheck client certificate copied for etcdctl (0600). */
type Env = Record<string, string | undefined>;
export type MaintenanceEnv = Env & LabClusterEnv & { HOME_DIR: string; ETCD_DIR: string };

export function maintenanceEnv(): MaintenanceEnv {
  const env = labEnv() as Env as MaintenanceEnv;
  env.HOME_DIR = tempDir('kw-maint-home-');
  env.ETCD_DIR = tempDir('kw-maint-etcd-');
  for (const [from, to] of [['ca.crt', 'ca.crt'], ['healthcheck-client.crt', 'client.crt'], ['healthcheck-client.key', 'client.key']]) {
    writeFileSync(join(env.ETCD_DIR, to), ssh(env, 'labs-k8s-m01', `cat /etc/kubernetes/pki/etcd/${from}`), { mode: 0o600 });
  }
  return env;
}

export function ssh(env: Env, host: string, cmd: string): string {
  return execFileSync('ssh', ['-F', env.LAB_SSH_CONFIG!, '-o', `UserKnownHostsFile=${env.LAB_KNOWN_HOSTS}`, host, cmd], { encoding: 'utf8', timeout: 120_000 });
}

export const kubectl = (env: Env, ...args: string[]): string =>
  execFileSync('kubectl', ['--kubeconfig', env.KUBECONFIG!, '--request-timeout=15s', ...args], { encoding: 'utf8', env: { ...process.env, PATH: env.PATH! } });

/** A host's address as the lab's inventory gives it. */
export const addressOf = (env: Env, host: string): string => new RegExp(`name: ${host}, address: ([0-9.]+)`).exec(readFileSync(env.LAB_INVENTORY!, 'utf8'))![1]!;

/** etcdctl from this machine against one member, with the copied client certificate. */
export function etcdctl(env: MaintenanceEnv, endpoint: string, ...args: string[]): { code: number; stdout: string; stderr: string } {
  const r = spawnSync('etcdctl', [`--endpoints=${endpoint}`, `--cacert=${env.ETCD_DIR}/ca.crt`, `--cert=${env.ETCD_DIR}/client.crt`, `--key=${env.ETCD_DIR}/client.key`, '--command-timeout=10s', ...args], {
    encoding: 'utf8', env: { ...process.env, PATH: env.PATH! }, timeout: 30_000,
  });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/** A CLI verb on the lab's inventory, waited for; its stderr echoed. */
export function cli(env: MaintenanceEnv, verb: string, args: string[], opts: { inventory?: string; timeoutMs?: number } = {}): { code: number; stdout: string; stderr: string; seconds: number } {
  const t0 = Date.now();
  const r = spawnSync(process.execPath, [CLI, ...verb.split(' '), '--inventory', opts.inventory ?? env.LAB_INVENTORY!, '--ssh-config', env.LAB_SSH_CONFIG!, '--known-hosts', env.LAB_KNOWN_HOSTS!, ...args], {
    env: { ...process.env, PATH: env.PATH!, HOME: env.HOME_DIR }, encoding: 'utf8', timeout: opts.timeoutMs ?? 10 * 60_000, killSignal: 'SIGKILL', maxBuffer: 64 * 1024 * 1024,
  });
  process.stderr.write(r.stderr);
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr, seconds: (Date.now() - t0) / 1000 };
}

/** The verb's JSON: the whole output (`--json` of a read), or its last line (after a run's narration). */
export function lastJson<T>(stdout: string): T {
  try {
    return JSON.parse(stdout) as T;
  } catch {
    return JSON.parse(stdout.trim().split('\n').filter((l) => l.startsWith('{')).at(-1) ?? stdout) as T;
  }
}

export interface StatusMember { name: string; host: string; leader: boolean; dbSize: number; dbSizeInUse: number; quota: number; freeBytes: number; alarms: string[]; healthy: boolean }
/** The members as `etcd status --json` reads them (the product's own read: the other front-end's witness). */
export const etcdStatus = (env: MaintenanceEnv): StatusMember[] => lastJson<{ members: StatusMember[] }>(cli(env, 'etcd status', ['--json']).stdout).members;
export const etcdAlarms = (env: MaintenanceEnv): { member: string; alarm: string }[] => lastJson<{ alarms: { member: string; alarm: string }[] }>(cli(env, 'etcd alarms', ['--json']).stdout).alarms;

/** The API through the VIP as an authenticated client sees it: any answer but 200 with the ConfigMap counts as failed. */
export const pollKubeadmConfig = (env: Env): { stop(): Promise<PollResult> } =>
  pollHttp([`https://${VIP}:6443/api/v1/namespaces/kube-system/configmaps/kubeadm-config`], { ...adminTls(env.KUBECONFIG!), expect: /"name":\s*"kubeadm-config"/ });

export function report(what: string, p: PollResult): string {
  return `API through the VIP during ${what}: ${p.failures.length} failed of ${p.polls} polls${p.failures.length ? `\n  ${p.failures.join('\n  ')}` : ''}`;
}

/** About `bytes` written and deleted, then compacted: free pages in every member's file once a later write frees them. */
export async function fragment(env: MaintenanceEnv, bytes: number, minFreeBytes: number): Promise<StatusMember[]> {
  const endpoint = `https://${addressOf(env, 'labs-k8s-m01')}:2379`;
  const value = 'x'.repeat(96 * 1024);
  for (let i = 0; i < Math.ceil(bytes / value.length); i++) assert.equal(etcdctl(env, endpoint, 'put', `/kubeadm-workbench-test/frag/${i}`, value).code, 0);
  assert.equal(etcdctl(env, endpoint, 'del', '--prefix', '/kubeadm-workbench-test/frag/').code, 0);
  const rev = /"revision":(\d+)/.exec(etcdctl(env, endpoint, 'endpoint', 'status', '-w', 'json').stdout)![1]!;
  assert.equal(etcdctl(env, endpoint, 'compaction', '--physical', rev).code, 0);
  let members: StatusMember[] = [];
  const t0 = Date.now();
  // The freed pages count once a later write transaction released them (the cluster writes every few seconds).
  while (!(members = etcdStatus(env)).every((m) => m.freeBytes > minFreeBytes)) {
    assert.ok(Date.now() - t0 < 60_000, `not every member shows the free pages: ${JSON.stringify(members.map((m) => [m.name, m.freeBytes]))}`);
    await sleep(2000);
  }
  return members;
}

/**
 * A follower brought to NOSPACE as a user meets it: restarted with a --quota-backend-bytes a little above its file (the
 * alarm a member raises is the whole cluster's), every Node's lease renewed after that restart, then one key's history
 * written until writes are refused. `boundMs`: the recovery must beat the node monitor's grace period less one lease
 * renewal (no Node goes NotReady). `restore()` puts etcd's default quota back.
 */
export async function bringToNospace(env: MaintenanceEnv): Promise<{ host: string; endpoint: string; alarmAt: number; boundMs: number; timings: ReturnType<typeof clusterTimings>; restore: () => Promise<void> }> {
  const small = etcdStatus(env).find((m) => !m.leader)!;
  const endpoint = `https://${addressOf(env, small.host)}:2379`;
  const quota = small.dbSize + 24 * 1024 * 1024;
  const cm = JSON.parse(kubectl(env, '-n', 'kube-system', 'get', 'pod', 'kube-controller-manager-labs-k8s-m01', '-o', 'json')) as { spec: { containers: { command: string[] }[] } };
  const timings = clusterTimings({ controllerManager: cm.spec.containers[0]!.command, kubeVersion: env.LAB_KUBE_VERSION ?? '1.34' });
  // A Node whose lease was renewed just before the alarm goes NotReady a grace period after that renewal.
  const boundMs = timings.nodeMonitorGraceMs - timings.nodeLeaseRenewMs;
  const setQuota = async (flag: string | undefined) => {
    ssh(env, small.host, `sed -i '/^    - --quota-backend-bytes=/d' /etc/kubernetes/manifests/etcd.yaml${flag ? ` && sed -i 's#^    - etcd$#    - etcd\\n    - ${flag}#' /etc/kubernetes/manifests/etcd.yaml` : ''}`);
    const t = Date.now();
    for (;;) {
      await sleep(3000);
      const m = etcdStatus(env).find((x) => x.host === small.host);
      if (m?.healthy && (flag ? m.quota === quota : m.quota === 2 * 1024 * 1024 * 1024)) return;
      assert.ok(Date.now() - t < 180_000, `${small.host}'s etcd did not come back with quota ${flag ?? 'default'}`);
    }
  };
  const restore = async () => {
    etcdctl(env, endpoint, 'del', '--prefix', '/kubeadm-workbench-test/');
    await setQuota(undefined);
  };
  await setQuota(`--quota-backend-bytes=${quota}`);
  // Its etcd's restart took that node's API server away for a while, and a control-plane node's kubelet renews its
  // Lease through its own API server (kubeadm's local mode): every Node's lease renewed after the member came back,
  // so the bound counts from a renewal at most one lease interval before the alarm. (A lease merely renewed within
  // the last interval could predate the restart: on the lab m01's kubelet then failed for 70 s and the node went
  // NotReady while the history was written, before any alarm.)
  // And every Node Ready: a kubelet whose connection through the VIP is pinned to that node's API server fails its
  // renewals while that etcd restarts, and the restart alone can take a Node NotReady (w01, on the lab) — a state the
  // recovery is not measured from.
  const backAt = Date.now();
  for (const t = Date.now(); ; await sleep(1000)) {
    let oldest = 0;
    let allReady = false;
    try {
      // Through the VIP, which may still send a request to that node's API server while its etcd comes back.
      const leases = JSON.parse(kubectl(env, '-n', 'kube-node-lease', 'get', 'leases', '-o', 'json')) as { items: { spec: { renewTime?: string } }[] };
      oldest = Math.min(...leases.items.map((l) => Date.parse(l.spec.renewTime ?? '')));
      const nodes = JSON.parse(kubectl(env, 'get', 'nodes', '-o', 'json')) as { items: { status: { conditions: { type: string; status: string }[] } }[] };
      allReady = nodes.items.every((n) => n.status.conditions.some((c) => c.type === 'Ready' && c.status === 'True'));
    } catch {
      // asked again
    }
    if (oldest > backAt && allReady) break;
    assert.ok(Date.now() - t < 240_000, 'every Node Ready and its lease renewed again after the etcd restart');
  }
  const value = 'y'.repeat(96 * 1024);
  let alarmAt = 0;
  for (let i = 0; i < 600 && !alarmAt; i++) {
    const r = etcdctl(env, endpoint, 'put', '/kubeadm-workbench-test/history', value);
    if (r.code !== 0 && /database space exceeded/.test(r.stderr)) alarmAt = Date.now();
  }
  if (!alarmAt) await restore();
  assert.ok(alarmAt, 'writes refused once the follower passed its quota');
  return { host: small.host, endpoint, alarmAt, boundMs, timings, restore };
}

/** Every Node Ready, none of them since `sinceMs` (no Node went NotReady meanwhile). */
export function noNodeWentNotReady(env: Env, sinceMs: number): void {
  const nodes = JSON.parse(kubectl(env, 'get', 'nodes', '-o', 'json')) as { items: { metadata: { name: string }; status: { conditions: { type: string; status: string; lastTransitionTime: string }[] } }[] };
  for (const n of nodes.items) {
    const ready = n.status.conditions.find((c) => c.type === 'Ready')!;
    assert.equal(ready.status, 'True', `${n.metadata.name} Ready`);
    assert.ok(Date.parse(ready.lastTransitionTime) < sinceMs, `${n.metadata.name} did not go NotReady meanwhile`);
  }
}

/** kubeadm#1317's state, built on `node`: the rotated file's certificate and key copied into kubelet.conf; Ready again. */
export async function embedKubeletClientCertificate(env: Env, node: string): Promise<void> {
  ssh(env, node, [
    'set -e; p=/var/lib/kubelet/pki/kubelet-client-current.pem; f=/etc/kubernetes/kubelet.conf',
    "c=$(sed -n '/BEGIN CERTIFICATE/,/END CERTIFICATE/p' $p | base64 -w0); k=$(sed -n '/BEGIN .*PRIVATE KEY/,/END .*PRIVATE KEY/p' $p | base64 -w0)",
    'sed -i -e "s#^\\( *\\)client-certificate: .*#\\1client-certificate-data: $c#" -e "s#^\\( *\\)client-key: .*#\\1client-key-data: $k#" $f',
    'grep -q client-certificate-data $f && systemctl restart kubelet',
  ].join('\n'));
  const t0 = Date.now();
  while (!/True/.test(kubectl(env, 'get', `node/${node}`, '-o', 'jsonpath={.status.conditions[?(@.type=="Ready")].status}'))) {
    assert.ok(Date.now() - t0 < 120_000, `${node} Ready with the embedded kubelet.conf`);
    await sleep(2000);
  }
}
