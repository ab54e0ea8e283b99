import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { parseInventory } from '../../../src/core/inventory/parse';
import { caCertHash, initPhase, joinControlPlanePhases, joinWorkersPhases, loadBalancerPhase, preparePhase, sameContent } from '../../../src/core/phases/bringUp';
import type { PhaseConfigs, PhaseSources } from '../../../src/core/phases/configs';
import { renderPlan, type PhasePlan } from '../../../src/core/plan/types';
import { LocalExecutor } from '../../../src/adapters/local/localExecutor';
import { replayedShellText, sh as shell, type RemoteCommand } from '../../../src/core/ssh/command';
import { tempDir } from '../../tempDir';

const inv = parseInventory(readFileSync(join(__dirname, '../../../examples/labs-k8s/inventory.yaml'), 'utf8')).inventory!;
const configs: PhaseConfigs = {
  modules: 'overlay\nbr_netfilter\n', nodeSysctl: 'net.ipv4.ip_forward = 1\n', balancerSysctl: 'net.ipv4.ip_nonlocal_bind = 1\n',
  containerdConfig: 'version = 2\n', containerdHosts: {}, haproxyConfig: 'global\n', keepalivedConfig: { 'labs-k8s-balancer': 'vrrp_instance X {}\n' }, kubeadmInitConfig: 'kind: InitConfiguration\n',
};
const sources: PhaseSources = { cniManifest: 'kind: List\n', ignorePreflightErrors: ['SystemVerification'] };

test('the CA hash equals the one kubeadm documents (openssl pipeline over the public key)', () => {
  const dir = tempDir('kw-ca-');
  execSync(`openssl req -x509 -newkey rsa:2048 -nodes -keyout ${dir}/ca.key -out ${dir}/ca.crt -subj /CN=kubernetes -days 1 2>/dev/null`);
  const expected = execSync(`openssl x509 -pubkey -noout -in ${dir}/ca.crt | openssl rsa -pubin -outform der 2>/dev/null | sha256sum`, { encoding: 'utf8' }).split(' ')[0];
  assert.equal(caCertHash(readFileSync(`${dir}/ca.crt`, 'utf8')), `sha256:${expected}`);
});

test('sameContent compares a host file by hash on the host', async () => {
  const dir = tempDir('kw-same-');
  execSync(`printf 'version = 2\\n' > ${dir}/config.toml`);
  const ex = new LocalExecutor();
  assert.equal((await ex.exec('local', sameContent(`${dir}/config.toml`, 'version = 2\n'), {})).code, 0);
  assert.notEqual((await ex.exec('local', sameContent(`${dir}/config.toml`, 'version = 3\n'), {})).code, 0);
});

test('prepare covers every node and not the balancer, with pinned, held packages', () => {
  const phase = preparePhase(inv, configs, sources);
  const hosts = new Set(phase.steps.map((s) => s.host));
  assert.deepEqual([...hosts], ['labs-k8s-m01', 'labs-k8s-m02', 'labs-k8s-m03', 'labs-k8s-w01', 'labs-k8s-w02']);
  const text = renderPlan({ fingerprint: 'x', phases: [phase] });
  assert.match(text, /kubelet=1\.30\.14-\\?\*? ?/);
  assert.match(text, /apt-mark hold kubelet kubeadm kubectl/);
  assert.match(text, /swapoff -a/);
});

test('every node gets /etc/crictl.yaml naming containerd\'s socket, and a second run leaves it alone', async () => {
  const steps = preparePhase(inv, configs, sources).steps.filter((s) => s.id.endsWith('/crictl'));
  assert.equal(steps.length, 5);
  const file = steps[0]!.files![0]!;
  assert.equal(file.path, '/etc/crictl.yaml');
  assert.deepEqual(parseYaml(String(file.content)), { 'runtime-endpoint': 'unix:///run/containerd/containerd.sock', 'image-endpoint': 'unix:///run/containerd/containerd.sock', timeout: 10 });
  // The check is the file's content: with it in place the step is skipped (nothing restarts on a running node).
  const dir = tempDir('kw-crictl-');
  writeFileSync(join(dir, 'crictl.yaml'), String(file.content));
  const check = shell`${replayedShellText(steps[0]!.check!.text.replaceAll('/etc/crictl.yaml', join(dir, 'crictl.yaml')))}`;
  assert.equal((await new LocalExecutor().exec('local', check, {})).code, 0);
  writeFileSync(join(dir, 'crictl.yaml'), 'runtime-endpoint: unix:///run/crio/crio.sock\n');
  assert.notEqual((await new LocalExecutor().exec('local', check, {})).code, 0);
});

test('the load balancer phase validates HAProxy before replacing its config and checks the VIP on the MASTER', () => {
  const text = renderPlan({ fingerprint: 'x', phases: [loadBalancerPhase(inv, configs, sources)] });
  assert.match(text, /haproxy -c -q -f \/etc\/haproxy\/haproxy\.cfg\.kubeadm-workbench && mv/);
  assert.match(text, /\[labs-k8s-balancer\] VIP 10\.3\.60\.100 is up on the MASTER/);
});

test('control-plane joins are serial with an etcd health gate after each, secrets never in the plan', () => {
  const [credentials, phase] = joinControlPlanePhases(inv, sources) as [PhasePlan, PhasePlan];
  // The credentials need init only: made beside the other nodes' image pulls (phase prepare), not after them.
  assert.deepEqual(credentials.steps.map((s) => `${s.host}:${s.id.split('/').pop()}`), ['labs-k8s-m01:ca-hash', 'labs-k8s-m01:token', 'labs-k8s-m01:certificate-key']);
  assert.deepEqual(credentials.overlaps, ['prepare']);
  assert.equal(phase.order, 'serial');
  assert.equal(phase.overlaps, undefined, 'the joins wait for their nodes\' images');
  const order = phase.steps.map((s) => `${s.host}:${s.id.split('/').pop()}`);
  assert.deepEqual(order, [
    'labs-k8s-m02:no-kubeadm-running', 'labs-k8s-m01:forget-partial-labs-k8s-m02', 'labs-k8s-m02:join', 'labs-k8s-m01:etcd-healthy-labs-k8s-m02',
    'labs-k8s-m03:no-kubeadm-running', 'labs-k8s-m01:forget-partial-labs-k8s-m03', 'labs-k8s-m03:join', 'labs-k8s-m01:etcd-healthy-labs-k8s-m03',
    // The next join waits for etcd only; Ready (the CNI on the node) is checked once all have joined.
    'labs-k8s-m01:ready-labs-k8s-m02', 'labs-k8s-m01:ready-labs-k8s-m03',
  ]);
  assert.match(phase.warnings[0]!, /tolerates no failure/);
  const text = renderPlan({ fingerprint: 'x', phases: [credentials, phase, ...joinWorkersPhases(inv, sources)] });
  assert.match(text, /--token \*\*\* .* --control-plane --certificate-key \*\*\*/);
  // With values a join command quotes and hides its secrets.
  const join = phase.steps.find((s) => s.id.endsWith('m02/join'))!;
  const cmd = (join.run as (v: { get(k: string): string | undefined }) => { text: string; display: string })({ get: (k) => ({ token: 'abcdef.0123456789abcdef', caHash: 'sha256:' + 'a'.repeat(64), certificateKey: 'f'.repeat(64) })[k] });
  assert.match(cmd.text, /abcdef\.0123456789abcdef/);
  assert.doesNotMatch(cmd.display, /0123456789abcdef|ffffffff/);
});

test('workers get credentials first, then join in parallel, then are checked Ready', () => {
  const phases = joinWorkersPhases(inv, sources);
  assert.deepEqual(phases.map((p) => p.order), ['serial', 'parallel', 'serial']);
  assert.deepEqual(phases[1]!.steps.map((s) => s.host), ['labs-k8s-w01', 'labs-k8s-w02']);
  const init = initPhase(inv, configs, sources, { saveAdminKubeconfig: async () => {} });
  assert.match(renderPlan({ fingerprint: 'x', phases: [init] }), /kubeadm init --config \/root\/kubeadm-config\.yaml --upload-certs --ignore-preflight-errors=SystemVerification/);
});

test('the user\'s extra kubeadm documents replace a generated one of the same kind and append new kinds', async () => {
  const { mergeKubeadmDocuments } = await import('../../../src/core/generate/mergeDocuments.js');
  const generated = '# header\napiVersion: kubeadm.k8s.io/v1beta4\nkind: InitConfiguration\n---\napiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\ncgroupDriver: systemd\n';
  const extra = 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\ncgroupDriver: systemd\nmaxPods: 50\n---\napiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nconntrack:\n  maxPerCore: 0\n';
  const merged = mergeKubeadmDocuments(generated, extra);
  assert.equal((merged.match(/kind: KubeletConfiguration/g) ?? []).length, 1);
  assert.match(merged, /maxPods: 50/);
  assert.match(merged, /kind: KubeProxyConfiguration\nconntrack:\n  maxPerCore: 0/);
  assert.match(merged, /^# header/);
  assert.throws(() => mergeKubeadmDocuments(generated, 'foo: [1'), /kubeadm extra config/);
  assert.throws(() => mergeKubeadmDocuments(generated, 'foo: 1\n'), /apiVersion and kind/);
});

/**
 * The forget step for m02 against a stand-in kubectl that answers like the API and etcdctl (control-plane
 * Nodes, all Nodes, the member list) and logs what it is asked to remove: below the lab test that kills a
 * real bring-up in the middle of m02's join and resumes it.
 */
async function forgetM02(cluster: { controlPlanes: string[]; nodes: string[]; members: string; apiDown?: boolean }) {
  const { writeFileSync, chmodSync, existsSync } = await import('node:fs');
  const { sh } = await import('../../../src/core/ssh/command.js');
  const forget = joinControlPlanePhases(inv, sources).flatMap((p) => p.steps).find((s) => s.id.endsWith('forget-partial-labs-k8s-m02'))!;
  const dir = tempDir('kw-kubectl-');
  const calls = join(dir, 'calls');
  const lines = (names: string[]) => names.map((n) => `node/${n}`).join('\\n');
  writeFileSync(join(dir, 'kubectl'), `#!/bin/sh
${cluster.apiDown ? 'echo "The connection to the server 10.3.60.100:6443 was refused" >&2; exit 1' : ''}
case "$*" in
  *"member list"*) cat <<'END'
${cluster.members}
END
  ;;
  *"member remove"*) echo "member remove \${*##* }" >> ${calls} ;;
  *" delete "*) echo "delete $(echo "$*" | grep -o 'node/[^ ]*')" >> ${calls} ;;
  *"get nodes -l node-role.kubernetes.io/control-plane"*) printf '${lines(cluster.controlPlanes)}\\n' ;;
  *"get nodes -o name"*) printf '${lines(cluster.nodes)}\\n' ;;
esac
`);
  chmodSync(join(dir, 'kubectl'), 0o755);
  // The steps retry kubectl 3 s apart: no waiting here.
  writeFileSync(join(dir, 'sleep'), '#!/bin/sh\n');
  chmodSync(join(dir, 'sleep'), 0o755);
  const ex = new LocalExecutor();
  const skipped = (await ex.exec('local', sh`PATH=${dir}:"$PATH"; ${forget.check!}`, {})).code === 0;
  let stderr = '';
  const run = await ex.exec('local', sh`PATH=${dir}:"$PATH"; ${forget.run as ReturnType<typeof sh>}`, { onStderr: (t) => (stderr += t) });
  return { skipped, code: run.code, stderr, removed: existsSync(calls) ? readFileSync(calls, 'utf8').trim().split('\n') : [] };
}

const M01 = 'a1, started, labs-k8s-m01, https://10.3.60.51:2380, https://10.3.60.51:2379, false';

test('a finished join is never undone: the host is a control-plane node, its started member stays (even when its host is down)', async () => {
  const r = await forgetM02({ controlPlanes: ['labs-k8s-m01', 'labs-k8s-m02'], nodes: ['labs-k8s-m01', 'labs-k8s-m02'], members: `${M01}\nb2, started, labs-k8s-m02, https://10.3.60.52:2380, https://10.3.60.52:2379, false` });
  assert.equal(r.skipped, true);
  assert.equal(r.code, 0);
  assert.deepEqual(r.removed, []);
});

test('nothing of the host in etcd or among the Nodes (a first join): skipped', async () => {
  const r = await forgetM02({ controlPlanes: ['labs-k8s-m01'], nodes: ['labs-k8s-m01'], members: M01 });
  assert.equal(r.skipped, true);
});

test('an interrupted join\'s member is removed whatever its state (unstarted, learner, promoted voter), then its Node', async () => {
  for (const m02 of [
    'b2, unstarted, , https://10.3.60.52:2380, , true',
    'b2, started, labs-k8s-m02, https://10.3.60.52:2380, https://10.3.60.52:2379, true',
    'b2, started, labs-k8s-m02, https://10.3.60.52:2380, https://10.3.60.52:2379, false',
  ]) {
    const r = await forgetM02({ controlPlanes: ['labs-k8s-m01'], nodes: ['labs-k8s-m01', 'labs-k8s-m02'], members: `${M01}\n${m02}` });
    assert.equal(r.skipped, false, m02);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(r.removed, ['member remove b2', 'delete node/labs-k8s-m02'], m02);
  }
});

test('another host\'s member is not this step\'s business', async () => {
  const r = await forgetM02({ controlPlanes: ['labs-k8s-m01'], nodes: ['labs-k8s-m01'], members: `${M01}\nc3, unstarted, , https://10.3.60.53:2380, , true` });
  assert.equal(r.skipped, true);
});

test('when the API cannot be asked, the forget step runs (its check fails) and removes nothing, naming the host', async () => {
  const r = await forgetM02({ controlPlanes: [], nodes: [], members: '', apiDown: true });
  assert.equal(r.skipped, false);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /cannot ask the API whether labs-k8s-m02 is a control-plane node; nothing removed/);
  assert.deepEqual(r.removed, []);
});

/**
 * The interrupted-join logic of a join step, run here with /bin/sh: /etc/kubernetes becomes a temp
 * folder and kubectl, kubeadm and systemctl are stand-ins that log their arguments (the lab test runs
 * the real ones after killing a bring-up in the middle of a control-plane join).
 */
type Leftovers = 'none' | 'control-plane' | 'worker-before-kubelet-conf' | 'worker-with-kubelet-conf';
/**
 * A host for one step's shell: /etc/kubernetes and /var/lib/etcd are folders of a temp dir (a reset empties
 * /var/lib/etcd, and this machine's must never be touched), and the given commands are stand-ins on PATH that log
 * their arguments; `sleep` returns at once (the steps retry kubectl 3 s apart).
 */
function standInHost(prefix: string, files: string[], etcdData: boolean, stubs: Record<string, string>) {
  const dir = tempDir(prefix);
  const etc = join(dir, 'etc-kubernetes');
  mkdirSync(join(etc, 'manifests'), { recursive: true });
  mkdirSync(join(etc, 'pki'));
  for (const f of files) writeFileSync(join(etc, f), '');
  const etcdDir = join(dir, 'var-lib-etcd');
  if (etcdData) {
    mkdirSync(join(etcdDir, 'member'), { recursive: true });
    writeFileSync(join(etcdDir, 'member', 'wal'), 'written by the etcd of the interrupted run');
  }
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  const calls = join(dir, 'calls');
  // Helpers that are not the host's actions, unrecorded: sleep, and pgrep finding no kubeadm of an earlier run (the
  // real pgrep sees this machine's processes — a lab node's kubeadm while the lab tier runs).
  const quiet: Record<string, string> = { sleep: '', pgrep: 'exit 1' };
  for (const [name, body] of Object.entries({ ...quiet, ...stubs })) {
    writeFileSync(join(bin, name), `#!/bin/sh\n${name in quiet && !(name in stubs) ? '' : `echo "${name} $*" >> ${calls}\n`}${body}\n`, { mode: 0o755 });
  }
  return {
    run: async (command: RemoteCommand) => {
      const text = command.text.split('/etc/kubernetes').join(etc).split('/var/lib/etcd').join(etcdDir);
      let stderr = '';
      const r = await new LocalExecutor().exec('local', shell`PATH=${bin}:"$PATH"; ${replayedShellText(text)}`, { onStderr: (t) => (stderr += t) });
      return { code: r.code, stderr };
    },
    calls: () => (existsSync(calls) ? readFileSync(calls, 'utf8').trim().split('\n') : []),
    etcdDataLeft: () => existsSync(join(etcdDir, 'member')),
  };
}

async function runJoinStep(stepId: string, opts: { leftovers: Leftovers; api: 'control-plane' | 'not-yet' | 'down' }) {
  const files = {
    none: [],
    'control-plane': ['kubelet.conf', 'admin.conf', 'manifests/etcd.yaml'],
    'worker-before-kubelet-conf': ['bootstrap-kubelet.conf', 'pki/ca.crt'],
    'worker-with-kubelet-conf': ['kubelet.conf'],
  }[opts.leftovers];
  const nodes = opts.api === 'control-plane' ? 'node/labs-k8s-m01\nnode/labs-k8s-m02' : 'node/labs-k8s-m01';
  const host = standInHost('kw-join-', files, true, {
    kubectl: opts.api === 'down' ? 'echo "The connection to the server 10.3.60.100:6443 was refused" >&2; exit 1' : `case "$*" in *"get nodes"*) printf '${nodes}\\n';; esac`,
    kubeadm: '',
    systemctl: '',
  });
  const all = [...joinControlPlanePhases(inv, sources).flatMap((p) => p.steps), ...joinWorkersPhases(inv, sources).flatMap((p) => p.steps)];
  const step = all.find((s) => s.id === stepId)!;
  const values = { get: (k: string) => ({ token: 'abcdef.0123456789abcdef', caHash: 'sha256:' + 'a'.repeat(64), certificateKey: 'f'.repeat(64) })[k] };
  const r = await host.run(typeof step.run === 'function' ? step.run(values) : step.run!);
  return { ...r, calls: host.calls(), etcdDataLeft: host.etcdDataLeft() };
}

test('a control-plane join finds a clean host and only joins', async () => {
  const r = await runJoinStep('join-control-plane/labs-k8s-m02/join', { leftovers: 'none', api: 'not-yet' });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.calls.length, 1, r.calls.join('\n'));
  assert.match(r.calls[0]!, /^kubeadm join 10\.3\.60\.100:6443 .* --control-plane /);
});

test('what an interrupted control-plane join left on the host is reset before the join, once the API says the host is no control-plane node', async () => {
  const r = await runJoinStep('join-control-plane/labs-k8s-m02/join', { leftovers: 'control-plane', api: 'not-yet' });
  assert.equal(r.code, 0, r.stderr);
  const order = r.calls.map((c) => c.split(' ').slice(0, 2).join(' '));
  assert.deepEqual(order, ['kubectl --kubeconfig', 'kubeadm reset', 'kubeadm join']);
  assert.equal(r.etcdDataLeft, false, 'what the interrupted etcd wrote after reset emptied the folder is gone before the join');
  assert.match(r.calls[0]!, /get nodes -l node-role\.kubernetes\.io\/control-plane/);
});

test('a host the API lists as a control-plane node is never reset, even when its check failed', async () => {
  const r = await runJoinStep('join-control-plane/labs-k8s-m02/join', { leftovers: 'control-plane', api: 'control-plane' });
  assert.equal(r.code, 0, r.stderr);
  assert.ok(!r.calls.some((c) => /^kubeadm|delete|systemctl/.test(c)), r.calls.join('\n'));
});

test('when the API cannot say whether the host finished joining, nothing is reset and the step fails naming the host', async () => {
  const r = await runJoinStep('join-control-plane/labs-k8s-m02/join', { leftovers: 'control-plane', api: 'down' });
  assert.equal(r.code, 1);
  assert.match(r.stderr, /labs-k8s-m02: an earlier join left files here, and the API cannot tell/);
  assert.ok(!r.calls.some((c) => /^kubeadm|delete|systemctl/.test(c)), r.calls.join('\n'));
});

test('a worker whose join was interrupted before kubelet.conf is reset, then joined; one with kubelet.conf is left alone', async () => {
  const clean = await runJoinStep('join-workers/labs-k8s-w01/join', { leftovers: 'none', api: 'not-yet' });
  assert.deepEqual(clean.calls.map((c) => c.split(' ').slice(0, 2).join(' ')), ['kubeadm join']);
  const partial = await runJoinStep('join-workers/labs-k8s-w01/join', { leftovers: 'worker-before-kubelet-conf', api: 'not-yet' });
  assert.equal(partial.code, 0, partial.stderr);
  assert.deepEqual(partial.calls.map((c) => c.split(' ').slice(0, 2).join(' ')), ['kubeadm reset', 'kubeadm join']);
  const finished = await runJoinStep('join-workers/labs-k8s-w01/join', { leftovers: 'worker-with-kubelet-conf', api: 'not-yet' });
  assert.equal(finished.code, 0, finished.stderr);
  assert.deepEqual(finished.calls, [], 'the kubeadm of the killed run finished the join');
});

test('the etcd gate counts only a voting member: an unpromoted learner of the host does not pass', async () => {
  const { writeFileSync, chmodSync } = await import('node:fs');
  const { sh } = await import('../../../src/core/ssh/command.js');
  const gate = joinControlPlanePhases(inv, sources).flatMap((p) => p.steps).find((s) => s.id.endsWith('etcd-healthy-labs-k8s-m02'))!;
  const withMembers = async (list: string): Promise<number | null> => {
    const dir = tempDir('kw-kubectl-');
    writeFileSync(join(dir, 'kubectl'), `#!/bin/sh\ncase "$*" in *"member list"*) cat <<'EOF'\n${list}\nEOF\n;; esac\n`);
    chmodSync(join(dir, 'kubectl'), 0o755);
    return (await new LocalExecutor().exec('local', sh`PATH=${dir}:"$PATH"; ${gate.verify!}`, {})).code;
  };
  const m01 = 'a1, started, labs-k8s-m01, https://10.3.60.51:2380, https://10.3.60.51:2379, false';
  assert.notEqual(await withMembers(`${m01}\nb2, started, labs-k8s-m02, https://10.3.60.52:2380, https://10.3.60.52:2379, true`), 0, 'a learner is not joined yet');
  assert.equal(await withMembers(`${m01}\nb2, started, labs-k8s-m02, https://10.3.60.52:2380, https://10.3.60.52:2379, false`), 0);
});

test('the join token step waits until cluster-info is signed with the new token, and fails when the token is not created', async () => {
  const dir = tempDir('kw-token-');
  const token = 'abcdef.0123456789abcdef';
  // kubeadm prints the token; kubectl finds the signature only from its third call on (the controller-manager lags).
  writeFileSync(join(dir, 'kubeadm'), `#!/bin/sh\n[ -e ${dir}/fail ] && { echo 'timed out' >&2; exit 1; }\necho ${token}\n`, { mode: 0o755 });
  writeFileSync(join(dir, 'kubectl'), `#!/bin/sh\nn=$(cat ${dir}/calls 2>/dev/null || echo 0); n=$((n+1)); echo $n > ${dir}/calls\ncase "$*" in *jws-kubeconfig-abcdef*) [ $n -ge 3 ] && echo signed ;; esac\nexit 0\n`, { mode: 0o755 });
  const tokenStep = joinWorkersPhases(inv, sources)[0]!.steps.find((s) => s.id.endsWith('/token'))!;
  let out = '';
  const t0 = Date.now();
  const r = await new LocalExecutor().exec('local', shell`PATH=${dir}:"$PATH"; ${tokenStep.run as ReturnType<typeof shell>}`, { onStdout: (t) => (out += t) });
  assert.equal(r.code, 0);
  assert.equal(tokenStep.capture!(out).token, token);
  assert.equal(readFileSync(join(dir, 'calls'), 'utf8').trim(), '3', 'asked until the signature appeared, then stopped');
  assert.ok(Date.now() - t0 >= 900, 'it waited for the signature');
  writeFileSync(join(dir, 'fail'), '');
  const failed = await new LocalExecutor().exec('local', shell`PATH=${dir}:"$PATH"; ${tokenStep.run as ReturnType<typeof shell>}`, {});
  assert.notEqual(failed.code, 0, 'no token: the step fails instead of capturing nothing');
});

/** The init step's interrupted-init logic with /bin/sh, like runJoinStep: /etc/kubernetes is a temp folder, kubectl and kubeadm stand-ins. */
async function runInitStep(opts: { files: string[]; api: 'down' | 'up'; coredns: boolean; nodes: string[]; etcdData?: boolean }) {
  const host = standInHost('kw-init-', opts.files, opts.etcdData ?? true, {
    kubectl: opts.api === 'down' ? 'echo "The connection to the server 10.3.60.100:6443 was refused" >&2; exit 1'
      : `case "$*" in *"get nodes"*) printf '${opts.nodes.map((n) => `node/${n}`).join('\\n')}\\n';; *"deployment coredns"*) ${opts.coredns ? 'echo deployment.apps/coredns' : 'echo NotFound >&2; exit 1'};; esac`,
    kubeadm: '',
  });
  const step = initPhase(inv, configs, sources, { saveAdminKubeconfig: async () => undefined }).steps.find((s) => s.id.endsWith('/kubeadm-init'))!;
  const skipped = (await host.run(step.check!)).code === 0;
  const r = await host.run(step.run as RemoteCommand);
  return { skipped, ...r, kubeadm: host.calls().filter((c) => c.startsWith('kubeadm')).map((c) => c.split(' ').slice(0, 2).join(' ')) };
}

test('an init killed after writing admin.conf is not taken for done: the half-initialised node is reset and init runs again', async () => {
  const bare = await runInitStep({ files: [], api: 'down', coredns: false, nodes: [] });
  assert.equal(bare.skipped, false);
  assert.deepEqual(bare.kubeadm, ['kubeadm init'], 'a bare host is only initialised');
  const early = await runInitStep({ files: ['pki/ca.crt'], api: 'down', coredns: false, nodes: [] });
  assert.deepEqual(early.kubeadm, ['kubeadm reset', 'kubeadm init'], 'killed before admin.conf: nothing of a cluster runs yet');
  const half = await runInitStep({ files: ['admin.conf', 'manifests/etcd.yaml'], api: 'up', coredns: false, nodes: ['labs-k8s-m01'] });
  assert.equal(half.skipped, false, 'admin.conf alone does not make init done');
  assert.equal(half.code, 0, half.stderr);
  assert.deepEqual(half.kubeadm, ['kubeadm reset', 'kubeadm init']);
  // Killed before etcd ever ran: no data, so no cluster to lose — reset even though no API answers.
  const noEtcd = await runInitStep({ files: ['admin.conf', 'manifests/etcd.yaml'], api: 'down', coredns: false, nodes: [], etcdData: false });
  assert.equal(noEtcd.code, 0, noEtcd.stderr);
  assert.deepEqual(noEtcd.kubeadm, ['kubeadm reset', 'kubeadm init']);
});

test('a working first control-plane node is never reset by the init step', async () => {
  const done = await runInitStep({ files: ['admin.conf', 'manifests/etcd.yaml'], api: 'up', coredns: true, nodes: ['labs-k8s-m01', 'labs-k8s-m02'] });
  assert.equal(done.skipped, true, 'init finished: the step is skipped');
  assert.deepEqual(done.kubeadm, [], 'and even when run, it resets nothing');
  const down = await runInitStep({ files: ['admin.conf', 'manifests/etcd.yaml'], api: 'down', coredns: false, nodes: [] });
  assert.equal(down.code, 1);
  assert.match(down.stderr, /labs-k8s-m01: an earlier init left admin\.conf here, and the API does not answer/);
  assert.deepEqual(down.kubeadm, []);
  const joined = await runInitStep({ files: ['admin.conf'], api: 'up', coredns: false, nodes: ['labs-k8s-m01', 'labs-k8s-w01'] });
  assert.equal(joined.code, 1);
  assert.match(joined.stderr, /other nodes have joined this cluster/);
  assert.deepEqual(joined.kubeadm, []);
});

test('cluster.apiServerAuditLog: the policy is uploaded (root, 0600) before kubeadm init and before each control-plane join, and nowhere else', async () => {
  const { phaseConfigs } = await import('../../../src/engine/inputs.js');
  const { buildBringUpPlan, BRING_UP_PHASES } = await import('../../../src/engine/bringUp.js');
  const on = { ...inv, cluster: { ...inv.cluster, apiServerAuditLog: true } };
  const generated = phaseConfigs(on);
  assert.match(generated.auditPolicy ?? '', /kind: Policy/);
  assert.match(generated.kubeadmInitConfig, /audit-policy-file/);
  const plan = buildBringUpPlan(on, BRING_UP_PHASES, generated, sources, { saveAdminKubeconfig: async () => undefined });
  const steps = plan.phases.flatMap((p) => p.steps);
  const uploads = steps.filter((s) => s.files?.some((f) => f.path === '/etc/kubernetes/audit/policy.yaml'));
  assert.deepEqual(uploads.map((s) => s.host), ['labs-k8s-m01', 'labs-k8s-m02', 'labs-k8s-m03']);
  for (const s of uploads) {
    const f = s.files!.find((x) => x.path === '/etc/kubernetes/audit/policy.yaml')!;
    assert.equal(f.mode, 0o600);
    assert.equal(f.content, generated.auditPolicy);
    // Done when the host has this content: a re-run leaves it alone.
    assert.match(s.check!.text, /sha256sum|\/etc\/kubernetes\/audit\/policy\.yaml/);
  }
  const at = (id: string): number => steps.findIndex((s) => s.id === id);
  assert.ok(at('init/labs-k8s-m01/audit-policy') >= 0 && at('init/labs-k8s-m01/audit-policy') < at('init/labs-k8s-m01/kubeadm-init'));
  for (const h of ['labs-k8s-m02', 'labs-k8s-m03']) {
    assert.ok(at(`join-control-plane/${h}/audit-policy`) >= 0 && at(`join-control-plane/${h}/audit-policy`) < at(`join-control-plane/${h}/join`), h);
  }
  // The kubeadm config init uploads (the ClusterConfiguration every join reads) carries the flags.
  const init = steps.find((s) => s.id === 'init/labs-k8s-m01/kubeadm-init')!;
  assert.match(init.files![0]!.content, /audit-log-path/);
  // Off (the default): no policy, no step.
  const off = buildBringUpPlan(inv, BRING_UP_PHASES, phaseConfigs(inv), sources, { saveAdminKubeconfig: async () => undefined });
  assert.equal(off.phases.flatMap((p) => p.steps).filter((s) => s.id.endsWith('/audit-policy')).length, 0);
});
