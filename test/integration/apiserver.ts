/**
 * Integration harness: a real etcd + a real kube-apiserver on 127.0.0.1 with generated certificates
 * (kubeadm's layout: one CA, etcd server + healthcheck-client + apiserver-etcd-client certs, an admin
 * client certificate in system:masters, a service-account key pair) and a kubeconfig for the admin.
 *
 * Binaries (first found wins; a missing one fails the tests with its name, never a silent skip):
 *   kube-apiserver, kubectl: $KW_KUBE_BIN, then the lab's build /var/cache/kubeadm-workbench/lab/bin/kube-v*
 *   etcd, etcdctl:           $KW_ETCD_BIN, then the lab's etcd-v* build, then /usr/bin (Debian etcd-server/etcd-client)
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync, openSync, closeSync } from 'node:fs';
import { createServer } from 'node:net';
import { request } from 'node:https';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const LAB_CACHE = process.env.KW_LAB_CACHE ?? '/var/cache/kubeadm-workbench/lab';

function labBinDirs(prefix: string): string[] {
  const dir = join(LAB_CACHE, 'bin');
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((d) => d.startsWith(prefix) && existsSync(join(dir, d, '.done')))
    .sort()
    .reverse()
    .map((d) => join(dir, d));
}

/** The path of a binary, or an Error naming it and where it was looked for. */
export function findBinary(name: string): string {
  const dirs =
    name === 'etcd' || name === 'etcdctl'
      ? [process.env.KW_ETCD_BIN, ...labBinDirs('etcd-'), '/usr/bin', '/usr/local/bin']
      : [process.env.KW_KUBE_BIN, ...labBinDirs('kube-'), '/usr/local/bin', '/usr/bin'];
  const candidates = dirs.filter((d): d is string => !!d).map((d) => join(d, name));
  const found = candidates.find((p) => existsSync(p));
  if (!found) {
    throw new Error(
      `missing binary "${name}" for the integration tests; looked at: ${candidates.join(', ')}. ` +
        (name.startsWith('etcd') ? 'Install it (apt-get install -y etcd-server etcd-client) or build the lab (npm run lab -- build etcd).' : 'Build the lab (npm run lab -- build kube) or set KW_KUBE_BIN.'),
    );
  }
  return found;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

function sh(cmd: string, args: string[], cwd: string): void {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed: ${r.stderr}`);
}

export interface Pki {
  dir: string;
  ca: string;
  file(name: string): string;
}

/** A CA and leaf certificates with openssl (EC P-256 keys: fast). */
export function makePki(dir: string, extraIps: string[] = []): Pki {
  mkdirSync(dir, { recursive: true });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  sh('openssl', ['req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '2', '-subj', '/CN=kw-test-ca'], dir);
  const leaf = (name: string, subj: string, ext: string) => {
    writeFileSync(join(dir, `${name}.ext`), ext);
    sh('openssl', ['req', ...ec, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', subj], dir);
    sh('openssl', ['x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', `${name}.crt`, '-days', '2', '-extfile', `${name}.ext`], dir);
  };
  const san = `subjectAltName=IP:127.0.0.1,${extraIps.map((ip) => `IP:${ip},`).join('')}DNS:localhost\n`;
  leaf('etcd-server', '/CN=etcd', `${san}extendedKeyUsage=serverAuth,clientAuth\n`);
  leaf('healthcheck-client', '/O=system:masters/CN=kube-etcd-healthcheck-client', 'extendedKeyUsage=clientAuth\n');
  leaf('apiserver-etcd-client', '/O=system:masters/CN=kube-apiserver-etcd-client', 'extendedKeyUsage=clientAuth\n');
  leaf('apiserver', '/CN=kube-apiserver', `${san}extendedKeyUsage=serverAuth\n`);
  leaf('admin', '/O=system:masters/CN=kw-admin', 'extendedKeyUsage=clientAuth\n');
  sh('openssl', ['genrsa', '-out', 'sa.key', '2048'], dir);
  sh('openssl', ['rsa', '-in', 'sa.key', '-pubout', '-out', 'sa.pub'], dir);
  return { dir, ca: join(dir, 'ca.crt'), file: (n) => join(dir, n) };
}

export interface Proc {
  child: ChildProcess;
  log: string;
  stop(): Promise<void>;
}

/** Every daemon the harness started, killed when this process exits however it exits (no orphans). */
const running = new Set<ChildProcess>();
const runDirs = new Set<string>();
let exitHooks = false;
function installExitHooks(): void {
  if (exitHooks) return;
  exitHooks = true;
  process.on('exit', () => {
    running.forEach((c) => c.kill('SIGKILL'));
    if (!process.env.KW_KEEP_TEST_DIR) runDirs.forEach((d) => rmSync(d, { recursive: true, force: true }));
  });
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(sig, () => process.exit(130));
}

export function startProc(bin: string, args: string[], log: string, env: NodeJS.ProcessEnv = process.env): Proc {
  installExitHooks();
  const fd = openSync(log, 'a');
  const child = spawn(bin, args, { stdio: ['ignore', fd, fd], env });
  closeSync(fd);
  running.add(child);
  child.once('exit', () => running.delete(child));
  return {
    child,
    log,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode) return resolve();
        const t = setTimeout(() => child.kill('SIGKILL'), 5000);
        child.once('exit', () => {
          clearTimeout(t);
          resolve();
        });
        child.kill('SIGTERM');
      }),
  };
}

export interface EtcdMemberProc extends Proc {
  name: string;
  clientUrl: string;
  peerUrl: string;
  dataDir: string;
}

/** A TLS etcd cluster of `n` members on 127.0.0.1 (client certs required, like kubeadm's). */
export async function startEtcdCluster(root: string, pki: Pki, n: number): Promise<EtcdMemberProc[]> {
  const etcd = findBinary('etcd');
  const ports = await Promise.all(Array.from({ length: n * 2 }, freePort));
  const members = Array.from({ length: n }, (_, i) => ({ name: `etcd${i + 1}`, client: `https://127.0.0.1:${ports[2 * i]}`, peer: `https://127.0.0.1:${ports[2 * i + 1]}` }));
  const initial = members.map((m) => `${m.name}=${m.peer}`).join(',');
  const tls = (kind: 'client' | 'peer') => kind === 'client'
    ? ['--cert-file', pki.file('etcd-server.crt'), '--key-file', pki.file('etcd-server.key'), '--client-cert-auth', '--trusted-ca-file', pki.ca]
    : ['--peer-cert-file', pki.file('etcd-server.crt'), '--peer-key-file', pki.file('etcd-server.key'), '--peer-client-cert-auth', '--peer-trusted-ca-file', pki.ca];
  const procs = members.map((m) => {
    const dataDir = join(root, m.name);
    const args = [
      '--name', m.name, '--data-dir', dataDir,
      '--listen-client-urls', m.client, '--advertise-client-urls', m.client,
      '--listen-peer-urls', m.peer, '--initial-advertise-peer-urls', m.peer,
      '--initial-cluster', initial, '--initial-cluster-state', 'new', '--initial-cluster-token', 'kw-test',
      ...tls('client'), ...tls('peer'),
      '--heartbeat-interval', '100', '--election-timeout', '1000', '--snapshot-count', '10000', '--log-level', 'warn',
    ];
    const p = startProc(etcd, args, join(root, `${m.name}.log`), { ...process.env, ETCD_UNSUPPORTED_ARCH: process.arch === 'x64' ? '' : process.arch });
    return { ...p, name: m.name, clientUrl: m.client, peerUrl: m.peer, dataDir };
  });
  await waitFor(async () => etcdctl(pki, procs[0]!.clientUrl, ['endpoint', 'health']).code === 0, 20_000, `etcd (${procs[0]!.log})`);
  return procs;
}

/**
 * A folder with a stand-in `kubectl` for commands that run etcdctl in a control-plane node's etcd pod
 * (`kubectl … exec etcd-… -- etcdctl …`): everything up to `--` is kubectl's; the rest runs as the real etcdctl with
 * this cluster's client certificate (the last --cacert/--cert/--key win over the node paths the command names) and
 * `first` for the pod's own 127.0.0.1:2379. Put it first on PATH, with etcdctl's folder.
 */
export function etcdPodKubectl(root: string, pki: Pki, first: EtcdMemberProc): string {
  const bin = join(root, 'bin');
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, 'kubectl'), [
    '#!/bin/sh',
    'while [ "$1" != "--" ]; do shift; done; shift; shift',
    'reset=1; for a in "$@"; do',
    '  [ $reset = 1 ] && { set --; reset=0; }',
    `  [ "$a" = "--endpoints=https://127.0.0.1:2379" ] && a="--endpoints=${first.clientUrl}"`,
    '  set -- "$@" "$a"',
    'done',
    `exec etcdctl "$@" --cacert=${pki.ca} --cert=${pki.file('healthcheck-client.crt')} --key=${pki.file('healthcheck-client.key')}`,
  ].join('\n') + '\n', { mode: 0o755 });
  return bin;
}

/** Restarts a stopped member with its data dir (same args as before). */
export function restartEtcdMember(m: EtcdMemberProc): EtcdMemberProc {
  const args = (m.child.spawnargs ?? []).slice(1).map((a) => (a === 'new' ? 'existing' : a));
  const p = startProc(m.child.spawnfile, args, m.log);
  return { ...m, ...p };
}

export function etcdctl(pki: Pki, endpoint: string, args: string[]): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(findBinary('etcdctl'), [`--endpoints=${endpoint}`, `--cacert=${pki.ca}`, `--cert=${pki.file('healthcheck-client.crt')}`, `--key=${pki.file('healthcheck-client.key')}`, ...args], {
    encoding: 'utf8',
    env: { ...process.env, ETCDCTL_API: '3' },
    timeout: 10_000,
  });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

export async function waitFor(cond: () => Promise<boolean> | boolean, timeoutMs: number, what: string, everyMs = 200): Promise<void> {
  const end = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < end) {
    try {
      if (await cond()) return;
    } catch (e) {
      last = e;
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`);
}

export interface TestCluster {
  root: string;
  pki: Pki;
  server: string;
  kubeconfig: string;
  etcd: EtcdMemberProc[];
  apiserver: Proc;
  kubectl(args: string[]): string;
  /** JSON request as the admin user. */
  api<T = unknown>(method: string, path: string, body?: unknown, contentType?: string): Promise<{ status: number; body: T }>;
  stop(): Promise<void>;
}

export interface ClusterOptions {
  etcdMembers?: number;
  extraApiserverArgs?: string[];
  /** Parent of the run directory (etcd data, PKI, logs); default the OS temp dir. The bench uses /dev/shm. */
  tmpRoot?: string;
  /**
   * The address kube-apiserver listens on and its certificate names (default 127.0.0.1). A test that needs a
   * non-loopback server (VS Code's proxy support treats those differently) gives an address it created.
   */
  address?: string;
}

/** etcd (1 or more members) + kube-apiserver; ready when /readyz answers. */
export async function startTestCluster(opts: ClusterOptions = {}): Promise<TestCluster> {
  const apiserverBin = findBinary('kube-apiserver');
  const kubectlBin = findBinary('kubectl');
  findBinary('etcd');
  findBinary('etcdctl');
  const root = mkdtempSync(join(opts.tmpRoot ?? tmpdir(), 'kw-apiserver-'));
  runDirs.add(root);
  const address = opts.address ?? '127.0.0.1';
  const pki = makePki(join(root, 'pki'), address === '127.0.0.1' ? [] : [address]);
  const etcd = await startEtcdCluster(root, pki, opts.etcdMembers ?? 1);
  const port = await freePort();
  const server = `https://${address}:${port}`;
  const apiserver = startProc(apiserverBin, [
    `--etcd-servers=${etcd.map((e) => e.clientUrl).join(',')}`,
    `--etcd-cafile=${pki.ca}`, `--etcd-certfile=${pki.file('apiserver-etcd-client.crt')}`, `--etcd-keyfile=${pki.file('apiserver-etcd-client.key')}`,
    `--bind-address=${address}`, `--advertise-address=${address}`, `--secure-port=${port}`,
    `--tls-cert-file=${pki.file('apiserver.crt')}`, `--tls-private-key-file=${pki.file('apiserver.key')}`,
    `--client-ca-file=${pki.ca}`, '--authorization-mode=RBAC',
    '--service-account-issuer=https://kubernetes.default.svc', `--service-account-key-file=${pki.file('sa.pub')}`, `--service-account-signing-key-file=${pki.file('sa.key')}`,
    '--service-cluster-ip-range=10.96.0.0/12', '--disable-admission-plugins=ServiceAccount',
    '--enable-priority-and-fairness=false', '--profiling=false', '--v=1',
    ...(opts.extraApiserverArgs ?? []),
  ], join(root, 'apiserver.log'));
  const kubeconfig = join(root, 'admin.conf');
  writeFileSync(kubeconfig, [
    'apiVersion: v1', 'kind: Config',
    'clusters:', `- name: kw-test`, `  cluster:`, `    server: ${server}`, `    certificate-authority: ${pki.ca}`,
    'users:', '- name: kw-admin', '  user:', `    client-certificate: ${pki.file('admin.crt')}`, `    client-key: ${pki.file('admin.key')}`,
    'contexts:', '- name: kw-admin@kw-test', '  context:', '    cluster: kw-test', '    user: kw-admin',
    'current-context: kw-admin@kw-test', '',
  ].join('\n'));
  const ca = readFileSync(pki.ca);
  const cert = readFileSync(pki.file('admin.crt'));
  const key = readFileSync(pki.file('admin.key'));
  const api = <T>(method: string, path: string, body?: unknown, contentType = 'application/json') =>
    new Promise<{ status: number; body: T }>((resolve, reject) => {
      const data = body === undefined ? undefined : JSON.stringify(body);
      const req = request(`${server}${path}`, { method, ca, cert, key, headers: { Accept: 'application/json', ...(data ? { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(data) } : {}) } }, (res) => {
        let b = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (b += d));
        res.on('end', () => {
          let parsed: unknown = b;
          try {
            parsed = JSON.parse(b);
          } catch {
            // plain text answer (e.g. /readyz)
          }
          resolve({ status: res.statusCode ?? 0, body: parsed as T });
        });
      });
      req.on('error', reject);
      req.end(data);
    });
  const cluster: TestCluster = {
    root, pki, server, kubeconfig, etcd, apiserver,
    kubectl: (args) => {
      const r = spawnSync(kubectlBin, ['--kubeconfig', kubeconfig, ...args], { encoding: 'utf8', timeout: 30_000 });
      if (r.status !== 0) throw new Error(`kubectl ${args.join(' ')}: ${r.stderr}`);
      return r.stdout;
    },
    api,
    async stop() {
      await apiserver.stop();
      await Promise.all(cluster.etcd.map((e) => e.stop()));
      if (!process.env.KW_KEEP_TEST_DIR) rmSync(root, { recursive: true, force: true });
    },
  };
  try {
    await waitFor(async () => (await api('GET', '/readyz')).status === 200, 60_000, `kube-apiserver /readyz (log: ${apiserver.log})`, 500);
    // The bootstrap controller creates kube-system and kube-node-lease shortly after readiness.
    await waitFor(async () => (await api('GET', '/api/v1/namespaces/kube-node-lease')).status === 200, 30_000, 'namespace kube-node-lease');
  } catch (e) {
    await cluster.stop().catch(() => undefined);
    throw e;
  }
  return cluster;
}

// ---- fixtures: what kubelets, kubeadm and the control plane would have created ---------------------

export const microTime = (ms: number) => new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');

export async function createNode(c: TestCluster, name: string, opts: { controlPlane?: boolean; ready?: boolean; address?: string } = {}): Promise<void> {
  const r = await c.api('POST', '/api/v1/nodes', {
    apiVersion: 'v1', kind: 'Node',
    metadata: { name, labels: { 'kubernetes.io/hostname': name, ...(opts.controlPlane ? { 'node-role.kubernetes.io/control-plane': '' } : {}) } },
    spec: opts.controlPlane ? { taints: [{ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }] } : {},
  });
  if (r.status !== 201) throw new Error(`create node ${name}: ${r.status} ${JSON.stringify(r.body)}`);
  await setNodeReady(c, name, opts.ready ?? true, opts.address);
}

export async function setNodeReady(c: TestCluster, name: string, ready: boolean, address?: string): Promise<void> {
  const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  const status: Record<string, unknown> = {
    conditions: [{ type: 'Ready', status: ready ? 'True' : 'Unknown', reason: ready ? 'KubeletReady' : 'NodeStatusUnknown', message: ready ? 'kubelet is posting ready status' : 'Kubelet stopped posting node status.', lastHeartbeatTime: now, lastTransitionTime: now }],
    nodeInfo: { kubeletVersion: 'v1.34.12', kubeProxyVersion: '', machineID: '', systemUUID: '', bootID: '', kernelVersion: '', osImage: 'Debian GNU/Linux 12 (bookworm)', containerRuntimeVersion: 'containerd://1.7', operatingSystem: 'linux', architecture: 'amd64' },
  };
  if (address) status.addresses = [{ type: 'InternalIP', address }, { type: 'Hostname', address: name }];
  const r = await c.api('PATCH', `/api/v1/nodes/${name}/status`, { status }, 'application/merge-patch+json');
  if (r.status !== 200) throw new Error(`node ${name} status: ${r.status} ${JSON.stringify(r.body)}`);
}

export async function putNodeLease(c: TestCluster, name: string, renewMs: number, durationSeconds = 40): Promise<void> {
  const path = `/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases`;
  const spec = { holderIdentity: name, leaseDurationSeconds: durationSeconds, renewTime: microTime(renewMs) };
  const existing = await c.api<{ metadata: { resourceVersion: string } }>('GET', `${path}/${name}`);
  const r = existing.status === 200
    ? await c.api('PATCH', `${path}/${name}`, { spec }, 'application/merge-patch+json')
    : await c.api('POST', path, { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name, namespace: 'kube-node-lease' }, spec });
  if (r.status !== 200 && r.status !== 201) throw new Error(`lease ${name}: ${r.status} ${JSON.stringify(r.body)}`);
}

export async function putLeaderLease(c: TestCluster, name: string, holder: string, transitions: number, renewMs: number): Promise<void> {
  const path = `/apis/coordination.k8s.io/v1/namespaces/kube-system/leases`;
  const spec = { holderIdentity: holder, leaseDurationSeconds: 15, acquireTime: microTime(renewMs - 60_000), renewTime: microTime(renewMs), leaseTransitions: transitions };
  const existing = await c.api('GET', `${path}/${name}`);
  const r = existing.status === 200
    ? await c.api('PATCH', `${path}/${name}`, { spec }, 'application/merge-patch+json')
    : await c.api('POST', path, { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name, namespace: 'kube-system' }, spec });
  if (r.status !== 200 && r.status !== 201) throw new Error(`lease ${name}: ${r.status} ${JSON.stringify(r.body)}`);
}

/** A mirror pod like kubelet publishes for a static pod, with its status. */
export async function createMirrorPod(c: TestCluster, component: string, node: string, opts: { ready?: boolean; restarts?: number; hash?: string } = {}): Promise<void> {
  const hash = opts.hash ?? '4b8e1c0a6f2d9e7b3c5a1f0e8d6b2a9c';
  const name = `${component}-${node}`;
  const r = await c.api('POST', '/api/v1/namespaces/kube-system/pods', {
    apiVersion: 'v1', kind: 'Pod',
    metadata: {
      name, namespace: 'kube-system', labels: { component, tier: 'control-plane' },
      annotations: { 'kubernetes.io/config.hash': hash, 'kubernetes.io/config.mirror': hash, 'kubernetes.io/config.seen': new Date().toISOString(), 'kubernetes.io/config.source': 'file' },
    },
    spec: { nodeName: node, hostNetwork: true, priorityClassName: 'system-node-critical', containers: [{ name: component, image: `registry.k8s.io/${component}:v1.34.12`, command: [component] }] },
  });
  if (r.status !== 201) throw new Error(`pod ${name}: ${r.status} ${JSON.stringify(r.body)}`);
  await setPodStatus(c, name, component, opts.ready ?? true, opts.restarts ?? 0);
}

export async function setPodStatus(c: TestCluster, name: string, container: string, ready: boolean, restarts: number): Promise<void> {
  const now = new Date(Date.now() - 3_600_000).toISOString().replace(/\.\d+Z$/, 'Z');
  const status = {
    phase: 'Running', startTime: now,
    conditions: [{ type: 'Ready', status: ready ? 'True' : 'False', lastTransitionTime: now }, { type: 'ContainersReady', status: ready ? 'True' : 'False', lastTransitionTime: now }],
    containerStatuses: [{ name: container, ready, restartCount: restarts, image: `registry.k8s.io/${container}:v1.34.12`, imageID: '', started: ready, state: ready ? { running: { startedAt: now } } : { waiting: { reason: 'CrashLoopBackOff', message: 'back-off' } } }],
  };
  const r = await c.api('PATCH', `/api/v1/namespaces/kube-system/pods/${name}/status`, { status }, 'application/merge-patch+json');
  if (r.status !== 200) throw new Error(`pod ${name} status: ${r.status} ${JSON.stringify(r.body)}`);
}
