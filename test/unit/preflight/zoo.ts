/**
 * Test harness: an inventory whose hosts fail (or pass) the preflight each in one real way, on loopback — an sshd
 * that lets us in as root, a port where nothing listens, an sshd whose host key no known_hosts holds, one that does
 * not take our key, one where we log in as a user whose sudo asks for a password, one we would log in to with an
 * identity file that does not exist, and a host that does not answer at all (a listener whose backlog is full, so its
 * SYNs are dropped like a powered-off host's). The inventory keeps the lab's names and addresses; an SSH config maps
 * each name to its loopback port (nothing is sent to the addresses themselves). Shared by the unit, CLI and UI tests.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { keygen, type TestKey } from '../ssh/keys';
import { freePort, startSshd, type Sshd } from '../ssh/sshd';
import { createTestUser, type TestUser } from '../ssh/sudoUser';

export type HostKind = 'ok' | 'refused' | 'unknown-key' | 'not-accepted' | 'sudo-password' | 'no-identity' | 'dead';

export interface ZooHost {
  name: string;
  kind: HostKind;
  address: string;
  port: number;
  roles: string[];
  sshd?: Sshd;
}

export interface Zoo {
  dir: string;
  key: TestKey;
  /** The identity file the `no-identity` host names: it does not exist until a test makes it (`fixIdentity`). */
  missingKey: string;
  inventory: string;
  inventoryText: string;
  knownHosts: string;
  sshConfig: string;
  hosts: ZooHost[];
  user?: TestUser;
  /** Copies the test key to the missing identity file: the `no-identity` host passes afterwards. */
  fixIdentity(): void;
  stop(): Promise<void>;
}

/** A listener that never accepts, its queue filled: a new connection's SYN is dropped, as by a host that is off. */
export async function deadListener(): Promise<{ port: number; stop: () => void }> {
  const py = spawn('python3', ['-c', 'import socket,sys\ns=socket.socket()\ns.bind(("127.0.0.1",0))\ns.listen(0)\nprint(s.getsockname()[1],flush=True)\nsys.stdin.read()'], { stdio: ['pipe', 'pipe', 'inherit'] }) as ChildProcess;
  const port = await new Promise<number>((resolve, reject) => {
    py.once('error', reject);
    py.stdout!.once('data', (d: Buffer) => resolve(Number(String(d).trim())));
  });
  const fill: Socket[] = [];
  for (let i = 0; i < 4; i++) {
    const s = connect(port, '127.0.0.1');
    s.on('error', () => undefined);
    fill.push(s);
  }
  await new Promise((r) => setTimeout(r, 200));
  return { port, stop: () => { for (const s of fill) s.destroy(); py.kill(); } };
}

const ROLES: Record<string, string[]> = { balancer: ['loadbalancer'], m01: ['control-plane'], m02: ['control-plane'], m03: ['control-plane'], w01: ['worker'], w02: ['worker'], w03: ['worker'] };

/** `kinds`: short name (balancer, m01…w03) → how that host fails. Starts everything in parallel. */
export async function startZoo(dir: string, kinds: Record<string, HostKind>): Promise<Zoo> {
  mkdirSync(dir, { recursive: true });
  const key = keygen(dir, 'id_test');
  const stranger = keygen(dir, 'id_stranger');
  const missingKey = join(dir, 'home', '.ssh', 'id_ed25519');
  mkdirSync(join(dir, 'home', '.ssh'), { recursive: true });
  const user = Object.values(kinds).includes('sudo-password') ? createTestUser(dir, { sudo: 'password' }) : undefined;
  // sshd reads authorized_keys as the user logging in: that user must be able to reach it.
  if (user) chmodSync(dir, 0o755);
  const stops: (() => Promise<void> | void)[] = [];
  const hosts = await Promise.all(
    Object.entries(kinds).map(async ([short, kind], i): Promise<ZooHost> => {
      const name = `labs-k8s-${short}`;
      const address = `10.3.60.${short === 'balancer' ? 50 : 50 + (short.startsWith('m') ? 0 : 3) + Number(short.slice(1))}`;
      const base = { name, kind, address, roles: ROLES[short] ?? ['worker'] };
      if (kind === 'refused') return { ...base, port: await freePort() };
      if (kind === 'dead') {
        const d = await deadListener();
        stops.push(d.stop);
        return { ...base, port: d.port };
      }
      const sshd = await startSshd(dir, `${name}-${i}`, { authorizedKeys: [kind === 'not-accepted' ? stranger.pub : key.pub] });
      if (user) {
        chmodSync(sshd.dir, 0o755);
        chmodSync(join(sshd.dir, 'authorized_keys'), 0o644);
      }
      stops.push(() => sshd.stop());
      return { ...base, port: sshd.port, sshd };
    }),
  );
  const knownHosts = join(dir, 'known_hosts');
  writeFileSync(knownHosts, hosts.filter((h) => h.sshd && h.kind !== 'unknown-key').map((h) => `[127.0.0.1]:${h.port} ${h.sshd!.hostKey.pub}\n`).join(''));
  const sshConfig = join(dir, 'ssh_config');
  writeFileSync(sshConfig, hosts.map((h) => `Host ${h.name}\n  HostName 127.0.0.1\n  Port ${h.port}\n`).join(''));
  const sshOf = (h: ZooHost) => {
    const parts = [`identityFile: ${h.kind === 'no-identity' ? missingKey : key.path}`];
    if (h.kind === 'sudo-password') parts.push(`user: ${user!.name}`);
    return `ssh: { ${parts.join(', ')} }`;
  };
  const inventoryText = `cluster:
  name: labs-k8s
  kubernetesVersion: "1.30.14"
  controlPlaneEndpoint: 10.3.60.100:6443
  podSubnet: 10.244.0.0/16
  serviceSubnet: 10.96.0.0/12
  cni: flannel
ssh: { user: root }
hosts:
${hosts.map((h) => `  - { name: ${h.name}, address: ${h.address}, roles: [${h.roles.join(', ')}],${h.roles.includes('loadbalancer') ? ' vrrp: { state: MASTER, priority: 100, interface: eth0 },' : ''} ${sshOf(h)} }`).join('\n')}
`;
  const inventory = join(dir, 'inventory.yaml');
  writeFileSync(inventory, inventoryText);
  return {
    dir, key, missingKey, inventory, inventoryText, knownHosts, sshConfig, hosts, ...(user ? { user } : {}),
    fixIdentity: () => {
      writeFileSync(missingKey, readFileSync(key.path), { mode: 0o600 });
    },
    stop: async () => {
      await Promise.all(stops.map((s) => s()));
      user?.remove();
    },
  };
}
