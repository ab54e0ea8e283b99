/**
 * Issue 34's keyrings and plain-http downloads. At the inventory's lines: a downloaded key never goes into a
 * distribution keyring, two sources never share one, an http key or CNI manifest is refused unless pinned by its
 * sha256 (and a pin is a SHA-256 that pins something). On the node: the real key script (curl from a loopback
 * server, gpg --dearmor) installs into a keyring only when it is new, recorded as ours or already this key, and only
 * a download that matches its pin; the CNI manifest over a pinned URL is applied from the checked file. Each
 * inventory case failed on the code before (exit 0; the plan overwrote the keyring).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { execFile, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { parseInventory } from '../../../src/core/inventory/parse';
import { assertValidInventory } from '../../../src/core/inventory/validate';
import { aptSourceSteps, KEYRING_RECORD } from '../../../src/core/phases/aptSources';
import { BRING_UP_PHASES, buildBringUpPlan } from '../../../src/engine/bringUp';
import { phaseConfigs } from '../../../src/engine/inputs';
import { tempDir } from '../../tempDir';
import { checkAtLine, edit, lineOf } from './checkAtLine';

const example = readFileSync(join(__dirname, '../../../examples/labs-k8s/inventory.yaml'), 'utf8');
const withPackages = (packages: string) => edit(example, '  cni: flannel\n', `  cni: flannel\n  packages:\n${packages}`);
const K8S_LINE = '    kubernetesApt: "deb [signed-by=/etc/apt/keyrings/k8s.gpg] https://pkgs.k8s.io/core:/stable:/v1.30/deb/ /"\n';
const K8S_KEY = '    kubernetesAptKey: https://pkgs.k8s.io/core:/stable:/v1.30/deb/Release.key\n';
const PIN = 'ab'.repeat(32);

test("a downloaded key into a distribution keyring (Debian's archive keyring) is refused at the source's line", async () => {
  const text = withPackages('    debianApt: "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] https://deb.example/debian bookworm main"\n    debianAptKey: https://deb.example/key.asc\n');
  const r = await checkAtLine(text, 'inventory/keyring-distribution');
  assert.equal(r.code, 1, r.out);
  assert.deepEqual(r.lines, [lineOf(text, 'debianApt:')]);
  assert.match(r.messages[0]!, /\/usr\/share\/keyrings\/debian-archive-keyring\.gpg is in \/usr\/share\/keyrings\/, where packages keep their keyrings/);
  // Naming a distribution keyring without downloading into it is what apt does every day: accepted.
  const named = await checkAtLine(withPackages('    debianApt: "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] https://deb.example/debian bookworm main"\n'), 'inventory/keyring-distribution');
  assert.equal(named.code, 0, named.out);
  // And the generator refuses the model when the loader was skipped.
  const inv = parseInventory(text).inventory!;
  assert.throws(() => assertValidInventory(inv), /debian-archive-keyring\.gpg/);
  assert.throws(() => aptSourceSteps({ cniManifest: '', ...inv.cluster.packages }), /where packages keep their keyrings/);
});

test('two sources naming one keyring are refused at the second line', async () => {
  const text = withPackages(K8S_LINE + K8S_KEY + '    debianApt: "deb [signed-by=/etc/apt/keyrings/k8s.gpg] https://deb.example/debian bookworm main"\n    debianAptKey: https://deb.example/key.asc\n');
  const r = await checkAtLine(text, 'inventory/keyring-shared');
  assert.equal(r.code, 1, r.out);
  assert.deepEqual(r.lines, [lineOf(text, 'debianApt:')]);
  assert.match(r.messages[0]!, /names the keyring \/etc\/apt\/keyrings\/k8s\.gpg of packages\.kubernetesApt/);
});

test('an apt key over plain http is refused unless pinned; the pin must be a SHA-256 and pin a key', async () => {
  const httpKey = '    kubernetesAptKey: http://mirror.example/Release.key\n';
  const text = withPackages(K8S_LINE + httpKey);
  const r = await checkAtLine(text, 'inventory/plain-http');
  assert.equal(r.code, 1, r.out);
  assert.deepEqual(r.lines, [lineOf(text, 'kubernetesAptKey:')]);
  assert.match(r.messages[0]!, /^error: .*pin the file with packages\.kubernetesAptKeySha256/);
  assert.equal((await checkAtLine(withPackages(K8S_LINE + httpKey + `    kubernetesAptKeySha256: ${PIN}\n`), 'inventory/plain-http')).code, 0);
  const badPin = withPackages(K8S_LINE + httpKey + '    kubernetesAptKeySha256: "ABC"\n');
  const b = await checkAtLine(badPin, 'inventory/sha256');
  assert.deepEqual([b.code, b.lines], [1, [lineOf(badPin, 'kubernetesAptKeySha256')]]);
  const lonely = withPackages(K8S_LINE + `    debianAptKeySha256: ${PIN}\n`);
  const l = await checkAtLine(lonely, 'inventory/sha256');
  assert.deepEqual([l.code, l.lines], [1, [lineOf(lonely, 'debianAptKeySha256')]]);
  assert.match(l.messages[0]!, /pins nothing/);
});

test('a CNI manifest over plain http (applied with the admin kubeconfig) is refused unless pinned; pinned, the node applies the checked file', async () => {
  const text = edit(example, '  cni: flannel\n', '  cni: flannel\n  cniManifest: http://mirror.example/kube-flannel.yml\n');
  const r = await checkAtLine(text, 'inventory/plain-http');
  assert.equal(r.code, 1, r.out);
  assert.deepEqual(r.lines, [lineOf(text, 'cniManifest:')]);
  assert.match(r.messages[0]!, /applied with the cluster-admin kubeconfig/);
  const pinned = edit(text, '  cniManifest: http://mirror.example/kube-flannel.yml\n', `  cniManifest: http://mirror.example/kube-flannel.yml\n  cniManifestSha256: ${PIN}\n`);
  const ok = await checkAtLine(pinned, 'inventory/plain-http');
  assert.equal(ok.code, 0, ok.out);
  const inv = parseInventory(pinned).inventory!;
  const plan = (pin?: string) =>
    buildBringUpPlan(inv, BRING_UP_PHASES, phaseConfigs(inv), { cniManifest: '', cniManifestUrl: 'http://mirror.example/kube-flannel.yml', ...(pin ? { cniManifestSha256: pin } : {}) }, { saveAdminKubeconfig: async () => undefined });
  const cni = plan(PIN).phases.flatMap((p) => p.steps).find((s) => s.id.endsWith('/cni'))!;
  const run = typeof cni.run === 'function' ? '' : cni.run!.text;
  // Downloaded to a temp file, compared with the pin, moved into place, and only then applied.
  const at = (part: string) => run.indexOf(part);
  assert.ok(at('curl') >= 0 && at('curl') < at(`!= ${PIN}`) && at(`!= ${PIN}`) < at('mv -f /root/cni.yaml.kw-tmp /root/cni.yaml') && at('mv -f /root/cni.yaml.kw-tmp') < at('apply -f /root/cni.yaml'), run);
  assert.doesNotMatch(run, /apply -f http/);
  assert.throws(() => plan(undefined), /plain http without cniManifestSha256/);
});

// ---- the node's side: the real key script against a loopback web server ----

let server: Server;
let base = '';
const served = new Map<string, Buffer>();
const dir = tempDir('kw-keys-');

before(async () => {
  server = createServer((req, res) => {
    const body = served.get(req.url ?? '');
    res.writeHead(body ? 200 : 404).end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
after(() => server.close());

/** An armored "key" (any bytes: the script only dearmors it) and its dearmored form. */
function armored(seed: string): { asc: Buffer; binary: Buffer } {
  const binary = createHash('sha512').update(seed).digest();
  const asc = spawnSync('gpg', ['--enarmor'], { input: binary });
  assert.equal(asc.status, 0, String(asc.stderr));
  return { asc: asc.stdout, binary };
}

test('on the node: a new keyring is written and recorded; ours is rewritten; a foreign one is never overwritten; a pin that does not match installs nothing', async (t) => {
  if (!existsSync('/usr/bin/gpg') || !existsSync('/usr/bin/curl')) return t.skip('gpg or curl missing');
  const key = armored('ours');
  served.set('/Release.key', key.asc);
  const keyring = join(dir, 'etc/apt/keyrings/ours.gpg');
  // The command names /etc/apt/keyrings/…: it runs here with that path and the record mapped into the test's folder.
  // Over http from the loopback server, so pinned: by default the digest of what it serves.
  const mapped = (name: string, pin = createHash('sha256').update(served.get('/Release.key')!).digest('hex')) => {
    const { keys } = aptSourceSteps({ cniManifest: '', kubernetesApt: `deb [signed-by=/etc/apt/keyrings/${name}] https://pkgs.k8s.io/core:/stable:/v1.30/deb/ /`, kubernetesAptKey: `${base}/Release.key`, kubernetesAptKeySha256: pin });
    const text = keys[0]!.text.replace(KEYRING_RECORD, join(dir, 'record')).replace(`/etc/apt/keyrings/${name}`, join(dir, 'etc/apt/keyrings', name));
    // Asynchronously: the web server answers from this process.
    return new Promise<{ code: number; stderr: string }>((resolve) => execFile('/bin/sh', ['-c', text], (e, _out, stderr) => resolve({ code: e ? Number(e.code ?? -1) : 0, stderr })));
  };
  const first = await mapped('ours.gpg');
  assert.equal(first.code, 0, first.stderr);
  assert.deepEqual(readFileSync(keyring), key.binary);
  assert.match(readFileSync(join(dir, 'record'), 'utf8'), /ours\.gpg\n$/);
  // Ours: rewritten with a new key (a rotated signing key).
  const rotated = armored('rotated');
  served.set('/Release.key', rotated.asc);
  assert.equal((await mapped('ours.gpg')).code, 0);
  assert.deepEqual(readFileSync(keyring), rotated.binary);
  // A keyring someone else put there (Debian's archive keyring, copied in): refused, left as it was.
  const foreign = join(dir, 'etc/apt/keyrings/debian-archive-keyring.gpg');
  copyFileSync('/usr/share/keyrings/debian-archive-keyring.gpg', foreign);
  const refused = await mapped('debian-archive-keyring.gpg');
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /debian-archive-keyring\.gpg exists and was not written by kubeadm-workbench .*: not overwritten/);
  assert.deepEqual(readFileSync(foreign), readFileSync('/usr/share/keyrings/debian-archive-keyring.gpg'));
  // Unrecorded but already exactly this key (a host set up before the record existed): allowed, and recorded now.
  writeFileSync(join(dir, 'etc/apt/keyrings/old.gpg'), rotated.binary);
  assert.equal((await mapped('old.gpg')).code, 0);
  assert.match(readFileSync(join(dir, 'record'), 'utf8'), /old\.gpg\n$/);
  // A pin that does not match the download installs nothing, and says both digests.
  const sha = createHash('sha256').update(rotated.asc).digest('hex');
  const wrong = await mapped('wrong.gpg', PIN);
  assert.equal(wrong.code, 1);
  assert.match(wrong.stderr, new RegExp(`has sha256 ${sha}, not the pinned ${PIN}: not installed`));
  assert.equal(existsSync(join(dir, 'etc/apt/keyrings/wrong.gpg')), false);
});
