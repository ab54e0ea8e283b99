/**
 * Issue 5 against the lab's bare Debian 12 nodes, through the command line (the same engine the
 * extension runs): facts on 7 hosts and the cloned-VM trap, then `up` from bare nodes to an HA
 * cluster, every run log scanned for secrets, and a second `up` that finds everything done.
 * Needs root and the lab (npm run lab -- build once). Run: node --import tsx --test test/lab/bringup.test.ts
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '../..');
const LAB = join(ROOT, 'lab/lab.sh');
const CLI = join(ROOT, 'dist/cli.js');
const report: Record<string, number> = {};
const env: Record<string, string> = {};
let kubeconfig = '';

function lab(args: string[], timeoutMs = 30 * 60_000): string {
  const r = spawnSync('bash', [LAB, ...args], { encoding: 'utf8', timeout: timeoutMs });
  if (r.status !== 0) throw new Error(`lab ${args.join(' ')} failed (${r.status}):\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

function cli(args: string[], timeoutMs = 40 * 60_000): { code: number; out: string; seconds: number } {
  const t0 = Date.now();
  const r = spawnSync(process.execPath, [CLI, ...args, '--inventory', env.LAB_INVENTORY!, '--ssh-config', env.LAB_SSH_CONFIG!, '--known-hosts', env.LAB_KNOWN_HOSTS!],
    { encoding: 'utf8', timeout: timeoutMs, env: { ...process.env, PATH: env.PATH ?? process.env.PATH!, HOME: env.HOME_DIR! }, maxBuffer: 64 * 1024 * 1024 });
  return { code: r.status ?? -1, out: `${r.stdout}\n${r.stderr}`, seconds: (Date.now() - t0) / 1000 };
}

const kubectl = (...args: string[]) => execFileSync('kubectl', ['--kubeconfig', kubeconfig, '--request-timeout=10s', ...args], { encoding: 'utf8', env: { ...process.env, PATH: env.PATH! } });

/** Bootstrap tokens and 64-hex certificate keys; CA hashes (sha256:<hex>) are public and allowed. */
function secretsIn(text: string): string[] {
  const tokens = text.match(/\b[a-z0-9]{6}\.[a-z0-9]{16}\b/g) ?? [];
  const keys = [...text.matchAll(/(?<!sha256:)\b[0-9a-f]{64}\b/g)].map((m) => m[0]);
  return [...tokens, ...keys];
}

describe('bring-up engine on the lab\'s bare nodes', { timeout: 90 * 60_000 }, () => {
  before(() => {
    if (process.getuid?.() !== 0) throw new Error('the lab needs root: run as root');
    if (!existsSync(CLI)) throw new Error('dist/cli.js missing: run npm run build first');
    lab(['build'], 90 * 60_000);
    lab(['down']);
    lab(['up']);
    for (const m of lab(['env']).matchAll(/^export (\w+)="(.*)"$/gm)) env[m[1]!] = m[2]!.replace('$PATH', process.env.PATH ?? '');
    // A fresh HOME: the CLI's own known_hosts and kubeconfig must not come from this machine's user.
    env.HOME_DIR = mkdtempSync(join(tmpdir(), 'kw-home-'));
    // Runs of earlier lab lives would be resumed otherwise.
    rmSync(join(dirname(env.LAB_INVENTORY!), '.kubeadm-workbench'), { recursive: true, force: true });
    kubeconfig = join(env.HOME_DIR, '.kube', 'config');
  });

  after(() => {
    console.log('bring-up report:', JSON.stringify(report, null, 2));
    if (!process.env.KW_LAB_KEEP) spawnSync('bash', [LAB, 'down']);
  });

  test('facts of 7 bare hosts in parallel: only what prepare will fix is reported', () => {
    const r = cli(['facts', '--json']);
    report.factsSeconds = r.seconds;
    const json = JSON.parse(r.out.slice(r.out.indexOf('{'), r.out.lastIndexOf('}') + 1));
    assert.equal(json.facts.length, 7, r.out);
    assert.deepEqual(json.failures, []);
    const errors = json.findings.filter((f: { severity: string }) => f.severity === 'error').map((f: { rule: string }) => f.rule);
    // Bare Debian: IP forwarding is off until the prepare phase turns it on; nothing else is wrong.
    assert.deepEqual([...new Set(errors)], ['facts/sysctl'], JSON.stringify(json.findings, null, 1));
  });

  test('the cloned-VM trap is flagged on both hosts, naming machine-id, product_uuid and host key', () => {
    lab(['fault', 'clone-identity', 'labs-k8s-w01', 'labs-k8s-w02']);
    try {
      const r = cli(['facts', '--json', '--host', 'labs-k8s-w01', '--host', 'labs-k8s-w02']);
      assert.equal(r.code, 1);
      const json = JSON.parse(r.out.slice(r.out.indexOf('{'), r.out.lastIndexOf('}') + 1));
      const rules = json.findings.map((f: { host: string; rule: string }) => `${f.host}:${f.rule}`).sort();
      for (const h of ['labs-k8s-w01', 'labs-k8s-w02']) for (const rule of ['facts/cloned-machine-id', 'facts/cloned-product-uuid']) assert.ok(rules.includes(`${h}:${rule}`), rules.join());
    } finally {
      lab(['reset']);
    }
  });

  test('up --yes brings the bare nodes to an HA cluster: 5 Ready nodes, 3 etcd members, the VIP on the MASTER', () => {
    const r = cli(['up', '--yes', '--kubeconfig', kubeconfig]);
    report.upSeconds = r.seconds;
    assert.equal(r.code, 0, r.out.slice(-4000));
    type NodeJson = { metadata: { name: string }; status: { conditions: { type: string; status: string }[] } };
    const nodes = JSON.parse(kubectl('get', 'nodes', '-o', 'json')).items as NodeJson[];
    const ready = nodes.filter((n) => n.status.conditions.some((c) => c.type === 'Ready' && c.status === 'True')).map((n) => n.metadata.name).sort();
    assert.deepEqual(ready, ['labs-k8s-m01', 'labs-k8s-m02', 'labs-k8s-m03', 'labs-k8s-w01', 'labs-k8s-w02']);
    const members = kubectl('-n', 'kube-system', 'exec', 'etcd-labs-k8s-m01', '--', 'etcdctl', '--endpoints=https://127.0.0.1:2379', '--cacert=/etc/kubernetes/pki/etcd/ca.crt',
      '--cert=/etc/kubernetes/pki/etcd/server.crt', '--key=/etc/kubernetes/pki/etcd/server.key', 'member', 'list');
    assert.equal(members.trim().split('\n').filter((l) => l.includes(', started, ')).length, 3, members);
    const vip = execFileSync('ssh', ['-F', env.LAB_SSH_CONFIG!, 'labs-k8s-balancer', 'ip -br addr show ens192'], { encoding: 'utf8' });
    assert.match(vip, /10\.3\.60\.100\//);
    assert.match(readFileSync(kubeconfig, 'utf8'), /labs-k8s-admin@labs-k8s/);
    const facts = cli(['facts', '--json']);
    const json = JSON.parse(facts.out.slice(facts.out.indexOf('{'), facts.out.lastIndexOf('}') + 1));
    assert.deepEqual(json.findings.filter((f: { severity: string }) => f.severity === 'error'), [], 'after bring-up the facts find nothing wrong');
  });

  test('no bootstrap token or certificate key in any run log or in the output', () => {
    const runs = join(dirname(env.LAB_INVENTORY!), '.kubeadm-workbench', 'runs');
    const logs = readdirSync(runs).filter((f) => f.endsWith('.log') || f.endsWith('.json'));
    assert.ok(logs.length >= 2, `run logs in ${runs}`);
    for (const f of logs) assert.deepEqual(secretsIn(readFileSync(join(runs, f), 'utf8')), [], f);
  });

  test('a second up finds every step done and changes nothing', () => {
    const r = cli(['up', '--yes', '--fresh', '--kubeconfig', kubeconfig]);
    report.secondUpSeconds = r.seconds;
    assert.equal(r.code, 0, r.out.slice(-3000));
    assert.deepEqual(secretsIn(r.out), []);
    assert.doesNotMatch(r.out, /kubeadm init --config .* \(\d/, 'init did not run again');
    assert.match(r.out, /kubeadm init --upload-certs: already done, skipped/);
  });
});
