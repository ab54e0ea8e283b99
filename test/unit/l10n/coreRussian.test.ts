/**
 * What the core and the engine write, read in Russian with the shipped bundle: every way a connection, a login or
 * sudo can fail (the taxonomy's cause and fix), the preflight's table, verdict and cluster checks, the bring-up plan's
 * phases, steps and reasons as the plan document shows them, what a failed run advises, the kubectl run timeline's
 * lanes, steps and stalls, the live views' component and member states, and the host facts' findings. A text left
 * English inside a Russian frame fails here; identifiers, commands and paths inside a Russian sentence are expected.
 * English is what the other unit files assert, byte for byte.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describeSshFailure, describeSudoFailure, type HandshakeFacts, type KeyOffer } from '../../../src/core/ssh/failures';
import { checkTitles, failedCheck, okCheck, skipped, summaryLine, type PreflightReport } from '../../../src/core/preflight/model';
import { renderPreflightTable } from '../../../src/core/preflight/render';
import { clusterCheck, clusterFix } from '../../../src/core/preflight/clusterChecks';
import { parseInventory } from '../../../src/core/inventory/parse';
import { joinControlPlanePhases, joinWorkersPhases, loadBalancerPhase, preparePhase } from '../../../src/core/phases/bringUp';
import type { PhaseConfigs } from '../../../src/core/phases/configs';
import { renderPlan } from '../../../src/core/plan/types';
import { adviceLines } from '../../../src/engine/advice';
import { failureMessage } from '../../../src/engine/workflows/planRunWorkflow';
import { buildTimeline, explainStall, laneTitles, type PodSnapshot } from '../../../src/core/timeline/model';
import { describeComponent, memberFacts } from '../../../src/core/live/render';
import type { ComponentPod } from '../../../src/core/live/controlPlane';
import type { EtcdMember } from '../../../src/core/live/etcd';
import { assessHealth } from '../../../src/core/live/health';
import { analyzeFacts, type HostFacts } from '../../../src/core/phases/facts';
import { ROOT } from '../haproxy/helpers';
import { CYRILLIC, english, inRussian } from './inRussian';


const at = { hostname: '10.3.60.11', port: 22, user: 'debian' };
const keys = (...states: KeyOffer['state'][]): KeyOffer[] => states.map((state, i) => ({ source: state.startsWith('agent') ? 'agent' : `/home/debian/.ssh/id_${i}`, state, offered: state === 'loaded' || state === 'agent', socket: '/run/agent.sock' }));
const HANDSHAKES: Record<string, HandshakeFacts> = {
  restricted: { ...at, stage: 'connect', restricted: true },
  config: { ...at, stage: 'connect', configError: 'Include loops' },
  forward: { ...at, stage: 'connect', forwardError: { via: 'bastion', message: '(SSH) Channel open failure: Connection refused' }, hop: { index: 2, of: 2, alias: 'm01' } },
  dns: { ...at, stage: 'connect', error: { code: 'ENOTFOUND' } },
  dnsAgain: { ...at, stage: 'connect', error: { code: 'EAI_AGAIN' } },
  refused: { ...at, stage: 'connect', error: { code: 'ECONNREFUSED' } },
  timeout: { ...at, stage: 'connect', timedOut: true, timeoutMs: 4000 },
  banner: { ...at, stage: 'connect', timedOut: true, tcpUp: true },
  noRoute: { ...at, stage: 'connect', error: { code: 'ENETUNREACH' } },
  closed: { ...at, stage: 'connect', error: { code: 'ECONNRESET' } },
  closedLater: { ...at, stage: 'auth', error: { code: 'ECONNRESET' } },
  other: { ...at, stage: 'connect', error: { message: 'odd' } },
  unknownKey: { ...at, stage: 'connect', hostKey: { status: 'unknown', keyType: 'ssh-ed25519', fingerprint: 'SHA256:x', note: 'HostKeyAlias m01' } },
  changedKey: { ...at, stage: 'connect', hostKey: { status: 'changed', keyType: 'ssh-ed25519', fingerprint: 'SHA256:x', file: '/home/debian/.ssh/known_hosts', line: 3 } },
  revokedKey: { ...at, stage: 'connect', hostKey: { status: 'revoked', keyType: 'ssh-ed25519', fingerprint: 'SHA256:x' } },
  keyError: { ...at, stage: 'connect', hostKey: { status: 'error' }, error: { message: 'bad line' } },
  passwordOnly: { ...at, stage: 'auth', error: { level: 'client-authentication' }, methodsLeft: ['password'], keys: keys('loaded') },
  notAccepted: { ...at, stage: 'auth', error: { level: 'client-authentication' }, keys: keys('loaded', 'agent') },
  encrypted: { ...at, stage: 'auth', error: { level: 'client-authentication' }, keys: keys('encrypted', 'missing', 'unreadable', 'not-a-key', 'public-only', 'passphrase-refused') },
  deadAgent: { ...at, stage: 'auth', error: { level: 'client-authentication' }, keys: keys('missing', 'agent-unavailable'), agentError: 'ECONNREFUSED' },
  noKey: { ...at, stage: 'auth', error: { level: 'client-authentication' }, keys: [] },
};
const SUDO: Record<string, { code: number | null; stderr: string; withPassword?: boolean }> = {
  missing: { code: 127, stderr: 'sudo: command not found' },
  denied: { code: 1, stderr: 'debian is not in the sudoers file.' },
  wrong: { code: 1, stderr: 'Sorry, try again.', withPassword: true },
  password: { code: 1, stderr: 'sudo: a password is required' },
  other: { code: null, stderr: 'killed' },
};

test('the SSH failure taxonomy speaks Russian: every cause, fix and hop of connections, host keys, logins and sudo', () => {
  inRussian(() => {
    const left: string[] = [];
    for (const [name, facts] of Object.entries(HANDSHAKES)) {
      const f = describeSshFailure(facts);
      left.push(...english({ [`${name} cause`]: f.cause, [`${name} fix`]: f.fix, [`${name} hop`]: f.hop, [`${name} reason`]: f.reason }));
    }
    for (const [name, s] of Object.entries(SUDO)) {
      const f = describeSudoFailure({ user: 'debian', host: 'm01', withPassword: false, ...s })!;
      left.push(...english({ [`sudo ${name} cause`]: f.cause, [`sudo ${name} fix`]: f.fix }));
    }
    assert.deepEqual(left, []);
    // the commands to copy stay commands
    assert.equal(describeSshFailure(HANDSHAKES.refused!).command, 'nc -vz 10.3.60.11 22');
  });
});

function report(): PreflightReport {
  const unknown = describeSshFailure(HANDSHAKES.unknownKey!);
  return {
    cluster: 'labs-k8s', operation: 'Bring Up', at: '2026-01-01T00:00:00.000Z', ms: 4200,
    hosts: [
      { host: 'm01', address: '10.3.60.11', target: 'debian@10.3.60.11', via: ['bastion'], ms: 12, checks: [okCheck('ssh-config', 'x'), failedCheck('reach', describeSshFailure(HANDSHAKES.refused!)), ...skipped(['host-key', 'login', 'sudo'], 'reach')] },
      { host: 'm02', address: '10.3.60.12', target: 'debian@10.3.60.12', via: [], ms: 9, checks: [failedCheck('host-key', unknown)], unknownKey: { host: 'm02', alias: 'm02', address: '10.3.60.12', keyType: 'ssh-ed25519', fingerprint: 'SHA256:x', check: 'ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub' } },
      { host: 'w01', address: '10.3.60.21', target: 'debian@10.3.60.21', via: [], ms: 7, checks: [failedCheck('sudo', describeSudoFailure({ user: 'debian', host: 'w01', withPassword: false, ...SUDO.password! })!, 'warn')] },
    ],
    clusterChecks: [clusterCheck.kubeconfigUnusable('no-kubeconfig', 'x', clusterFix.cliKubeconfig()), clusterCheck.apiSkipped()],
  };
}

test('the preflight speaks Russian: check names, the table, each cause and fix, the verdict, the cluster checks', () => {
  inRussian(() => {
    assert.deepEqual(english(checkTitles()).filter((t) => !/^(sudo|kubeconfig): /.test(t)), [], 'check names');
    const r = report();
    const table = renderPreflightTable(r);
    // Each line has a Russian word, but for the host rows (names and marks) and the unknown key's own line.
    const lines = table.split('\n').filter((l) => l.trim() && !/^(m01|m02|w01)\s/.test(l));
    assert.deepEqual(lines.filter((l) => !CYRILLIC.test(l)), [], table);
    assert.match(summaryLine(r), /^не проходят предварительные проверки хостов: 2 из 3 и проверка кластера «kubeconfig» не пройдена — первая причина: m01: /);
    const cluster = [
      clusterCheck.kubeconfigOk('c', ['/k']), clusterCheck.kubeconfigFound(), clusterCheck.noKubeconfigFile(['/k'], clusterFix.editorKubeconfig()),
      clusterCheck.noContextForEndpoint(['/k'], '10.3.60.10:6443', clusterFix.cliKubeconfig()), clusterCheck.contextOfOtherCluster('c', 'https://x', '10.3.60.10:6443', clusterFix.editorKubeconfig()),
      clusterCheck.untrusted(), clusterCheck.apiSkipped(), clusterCheck.apiAnswers('https://x'), clusterCheck.apiReadyz('10.3.60.10:6443', 500),
      clusterCheck.apiSilent('timeout', '10.3.60.10:6443', 'x', clusterFix.editorVip('10.3.60.10:6443'), false), clusterCheck.apiSilent('timeout', '10.3.60.10:6443', 'x', clusterFix.cliVip('10.3.60.10:6443'), true),
    ];
    assert.deepEqual(cluster.flatMap((c, i) => english({ [`${i} detail`]: c.detail, [`${i} cause`]: c.cause === 'x' ? undefined : c.cause, [`${i} fix`]: c.fix })).filter((t) => !/detail: \/k$|detail: 10\.3\.60\.10:6443$/.test(t)), []);
  });
});

const inv = parseInventory(readFileSync(join(ROOT, 'examples/labs-k8s/inventory.yaml'), 'utf8')).inventory!;
const configs: PhaseConfigs = {
  modules: 'overlay\n', nodeSysctl: 'net.ipv4.ip_forward = 1\n', balancerSysctl: 'net.ipv4.ip_nonlocal_bind = 1\n',
  containerdConfig: 'version = 2\n', containerdHosts: {}, haproxyConfig: 'global\n', keepalivedConfig: { 'labs-k8s-balancer': 'vrrp_instance X {}\n' }, kubeadmInitConfig: 'kind: InitConfiguration\n',
};
/** Step titles that are a command or component names, the same words in Russian. */
const COMMAND_TITLE = /^(kubeadm (init|join)|HAProxy, Keepalived and killall$)/;

test('the bring-up plan speaks Russian: phase and step titles, reasons and warnings, the plan document\'s words', () => {
  inRussian(() => {
    const sources = { cniManifest: 'kind: List\n', ignorePreflightErrors: [] };
    const phases = [preparePhase(inv, configs, sources), loadBalancerPhase(inv, configs, sources), ...joinControlPlanePhases(inv, sources), ...joinWorkersPhases(inv, sources)];
    const left = phases.flatMap((p) => [
      ...english({ [`phase ${p.phase}`]: p.title }),
      ...p.warnings.flatMap((w) => english({ warning: w })),
      ...p.steps.flatMap((s) => english({ [s.id]: COMMAND_TITLE.test(s.title) ? undefined : s.title, [`${s.id} why`]: s.why })),
    ]);
    assert.deepEqual(left, []);
    assert.ok(phases.flatMap((p) => p.steps).length > 20);
    // The plan document: each line of words (not the commands themselves) in Russian.
    const words = renderPlan({ fingerprint: 'x', phases }).split('\n').filter((l) => /^ {4}(skip|write|run|do|verify)/.test(l));
    assert.deepEqual(words, [], 'the plan document\'s labels');
  });
});

test('a failed run advises in Russian: the failure message, the cause, the way out with the front end\'s own words', () => {
  inRussian(() => {
    const step = preparePhase(inv, configs, { cniManifest: '', ignorePreflightErrors: [] }).steps[0]!;
    const advice = { where: `${step.host}: ${step.title}`, repeated: false, cause: 'x', fix: 'y' };
    const message = failureMessage('Развёртывание labs-k8s', advice.where, { ok: false, cancelled: false, failed: { step, error: '`apt-get update` exited 100: E: boom' }, advice } as never);
    assert.match(message, /^Развёртывание labs-k8s: ошибка на шаге labs-k8s-m01: Метка установки .* \(вывод: E: boom\)\. Вероятная причина: x\. Что делать: y\.$/);
    assert.deepEqual(adviceLines(advice, 'выберите «Продолжить»', 'выберите «Начать заново»').filter((l) => !/^(вероятная причина|что делать|выход): /.test(l)), []);
  });
});

test('the timeline and the live views speak Russian: lanes, the client\'s and the API server\'s steps, a stall, component and member states', () => {
  inRussian(() => {
    const T = Date.parse('2026-11-30T10:00:00Z');
    const pod: PodSnapshot = { name: 'web', namespace: 'default', uid: 'u', creationTimestamp: new Date(T).toISOString(), phase: 'Pending' };
    const client = { createSentAt: T + 180, createdAt: T + 202, bindingObservedAt: T + 2660, runningObservedAt: T + 2680 };
    const timeline = buildTimeline({ ...pod, nodeName: 'w01' }, [], client, T + 5000);
    assert.ok(timeline.entries.length >= 5, `${timeline.entries.length} steps`);
    assert.deepEqual(english(Object.fromEntries(timeline.entries.map((e) => [e.step, e.label]))), []);
    assert.deepEqual(english({ ...laneTitles(), kubectl: undefined, kubelet: undefined }), []);
    const stall = explainStall(pod, [], client, T + 60_000)!;
    assert.deepEqual(english({ summary: stall.summary, message: stall.messages[0] }), []);
    const component = { component: 'kube-apiserver', podName: 'kube-apiserver-m01', present: true, phase: 'Running', readyContainers: 1, totalContainers: 1, ready: true, restarts: 0, ageMs: 60_000, mirror: true, source: 'file', mirrorStale: true, stale: true } as unknown as ComponentPod;
    // kubectl's words stay (Running, the age): every part we add is Russian
    assert.deepEqual(describeComponent(component).split(' · ').slice(2).filter((p) => !/^(\d+\w+)$/.test(p) && !CYRILLIC.test(p)), []);
    const member = { name: 'm01', id: '1', reachable: false, unreachableSince: T, lastSeen: { role: 'leader', version: '3.5.21', at: T }, isLearner: false, alarms: [], healthy: false } as unknown as EtcdMember;
    assert.deepEqual(memberFacts(member, T + 9000).filter((f) => !CYRILLIC.test(f)), []);
    assert.deepEqual(memberFacts({ ...member, reachable: true, isLeader: true } as EtcdMember, T).slice(0, 2).filter((f) => !CYRILLIC.test(f)), []);
    const unreachable = assessHealth({ reach: { ok: false, failure: 'refused' } } as never);
    const degraded = assessHealth({ reach: { ok: true, ms: 3 }, verdict: { degraded: true, summary: 'x', problems: [{ severity: 'critical', what: 'x' }, { severity: 'critical', what: 'y' }] } } as never);
    const healthy = assessHealth({ reach: { ok: true, ms: 3 }, identity: { username: 'kubernetes-admin', groups: [] }, verdict: { degraded: false, summary: 'x', problems: [{ severity: 'warning', what: 'w' }] } } as never);
    assert.deepEqual(english({ unreachable: unreachable.headline, degraded: degraded.headline, healthy: healthy.headline }), []);
  });
});

test('the host facts\' findings speak Russian: each message and why, as the Problems panel shows them', () => {
  inRussian(() => {
    const facts = inv.hosts.map((h, i): HostFacts => ({
      host: h.name, hostname: `${h.name}-x`, machineId: 'same', productUuid: 'same', hostKeyFingerprints: ['SHA256:same'], os: { id: 'ubuntu', versionId: '24.04' },
      swapActive: i % 2 ? ['/swapfile'] : [], swapInFstab: ['/swapfile'], modules: { overlay: false, br_netfilter: false },
      sysctl: { 'net.ipv4.ip_forward': '0', 'net.ipv4.ip_nonlocal_bind': '0' }, heldPackages: [], addresses: [{ iface: 'eth9', cidr: '192.0.2.1/24' }],
      joined: { kubeletConf: false, adminConf: false, etcd: false }, timeSynchronized: false, ...(i % 2 ? { timeService: 'chrony' } : {}),
      containerd: { active: true, systemdCgroup: false }, kubelet: { active: true, cgroupDriver: 'cgroupfs', version: 'v1.0.0' }, kubeadmVersion: 'v1.0.0',
    } as HostFacts));
    const findings = analyzeFacts(inv, facts);
    assert.ok(new Set(findings.map((f) => f.rule)).size >= 14, `${new Set(findings.map((f) => f.rule)).size} rules`);
    assert.deepEqual(findings.flatMap((f) => english({ [`${f.rule} message`]: f.message, [`${f.rule} why`]: f.why })), []);
  });
});
