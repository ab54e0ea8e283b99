import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { parseInventory } from '../../../src/core/inventory/parse';
import { FACTS_SCRIPT } from '../../../src/core/phases/factsScript';
import { analyzeFacts, fingerprintOfPublicKeyLine, parseFacts, type HostFacts } from '../../../src/core/phases/facts';
import { LocalExecutor } from '../../../src/adapters/local/localExecutor';
import { sh } from '../../../src/core/ssh/command';
import { join } from 'node:path';
import { tempDir } from '../../tempDir';

const inventory = parseInventory(readFileSync(join(__dirname, '../../../examples/labs-k8s/inventory.yaml'), 'utf8')).inventory!;

test('the facts script runs on a real Debian host and reports what the host says', async () => {
  let out = '';
  const result = await new LocalExecutor().exec('local', sh`sh -c ${FACTS_SCRIPT}`, { onStdout: (t) => (out += t) });
  assert.equal(result.code, 0);
  const facts = parseFacts('local', out);
  assert.equal(facts.hostname, hostname());
  assert.equal(facts.kernel, execFileSync('uname', ['-r'], { encoding: 'utf8' }).trim());
  assert.equal(facts.machineId, readFileSync('/etc/machine-id', 'utf8').trim());
  assert.equal(facts.os?.id, 'debian');
  assert.ok(facts.addresses.some((a) => a.cidr.startsWith('127.0.0.1/')), JSON.stringify(facts.addresses));
  const swaps = readFileSync('/proc/swaps', 'utf8').trim().split('\n').length - 1;
  assert.equal(facts.swapActive.length, swaps);
});

test('held packages are what dpkg\'s selections hold (apt-mark showhold\'s source), and only those', () => {
  // dpkg-query reads the status file of DPKG_ADMINDIR: a host whose kubelet and kubeadm are held, curl not.
  const admin = tempDir('kw-dpkg-');
  try {
    const pkg = (name: string, status: string) => `Package: ${name}\nStatus: ${status}\nVersion: 1.0\nArchitecture: amd64\n`;
    writeFileSync(join(admin, 'status'), [pkg('kubeadm', 'hold ok installed'), pkg('curl', 'install ok installed'), pkg('kubelet', 'hold ok installed'), pkg('old-tool', 'deinstall ok config-files')].join('\n'));
    const out = execFileSync('sh', ['-c', FACTS_SCRIPT], { encoding: 'utf8', env: { ...process.env, DPKG_ADMINDIR: admin } });
    assert.deepEqual(parseFacts('local', out).heldPackages, ['kubeadm', 'kubelet']);
  } finally {
    rmSync(admin, { recursive: true, force: true });
  }
});

test('fingerprints match ssh-keygen -lf', () => {
  const pubs = readdirSync('/etc/ssh').filter((f) => /^ssh_host_.*_key\.pub$/.test(f));
  if (pubs.length === 0) assert.fail('no /etc/ssh/ssh_host_*_key.pub: install openssh-server (scripts/setup.sh does)');
  for (const pub of pubs) {
    const line = readFileSync(join('/etc/ssh', pub), 'utf8');
    const expected = execFileSync('ssh-keygen', ['-lf', join('/etc/ssh', pub)], { encoding: 'utf8' }).split(' ')[1];
    assert.equal(fingerprintOfPublicKeyLine(line), expected);
  }
});

function healthy(host: string, address: string, id: string): HostFacts {
  return {
    host, hostname: host, machineId: `machine-${id}`, productUuid: `uuid-${id}`, hostKeyFingerprints: [`SHA256:key-${id}`],
    os: { id: 'debian', versionId: '12' }, swapActive: [], swapInFstab: [], modules: { overlay: true, br_netfilter: true },
    sysctl: { 'net.bridge.bridge-nf-call-iptables': '1', 'net.bridge.bridge-nf-call-ip6tables': '1', 'net.ipv4.ip_forward': '1', 'net.ipv4.ip_nonlocal_bind': '1' },
    heldPackages: [], addresses: [{ iface: 'ens192', cidr: `${address}/24` }], joined: { kubeletConf: false, adminConf: false, etcd: false }, timeSynchronized: true,
  };
}

test('a healthy seed topology has no findings; a cloned VM is flagged on both hosts with the seed\'s why', () => {
  const all = inventory.hosts.map((h, i) => healthy(h.name, h.address, String(i)));
  assert.deepEqual(analyzeFacts(inventory, all), []);
  const cloned = all.map((f) => (f.host === 'labs-k8s-w02' ? { ...f, machineId: all[4]!.machineId, productUuid: all[4]!.productUuid, hostKeyFingerprints: all[4]!.hostKeyFingerprints } : f));
  const findings = analyzeFacts(inventory, cloned);
  assert.deepEqual(findings.map((f) => `${f.host}:${f.rule}`).sort(), [
    'labs-k8s-w01:facts/cloned-host-key', 'labs-k8s-w01:facts/cloned-machine-id', 'labs-k8s-w01:facts/cloned-product-uuid',
    'labs-k8s-w02:facts/cloned-host-key', 'labs-k8s-w02:facts/cloned-machine-id', 'labs-k8s-w02:facts/cloned-product-uuid',
  ]);
  assert.match(findings.find((f) => f.rule === 'facts/cloned-machine-id')!.why, /systemd-machine-id-setup/);
});

test('swap, a missing module, a wrong cgroup driver and a missing address are each reported on their host', () => {
  const all = inventory.hosts.map((h, i) => healthy(h.name, h.address, String(i)));
  all[1] = { ...all[1]!, swapActive: ['/swapfile'], kubelet: { active: true, cgroupDriver: 'cgroupfs' } };
  all[2] = { ...all[2]!, modules: { overlay: true, br_netfilter: false }, addresses: [{ iface: 'ens192', cidr: '10.3.60.99/24' }] };
  const rules = analyzeFacts(inventory, all).map((f) => `${f.host}:${f.rule}`).sort();
  assert.deepEqual(rules, ['labs-k8s-m01:facts/kubelet-cgroup', 'labs-k8s-m01:facts/swap', 'labs-k8s-m02:facts/address', 'labs-k8s-m02:facts/module-br-netfilter']);
});

test('unit states come from one systemctl call, each in its place (a stand-in systemctl: this machine\'s PID 1 is not systemd)', () => {
  const bin = tempDir('kw-facts-bin-');
  const calls = join(bin, 'calls');
  // `systemctl is-active A B …` prints one state per unit, in order; exit 3 when one is not active.
  writeFileSync(join(bin, 'systemctl'), `#!/bin/sh\necho "$*" >> ${calls}\n[ "$1" = is-active ] || exit 1\nshift\nfor u; do case $u in containerd|kubelet|haproxy|chrony) echo active;; ntp) echo failed;; *) echo inactive;; esac; done\nexit 3\n`, { mode: 0o755 });
  const script = FACTS_SCRIPT.replace('export LC_ALL=C PATH=', `export LC_ALL=C PATH=${bin}:`);
  assert.notEqual(script, FACTS_SCRIPT);
  const facts = parseFacts('local', execFileSync('sh', ['-c', script], { encoding: 'utf8' }));
  assert.equal(readFileSync(calls, 'utf8').trim().split('\n').length, 1, 'one systemctl for every unit');
  assert.equal(facts.containerd?.active, true);
  assert.equal(facts.kubelet?.active, true);
  assert.equal(facts.haproxy?.active, true);
  assert.equal(facts.keepalived?.active, false);
  assert.equal(facts.timeService, 'chrony');
});
