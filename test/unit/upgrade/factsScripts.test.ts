/**
 * The preflight's read-only scripts run for real in a local shell, against a local HTTP server laid out like
 * pkgs.k8s.io and a registry: the target source's package versions read from its index, the target kubeadm's own
 * image list (its .deb, built here with dpkg-deb, unpacked to a temporary folder and asked), and a registry that
 * has one image and not another. What they print is parsed by the same code the engine uses.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import type { RemoteCommand } from '../../../src/core/ssh/command';
import { nodeFactsCommand, parseClusterFacts, parseImageRef, parseNodeFacts, parseRegistryCheck, registryCheckCommand, targetImagesCommand } from '../../../src/core/upgrade/factsScripts';
import { tempDir } from '../../tempDir';

let server: Server;
let base = '';
const root = tempDir('kw-upgrade-facts-');
const requests: string[] = [];
const keyring = join(root, 'kubernetes-apt-keyring.gpg');

before(async () => {
  // A kubeadm package whose binary prints what `kubeadm config images list` prints for its arguments.
  const pkg = join(root, 'pkg');
  mkdirSync(join(pkg, 'DEBIAN'), { recursive: true });
  mkdirSync(join(pkg, 'usr/bin'), { recursive: true });
  writeFileSync(join(pkg, 'DEBIAN/control'), 'Package: kubeadm\nVersion: 1.34.12-1.1\nArchitecture: all\nMaintainer: test <test@example.invalid>\nDescription: test\n');
  writeFileSync(join(pkg, 'usr/bin/kubeadm'), '#!/bin/sh\n[ "$(id -u)" != 0 ] || { echo "asked as root" >&2; exit 8; }\n[ "$1 $2 $3 $4" = "config images list --kubernetes-version" ] || exit 9\nr=registry.k8s.io; [ "$6" = "--image-repository" ] && r=$7\necho "$r/kube-apiserver:$5"\necho "$r/etcd:3.6.4-0"\necho "$r/coredns/coredns:v1.12.1"\n');
  chmodSync(join(pkg, 'usr/bin/kubeadm'), 0o755);
  execFileSync('dpkg-deb', ['--root-owner-group', '--build', pkg, join(root, 'kubeadm.deb')], { stdio: 'ignore' });
  const deb = readFileSync(join(root, 'kubeadm.deb'));
  const sha = createHash('sha256').update(deb).digest('hex');
  // Fields in dpkg-scanpackages' order: the SHA256 comes after the Filename.
  const stanza = (p: string, v: string, h: string) => `Package: ${p}\nVersion: ${v}\nArchitecture: all\nFilename: ./pool/${p}_${v}.deb\nSize: 1\nSHA256: ${h}\n`;
  const index = ['kubeadm', 'kubelet', 'kubectl'].flatMap((p) => [stanza(p, '1.34.11-1.1', '0'.repeat(64)), stanza(p, '1.34.12-1.1', p === 'kubeadm' ? sha : '0'.repeat(64))]).join('\n');
  const tampered = index.replace(sha, 'f'.repeat(64));
  const gz = gzipSync(index.replace(/1\.34\./g, '1.33.'));
  // A throw-away signing key, its public half as a binary keyring (what prepare's `gpg --dearmor` writes), and a
  // second key apt does not trust. InRelease lists an MD5Sum before the SHA256 section, as apt-ftparchive writes it.
  const gnupg = join(root, 'gnupg');
  mkdirSync(gnupg, { mode: 0o700 });
  const gpg = (args: string[], input?: string) => execFileSync('gpg', ['--homedir', gnupg, '--batch', '--yes', '--pinentry-mode', 'loopback', '--passphrase', '', ...args], { input, stdio: ['pipe', 'pipe', 'ignore'] });
  gpg(['--quick-gen-key', 'trusted <trusted@example.invalid>', 'ed25519', 'sign', 'never']);
  gpg(['--quick-gen-key', 'stranger <stranger@example.invalid>', 'ed25519', 'sign', 'never']);
  writeFileSync(keyring, gpg(['--export', 'trusted@example.invalid']));
  const inRelease = (packages: string, signer: string) => {
    const h = createHash('sha256').update(packages).digest('hex');
    const release = `Origin: test\nLabel: test\nMD5Sum:\n ${'0'.repeat(32)} ${packages.length} Packages\nSHA256:\n ${h} ${packages.length} Packages\n`;
    return gpg(['--local-user', signer, '--clearsign'], release);
  };
  const signed = inRelease(index, 'trusted@example.invalid');
  const signedTampered = inRelease(tampered, 'trusted@example.invalid');
  const strangers = inRelease(index, 'stranger@example.invalid');
  server = createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    if (req.url === '/kubernetes/core:/stable:/v1.34/deb/Packages') return void res.end(index);
    if (req.url === '/kubernetes/core:/stable:/v1.34/deb/InRelease') return void res.end(signed);
    if (req.url === '/tampered/InRelease') return void res.end(signedTampered);
    if (req.url === '/tampered/Packages') return void res.end(tampered);
    if (req.url === '/stranger/InRelease') return void res.end(strangers);
    if (req.url === '/stranger/Packages') return void res.end(index);
    if (req.url === '/stranger/pool/kubeadm_1.34.12-1.1.deb') return void res.end(deb);
    if (req.url === '/swapped/InRelease') return void res.end(signed);
    if (req.url === '/swapped/Packages') return void res.end(tampered);
    if (req.url === '/swapped/pool/kubeadm_1.34.12-1.1.deb') return void res.end(deb);
    if (req.url === '/tampered/pool/kubeadm_1.34.12-1.1.deb') return void res.end(deb);
    if (req.url === '/kubernetes/core:/stable:/v1.33/deb/Packages.gz') return void res.end(gz);
    if (req.url === '/kubernetes/core:/stable:/v1.34/deb/pool/kubeadm_1.34.12-1.1.deb') return void res.end(deb);
    if (req.method === 'HEAD' && req.url === '/v2/kube-apiserver/manifests/v1.34.12') return void res.writeHead(200).end();
    if (req.method === 'HEAD' && req.url === '/v2/private/thing/manifests/v1') return void res.writeHead(401).end();
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});

after(() => {
  server?.close();
  rmSync(root, { recursive: true, force: true });
});

/** In a child shell, asynchronously: the HTTP server in this process must answer meanwhile. */
function run(cmd: RemoteCommand): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('sh', ['-c', cmd.text], { timeout: 60_000 });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

test('a node\'s facts: the target source\'s kubeadm, kubelet and kubectl versions from its index, disk free as numbers', async () => {
  const r = await run(nodeFactsCommand(`${base}/kubernetes/core:/stable:/v1.34/deb/Packages`));
  const facts = parseNodeFacts('here', 'control-plane', r.stdout);
  assert.deepEqual(facts.offered, { kubeadm: ['1.34.11-1.1', '1.34.12-1.1'], kubelet: ['1.34.11-1.1', '1.34.12-1.1'], kubectl: ['1.34.11-1.1', '1.34.12-1.1'] });
  assert.ok((facts.diskFree?.containerd ?? 0) > 0 && (facts.diskFree?.etcd ?? 0) > 0, JSON.stringify(facts.diskFree));
  const gzOnly = parseNodeFacts('here', 'worker', (await run(nodeFactsCommand(`${base}/kubernetes/core:/stable:/v1.33/deb/Packages`))).stdout);
  assert.deepEqual(gzOnly.offered?.kubelet, ['1.33.11-1.1', '1.33.12-1.1'], 'a mirror with only Packages.gz is read too');
  const missing = parseNodeFacts('here', 'worker', (await run(nodeFactsCommand(`${base}/kubernetes/core:/stable:/v1.99/deb/Packages`))).stdout);
  assert.match(missing.offeredError ?? '', /cannot download .*v1\.99/);
});

test('the target\'s own kubeadm is unpacked and asked for its images, with the cluster\'s image repository', async () => {
  const r = await run(targetImagesCommand(`${base}/kubernetes/core:/stable:/v1.34/deb/Packages`, '1.34.12', `${base}/kubernetes/core:/stable:/v1.34/deb/`, 'registry.lab.internal:5000', keyring));
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(r.stdout.trim().split('\n'), ['registry.lab.internal:5000/kube-apiserver:v1.34.12', 'registry.lab.internal:5000/etcd:3.6.4-0', 'registry.lab.internal:5000/coredns/coredns:v1.12.1']);
  const none = await run(targetImagesCommand(`${base}/kubernetes/core:/stable:/v1.34/deb/Packages`, '1.34.13', `${base}/kubernetes/core:/stable:/v1.34/deb/`, undefined, keyring));
  assert.equal(none.code, 3);
  assert.match(none.stderr, /offers no kubeadm 1\.34\.13/);
  const bad = await run(targetImagesCommand(`${base}/tampered/Packages`, '1.34.12', `${base}/tampered/`, undefined, keyring));
  assert.equal(bad.code, 3, 'a package that is not the one the index names is never run');
  assert.match(bad.stderr, /does not match the SHA256 of the index/);
});

test('apt\'s chain of trust: an InRelease signed by a key outside the source\'s keyring, or an index it does not name, refuses before any package is fetched', async () => {
  const stranger = await run(targetImagesCommand(`${base}/stranger/Packages`, '1.34.12', `${base}/stranger/`, undefined, keyring));
  assert.equal(stranger.code, 3);
  assert.match(stranger.stderr, /the InRelease of http:\/\/127\.0\.0\.1:\d+\/stranger\/ is not signed by a key in .*kubernetes-apt-keyring\.gpg/);
  assert.equal(stranger.stdout, '', 'nothing ran');
  const swapped = await run(targetImagesCommand(`${base}/swapped/Packages`, '1.34.12', `${base}/swapped/`, undefined, keyring));
  assert.equal(swapped.code, 3);
  assert.match(swapped.stderr, /swapped\/Packages does not match the SHA256 of the signed InRelease/);
  assert.deepEqual(requests.filter((r) => /\/(stranger|swapped)\/pool\//.test(r)), [], 'no package was even downloaded');
  assert.throws(() => targetImagesCommand(`${base}/stranger/Packages`, '1.34.12', `${base}/stranger/`, undefined, 'keyring.gpg'), /not an absolute path/);
});

test('the registry check: present, missing (named), credentials wanted (not refused), through the inventory\'s mirror', async () => {
  const refs = ['registry.k8s.io/kube-apiserver:v1.34.12', 'registry.k8s.io/etcd:3.6.4-0', 'registry.k8s.io/private/thing:v1'].map((i) => parseImageRef(i)!);
  const facts = parseRegistryCheck((await run(registryCheckCommand(refs, { 'registry.k8s.io': [base] }))).stdout);
  assert.deepEqual(facts.map((f) => [f.image, f.present, f.unknown ?? false]), [
    ['registry.k8s.io/kube-apiserver:v1.34.12', true, false],
    ['registry.k8s.io/etcd:3.6.4-0', false, false],
    ['registry.k8s.io/private/thing:v1', true, true],
  ]);
  assert.equal(facts[1]!.detail, 'manifest unknown (HTTP 404)');
  assert.ok(requests.includes('HEAD /v2/etcd/manifests/3.6.4-0'));
  // A registry on plain http (the local server): reached over http only when the inventory's mirror for it says
  // http://, as containerd's hosts.toml then does; without one, https only (containerd never falls back to http).
  const host = base.replace('http://', '');
  const refsOnHost = [parseImageRef(`${host}/kube-apiserver:v1.34.12`)!, parseImageRef(`${host}/etcd:3.6.4-0`)!];
  const before = requests.length;
  const https = parseRegistryCheck((await run(registryCheckCommand(refsOnHost, undefined))).stdout);
  assert.deepEqual(https.map((f) => [f.present, f.detail]), [[false, 'registry not reached'], [false, 'registry not reached']]);
  assert.equal(requests.length, before, 'no request over plain http');
  const plain = parseRegistryCheck((await run(registryCheckCommand(refsOnHost, { [host]: [base] }))).stdout);
  assert.deepEqual(plain.map((f) => f.present), [true, false]);
});

test('image references: kubeadm\'s forms parse, anything shell-like does not', () => {
  assert.deepEqual(parseImageRef('registry.lab:5000/coredns/coredns:v1.12.1'), { image: 'registry.lab:5000/coredns/coredns:v1.12.1', registry: 'registry.lab:5000', repository: 'coredns/coredns', tag: 'v1.12.1' });
  for (const bad of ['kube-apiserver:v1', 'registry.k8s.io/x:$(reboot)', 'registry.k8s.io/x@sha256:abc', 'registry.k8s.io/x:v1 y']) assert.equal(parseImageRef(bad), undefined, bad);
});

test('cluster facts: nodes with Ready and version, add-on tags, the deprecated APIs clients requested', () => {
  const out = [
    '\u001ekw-nodes', 'labs-k8s-m01 v1.33.13 True', 'labs-k8s-w01 v1.33.13 False',
    '\u001ekw-coredns registry.k8s.io/coredns/coredns:v1.12.0', '\u001ekw-kube-proxy registry.k8s.io/kube-proxy:v1.33.13', '\u001ekw-repository registry.k8s.io',
    '\u001ekw-deprecated', 'apiserver_requested_deprecated_apis{group="flowcontrol.apiserver.k8s.io",removed_release="1.32",resource="flowschemas",subresource="",version="v1beta3"} 1',
  ].join('\n');
  const c = parseClusterFacts(out);
  assert.deepEqual([...c.nodes], [['labs-k8s-m01', { version: 'v1.33.13', ready: true }], ['labs-k8s-w01', { version: 'v1.33.13', ready: false }]]);
  assert.equal(c.coreDns, 'v1.12.0');
  assert.equal(c.kubeProxy, 'v1.33.13');
  assert.deepEqual(c.requested, [{ groupVersion: 'flowcontrol.apiserver.k8s.io/v1beta3', resource: 'flowschemas' }]);
});
