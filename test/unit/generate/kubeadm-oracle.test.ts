/**
 * Oracle: the real `kubeadm config validate` accepts the generated and example kubeadm files.
 *
 * The binary: $KUBEADM_BIN, else `kubeadm` on PATH, else the lab's build in
 * /var/cache/kubeadm-workbench/lab/bin/kube-<version>/kubeadm. When none is found the test FAILS with a
 * message saying so; set KUBEADM_BIN=none to skip it on purpose (reported as skipped).
 *
 * kubeadm only validates control-plane versions within its supported skew (1.34 accepts ≥ 1.33), so a
 * file written for another version is validated with its kubernetesVersion set to the binary's own;
 * everything else is checked as written. v1beta4 files need kubeadm ≥ 1.31: an older binary fails the migration
 * test rather than passing it unchecked.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { generateKubeadmConfig } from '../../../src/core/generate/kubeadm';
import { generateClusterConfigs } from '../../../src/core/generate/index';
import { parseAllDocuments } from 'yaml';
import { lintKubeadm } from '../../../src/core/kubeadm/lint';
import { migrateToV1beta4 } from '../../../src/core/kubeadm/migrate';
import { EXAMPLE, exampleInventory, fixture } from '../kubeadm/helpers';
import { tempDir } from '../../tempDir';

function findKubeadm(): string | undefined {
  const env = process.env.KUBEADM_BIN;
  if (env) return env;
  const which = spawnSync('sh', ['-c', 'command -v kubeadm'], { encoding: 'utf8' });
  if (which.status === 0 && which.stdout.trim()) return which.stdout.trim();
  const cache = '/var/cache/kubeadm-workbench/lab/bin';
  if (existsSync(cache)) {
    const dirs = readdirSync(cache).filter((d) => d.startsWith('kube-') && existsSync(join(cache, d, 'kubeadm'))).sort();
    if (dirs.length) return join(cache, dirs[dirs.length - 1]!, 'kubeadm');
  }
  return undefined;
}

const bin = findKubeadm();
const skip = bin === 'none' ? 'KUBEADM_BIN=none: kubeadm oracle skipped on request' : false;

describe('kubeadm config validate (real binary)', { skip }, () => {
  const dir = tempDir('kw-kubeadm-');
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('a kubeadm binary is available', () => {
    assert.ok(bin && existsSync(bin), 'No kubeadm binary: set KUBEADM_BIN=/path/to/kubeadm, put kubeadm on PATH or build the lab (npm run lab); KUBEADM_BIN=none skips this oracle.');
  });

  const version = (): string => (bin && existsSync(bin) ? execFileSync(bin, ['version', '-o', 'short'], { encoding: 'utf8' }).trim() : 'v0.0.0');

  function validate(name: string, text: string): void {
    const v = version();
    const minor = Number(/^v1\.(\d+)/.exec(v)?.[1] ?? 0);
    let body = text.replace(/^kubernetesVersion: .*$/m, `kubernetesVersion: ${v}`);
    if (minor < 31) body = body.replaceAll('kubeadm.k8s.io/v1beta4', 'kubeadm.k8s.io/v1beta3');
    const path = join(dir, name);
    writeFileSync(path, body);
    const r = spawnSync(bin!, ['config', 'validate', '--config', path], { encoding: 'utf8', timeout: 30_000 });
    assert.equal(r.status, 0, `kubeadm ${v} rejected ${name}:\n${r.stderr}${r.stdout}`);
  }

  it('accepts the example kubeadm-config.yaml', { skip: !bin || !existsSync(bin) }, () => {
    validate('example.yaml', readFileSync(join(EXAMPLE, 'kubeadm-config.yaml'), 'utf8'));
  });

  for (const k8s of ['1.30.14', '1.31.4', '1.34.12']) {
    it(`accepts the generated file for Kubernetes ${k8s}`, { skip: !bin || !existsSync(bin) }, () => {
      const inv = exampleInventory();
      inv.cluster.kubernetesVersion = k8s;
      const text = generateKubeadmConfig(inv);
      assert.deepEqual(lintKubeadm({ path: 'kubeadm-config.yaml', text }, { inventory: inv }), []);
      validate(`generated-${k8s}.yaml`, text);
    });

    it(`accepts the generated file with the timeline's audit log for Kubernetes ${k8s}`, { skip: !bin || !existsSync(bin) }, () => {
      const inv = exampleInventory();
      inv.cluster.kubernetesVersion = k8s;
      const text = generateKubeadmConfig(inv, { auditLog: true });
      assert.match(text, /audit-policy-file/);
      assert.deepEqual(lintKubeadm({ path: 'kubeadm-config.yaml', text }, { inventory: inv }), []);
      validate(`generated-audit-${k8s}.yaml`, text);
    });

    it(`accepts what generate writes when the inventory switches the audit log on, Kubernetes ${k8s}`, { skip: !bin || !existsSync(bin) }, () => {
      const inv = exampleInventory();
      inv.cluster.kubernetesVersion = k8s;
      inv.cluster.apiServerAuditLog = true;
      const text = generateClusterConfigs(inv).find((f) => f.path === 'kubeadm-config.yaml')!.text;
      assert.match(text, /audit-policy-file/);
      validate(`inventory-audit-${k8s}.yaml`, text);
    });
  }

  it('our v1beta3 → v1beta4 migration agrees with `kubeadm config migrate`', { skip: !bin || !existsSync(bin) }, () => {
    const v = version();
    // `kubeadm config migrate` to v1beta4 exists from 1.31 on; an older binary cannot be the oracle of our migration.
    assert.ok(Number(/^v1\.(\d+)/.exec(v)?.[1] ?? 0) >= 31, `kubeadm ${v} cannot migrate to v1beta4 (needs ≥ 1.31): set KUBEADM_BIN to a newer kubeadm, or KUBEADM_BIN=none to skip this oracle`);
    const old = fixture('kubeadm', 'v1beta3-ha.yaml').replace(/^kubernetesVersion: .*$/m, `kubernetesVersion: ${v}`);
    writeFileSync(join(dir, 'old.yaml'), old);
    const r = spawnSync(bin!, ['config', 'migrate', '--old-config', join(dir, 'old.yaml'), '--new-config', join(dir, 'new.yaml')], { encoding: 'utf8', timeout: 30_000 });
    assert.equal(r.status, 0, r.stderr);
    const byKind = (text: string) => Object.fromEntries(parseAllDocuments(text).map((d) => d.toJS() as Record<string, unknown>).map((o) => [o.kind as string, o]));
    const theirs = byKind(readFileSync(join(dir, 'new.yaml'), 'utf8'));
    const ours = byKind(migrateToV1beta4(old));
    const get = (o: unknown, path: string) => path.split('.').reduce<unknown>((x, k) => (x as Record<string, unknown> | undefined)?.[k], o);
    for (const [kind, path] of [['ClusterConfiguration', 'apiServer.extraArgs'], ['InitConfiguration', 'nodeRegistration.kubeletExtraArgs'], ['InitConfiguration', 'timeouts.controlPlaneComponentHealthCheck'], ['ClusterConfiguration', 'apiVersion']] as const) {
      assert.deepEqual(get(ours[kind], path), get(theirs[kind], path), `${kind}.${path}`);
    }
    assert.equal(get(theirs.ClusterConfiguration, 'apiServer.timeoutForControlPlane'), undefined);
    validate('migrated.yaml', migrateToV1beta4(old));
  });

  it('corpus: every file kubeadm rejects we flag as an error; files it accepts (good-*) have no error from us', { skip: !bin || !existsSync(bin) }, () => {
    const corpus = join(__dirname, '..', '..', 'fixtures', 'kubeadm', 'oracle');
    const misses: string[] = [];
    const falseAlarms: string[] = [];
    for (const name of readdirSync(corpus).filter((n) => n.endsWith('.yaml')).sort()) {
      const text = readFileSync(join(corpus, name), 'utf8');
      const r = spawnSync(bin!, ['config', 'validate', '--config', join(corpus, name)], { encoding: 'utf8', timeout: 30_000 });
      const errors = lintKubeadm({ path: name, text }, {}).filter((f) => f.severity === 'error');
      if (r.status !== 0 && errors.length === 0) misses.push(`${name}: ${r.stderr.split('\n').find((l) => l.startsWith('error')) ?? r.stderr}`);
      if (name.startsWith('good-') && (r.status !== 0 || errors.length)) falseAlarms.push(`${name}: kubeadm rc=${r.status}; ours: ${errors.map((e) => e.rule).join(', ')}`);
      if (name.startsWith('bad-')) assert.notEqual(r.status, 0, `kubeadm accepted ${name}; move it to extra-* or fix it`);
    }
    assert.deepEqual(misses, [], 'kubeadm rejects these but we do not flag them');
    assert.deepEqual(falseAlarms, []);
  });

  it('accepts the file generated from inventories at the edges of every field\'s rules (issue 11)', { skip: !bin || !existsSync(bin) }, () => {
    const edges: Array<(inv: ReturnType<typeof exampleInventory>) => void> = [
      (inv) => { inv.cluster.name = 'a'.repeat(63); },
      (inv) => { inv.cluster.imageRepository = 'registry.example:5000/k8s/mirror_a.b-c'; },
      (inv) => { inv.cluster.podSubnet = '10.128.0.0/9'; inv.cluster.serviceSubnet = '172.16.0.0/12'; },
      (inv) => { inv.hosts.find((h) => h.roles.includes('control-plane'))!.name = `${'a'.repeat(63)}.${'b'.repeat(63)}.example`; },
      (inv) => { inv.cluster.controlPlaneEndpoint = '10.3.60.200:65535'; },
    ];
    edges.forEach((edit, i) => {
      const inv = exampleInventory();
      inv.cluster.kubernetesVersion = '1.34.12';
      edit(inv);
      validate(`edge-${i}.yaml`, generateKubeadmConfig(inv));
    });
  });

  it('rejects what we flag: an unknown field', { skip: !bin || !existsSync(bin) }, () => {
    const text = generateKubeadmConfig({ ...exampleInventory(), cluster: { ...exampleInventory().cluster, kubernetesVersion: '1.34.12' } }).replace('clusterName:', 'clustrName:');
    assert.ok(lintKubeadm({ path: 'kubeadm-config.yaml', text }, {}).some((f) => f.rule === 'kubeadm/unknown-field'));
    assert.throws(() => validate('bad.yaml', text));
  });
});
