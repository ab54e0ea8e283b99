/**
 * The day-2 operations read in Russian with the shipped bundle: a drain plan with its refusals and the control-plane
 * guard, the upgrade's preflight findings, version table and failure explanations, a backup manifest that is refused,
 * the snapshot schedule's problems, and the certificate report (its table, findings, summary and the editor's
 * sentence). A sentence left English inside a Russian frame fails here; kubectl's own transcript lines, commands,
 * paths and names are expected. English is what the unit files of each folder assert byte for byte; here the same
 * texts are built again after the Russian run and compared with the first English run.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { useMessages } from '../../../src/core/l10n';
import { parseInventory } from '../../../src/core/inventory/parse';
import { classifyPodsForDrain, DEFAULT_DRAIN_OPTIONS, type DrainPod } from '../../../src/core/drain/classify';
import { checkControlPlaneDrain } from '../../../src/core/drain/controlPlaneGuard';
import { planBlockers, renderDrainPlan, runDrain, type DrainCluster, type DrainPlan } from '../../../src/core/drain/drainNode';
import { maintenanceCommand } from '../../../src/core/drain/maintenance';
import { preflight, renderFindings, versionTable, type UpgradeFacts } from '../../../src/core/upgrade/preflight';
import { SIGNATURES } from '../../../src/core/upgrade/signatures';
import { parseVersion, skewNotes, targetProblems } from '../../../src/core/upgrade/versions';
import { compareManifest, readManifest } from '../../../src/core/backup/manifest';
import { scheduleProblem, scheduleWarning } from '../../../src/core/backup/schedule';
import { chooseSnapshotSource } from '../../../src/core/backup/snapshot';
import { assessHost, DEFAULT_THRESHOLDS, type HostCerts } from '../../../src/core/certs/assess';
import { assessServed } from '../../../src/core/certs/served';
import { inspectionSentence, renderCertReport, summarize, type CertReport } from '../../../src/core/certs/report';
import { parsePkiOutput, readPkiScript } from '../../../src/core/certs/kubeadmPki';
import { parseCertificate } from '../../../src/core/certs/x509';
import { healthyFacts, node } from '../upgrade/fixtures';
import { manifestOf } from '../backup/manifests';
import { PkiFixture } from '../certs/pkiFixture';
import { ROOT } from '../haproxy/helpers';
import { bundle, CYRILLIC } from './inRussian';

const inv = parseInventory(readFileSync(join(ROOT, 'examples/labs-k8s/inventory.yaml'), 'utf8')).inventory!;

/** `fn`'s answer in English, in Russian, and in English again (which must equal the first). */
function bothWays<T>(fn: () => T): { en: T; ru: T } {
  const en = fn();
  assert.deepEqual(useMessages('ru', bundle), []);
  let ru: T;
  try {
    ru = fn();
  } finally {
    useMessages('en', undefined);
  }
  assert.deepEqual(fn(), en, 'the English run after the Russian one is the same');
  return { en, ru };
}

/** The texts (labelled) without a Russian word. */
function english(texts: Record<string, string | undefined>): string[] {
  return Object.entries(texts).filter(([, v]) => v !== undefined && v.trim() !== '' && !CYRILLIC.test(v)).map(([k, v]) => `${k}: ${v}`);
}

/** The lines of `text` without a Russian word (blank lines left out). */
function englishLines(text: string): string[] {
  return text.split('\n').filter((l) => l.trim() && !CYRILLIC.test(l));
}

// ------------------------------------------------------------------------------------------------ drain

const pod = (name: string, extra: Partial<DrainPod> = {}): DrainPod => ({ namespace: 'default', name, uid: name, hasEmptyDir: false, controller: { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: `${name}-rs` }, ...extra });
const PODS: DrainPod[] = [
  pod('web'),
  pod('cache', { hasEmptyDir: true }),
  pod('bare', { controller: undefined as never }),
  pod('flannel', { namespace: 'kube-flannel', controller: { apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'flannel' } }),
  pod('kube-apiserver-m01', { namespace: 'kube-system', annotations: { 'kubernetes.io/config.mirror': 'x' }, controller: { apiVersion: 'v1', kind: 'Node', name: 'm01' } }),
];
const MEMBERS = [
  { nodeName: 'm01', nodeReady: true, etcdHealthy: true },
  { nodeName: 'm02', nodeReady: true, etcdHealthy: true },
  { nodeName: 'm03', nodeReady: false, etcdHealthy: false },
];

function drainPlan(): DrainPlan {
  const classification = classifyPodsForDrain(PODS, DEFAULT_DRAIN_OPTIONS, () => ({ exists: true }));
  const guard = checkControlPlaneDrain('m01', MEMBERS, [{ namespace: 'kube-system', name: 'kube-scheduler', holder: 'm01_abc' }]);
  return {
    node: { name: 'm01', unschedulable: false, ready: true, controlPlane: true },
    classification,
    guard,
    options: { gracePeriodSeconds: -1, timeoutSeconds: 0, dryRun: 'none', readyTimeoutSeconds: 600, uncordonAfter: false, ignoreDaemonSets: false, deleteEmptyDirData: false, force: false },
    maintenance: { host: 'm01', display: "sh -c 'reboot'", expectReboot: true },
  };
}

test('a drain plan speaks Russian: its steps, every pod\'s verdict, kubectl\'s refusals by their kind, the guard', () => {
  const { en, ru } = bothWays(() => ({ plan: renderDrainPlan(drainPlan()), blockers: planBlockers(drainPlan()) }));
  assert.deepEqual(englishLines(ru.plan), [], ru.plan);
  assert.deepEqual(english(Object.fromEntries(ru.blockers.map((b, i) => [`blocker ${i}`, b]))), []);
  assert.match(ru.plan, /отказ\s+default\/bare\s+поды без контроллера \(чтобы всё же удалить, укажите --force\)/);
  // English: kubectl's words, as the lab compares them with kubectl's own
  assert.match(en.plan, /^ {5}refuse  default\/bare +Pods that declare no controller \(use --force to override\)$/m);
  assert.ok(en.blockers.includes('cannot delete Pods that declare no controller (use --force to override): default/bare'), en.blockers.join('\n'));
  // the classification keeps kubectl's English whatever the language: the drain's output is kubectl's transcript
  assert.deepEqual(drainPlan().classification.errors, en.blockers.slice(2));
});

test('a refused drain says why in Russian; the maintenance command\'s mistakes too', async () => {
  const cluster = {
    getNode: async (name: string) => ({ name, unschedulable: false, ready: true, controlPlane: true }),
    leaderLeases: async () => [],
    controlPlaneMembers: async () => MEMBERS,
  } as unknown as DrainCluster;
  const options = { ...DEFAULT_DRAIN_OPTIONS, gracePeriodSeconds: -1, dryRun: 'none' as const, readyTimeoutSeconds: 0, uncordonAfter: false };
  const enResult = await runDrain(cluster, 'm01', options);
  useMessages('ru', bundle);
  try {
    const r = await runDrain(cluster, 'm01', options);
    assert.equal(r.failedStep, 'guard');
    assert.match(r.error!, /^отказ освободить \(drain\) узел управляющего слоя «m01»: etcd потеряет кворум: /);
    assert.deepEqual(english({ error: r.error }), []);
    assert.throws(() => maintenanceCommand('  ', true), /^Error: команда обслуживания пуста$/);
  } finally {
    useMessages('en', undefined);
  }
  assert.equal(enResult.error, 'refusing to drain control-plane node "m01": etcd would lose quorum: 3 members need 2, and only 1 other healthy member would remain while m01 is down. control-plane node m03 is NotReady; fix it before taking m01 down.');
});

// ---------------------------------------------------------------------------------------------- upgrade

function troubledFacts(): UpgradeFacts {
  const f = healthyFacts();
  f.nodes.push({ ...node('labs-k8s-w09', 'worker', 'v1.29.0') });
  f.images![1] = { image: 'registry.k8s.io/etcd:3.6.4-0', present: false, detail: 'manifest unknown (HTTP 404)' };
  f.etcd![2] = { name: 'labs-k8s-m03', learner: false, healthy: false, problem: 'context deadline exceeded' };
  f.certificates = [{ name: 'apiserver', daysLeft: 3 }];
  delete f.coreDns;
  return f;
}

test('the upgrade speaks Russian: preflight findings, the version table, the skew along a target, the explanations of a failed step', () => {
  const { en, ru } = bothWays(() => {
    const f = troubledFacts();
    const findings = preflight(f);
    const skip = targetProblems({ apiServers: [{ node: 'm01', version: parseVersion('v1.31.2')! }], kubelets: [{ node: 'w01', version: parseVersion('v1.28.0')! }], target: parseVersion('v1.34.1')! });
    return {
      findings: findings.map((x) => x.message),
      rendered: renderFindings(findings),
      table: versionTable(f),
      skip: skip.map((p) => p.message),
      notes: [...skewNotes([{ name: 'm01', apiServer: 'v1.33.1', kubelet: 'v1.34.0' }, { name: 'm02', apiServer: 'v1.32.1' }]).values()],
      explanations: SIGNATURES.map((s) => s.explanation),
    };
  });
  assert.ok(ru.findings.length >= 4, ru.rendered);
  assert.deepEqual(english(Object.fromEntries(ru.findings.map((m, i) => [`finding ${i}`, m]))), []);
  assert.deepEqual(englishLines(ru.rendered), []);
  // the version table: its head, each node's role and readiness, the line under it
  assert.deepEqual(englishLines(ru.table), [], ru.table);
  assert.ok(ru.skip.length >= 2);
  assert.deepEqual(english(Object.fromEntries([...ru.skip, ...ru.notes].map((m, i) => [`skew ${i}`, m]))), []);
  assert.deepEqual(english(Object.fromEntries(ru.explanations.map((m, i) => [SIGNATURES[i]!.id, m]))), []);
  assert.match(en.table, /^node +role +kubeadm +kubelet/m);
  assert.match(en.table, /^labs-k8s-w09 +worker +v1\.29\.0 .* yes$/m);
  assert.match(en.rendered, /^ERROR \[registry\.k8s\.io\/etcd:3\.6\.4-0\] the registry has no registry\.k8s\.io\/etcd:3\.6\.4-0 \(manifest unknown \(HTTP 404\)\)/m);
  assert.match(en.explanations[0]!, /^kubeadm wrote the new etcd manifest/);
});

// ----------------------------------------------------------------------------------------------- backup

test('a refused backup manifest says why in Russian: its schema, the snapshot beside it, the inventory', () => {
  const snapshot = Buffer.alloc(4096, 7);
  const { en, ru } = bothWays(() => {
    const wrong = { ...manifestOf(snapshot), extra: 1, version: 2, durationMs: -1, host: 'Not A Name', members: 'm01', takenAt: 12 };
    const other = manifestOf(snapshot);
    other.members = [{ ...other.members[0]!, name: 'm09', host: 'm09' }, { ...other.members[1]!, name: 'labs-k8s-m02', peerURLs: ['https://10.9.9.9:2380'] }];
    const labs = { ...other, cluster: 'labs-k8s' };
    return {
      empty: readManifest(''),
      notJson: readManifest('{'),
      schema: readManifest(JSON.stringify(wrong)),
      otherCluster: compareManifest(manifestOf(snapshot, 'prod'), { name: 'other.db', size: 9, sha256: 'x' }, inv),
      members: compareManifest(labs, { name: 'snapshot.db', size: snapshot.length, sha256: labs.snapshot.sha256 }, inv),
    };
  });
  const problems = [ru.empty, ru.notJson, ru.schema].flatMap((r) => (r.ok ? ['read as a manifest'] : r.problems));
  assert.ok(!ru.schema.ok && ru.schema.problems.length >= 6, JSON.stringify(ru.schema));
  const compared = [...ru.otherCluster.refusals, ...ru.members.refusals, ...ru.members.warnings];
  assert.ok(compared.length >= 5, compared.join('\n'));
  assert.deepEqual(english(Object.fromEntries([...problems, ...compared].map((p, i) => [`${i}`, p]))), []);
  assert.deepEqual(en.empty, { ok: false, problems: [`it is not valid JSON (${(() => { try { JSON.parse(''); } catch (e) { return (e as Error).message; } return ''; })()}): the file is empty`] });
  assert.match(en.otherCluster.refusals.at(-1)!, /^the backup is of cluster "prod", the inventory is "labs-k8s"$/);
});

test('the snapshot schedule\'s problems and the snapshot source speak Russian', () => {
  const { ru } = bothWays(() => [
    scheduleWarning({ host: 'm01', timerActive: false, snapshots: [] }, 3600),
    scheduleProblem({ host: 'm01', timerActive: false, installed: true, snapshots: [] }, 3600)?.what,
    scheduleProblem({ host: 'm01', timerActive: true, snapshots: [] }, 3600)?.what,
    scheduleProblem({ host: 'm01', timerActive: true, activeForSeconds: 7200, snapshots: [] }, 3600)?.what,
    scheduleProblem({ host: 'm01', timerActive: true, intervalSeconds: 3600, newestAgeSeconds: 3 * 86_400, snapshots: [{ name: 'etcd-x.db', bytes: 1, takenAt: 0 }] }, 3600)?.what,
    ...(() => {
      const s = chooseSnapshotSource({ members: [], tolerates: -1, quorumLine: '0 of 3 healthy' } as never, inv);
      return s.ok ? [] : s.reasons;
    })(),
  ]);
  assert.equal(ru.filter(Boolean).length, 7);
  assert.deepEqual(english(Object.fromEntries(ru.map((w, i) => [`${i}`, w]))), []);
});

// ------------------------------------------------------------------------------------------ certificates

test('the certificate report speaks Russian: its table, each finding and note, what was not read, the summary', () => {
  const m01 = inv.hosts.find((h) => h.name === 'labs-k8s-m01')!;
  const m02 = inv.hosts.find((h) => h.name === 'labs-k8s-m02')!;
  // SANs without the VIP, an API server certificate for 20 days and an admin.conf for 3
  const fx = new PkiFixture({ address: m01.address, endpointHost: '10.3.60.99', days: { apiserver: 20, 'admin.conf': 3 } });
  const raw = parsePkiOutput(execFileSync('sh', ['-c', readPkiScript(true, fx.root).text], { encoding: 'utf8' }), fx.root);
  const now = Date.parse(parseCertificate(fx.read('/var/lib/kubelet/pki/kubelet-client-current.pem')).notBefore) + 1000;
  const build = (): CertReport => {
    const host = assessHost(inv, m01, raw, now);
    const unread: HostCerts = { host: m02.name, address: m02.address, controlPlane: true, entries: [], error: 'connection refused' };
    const apiserver = host.entries.find((e) => e.id === 'apiserver')!.facts!;
    const served = assessServed(
      [
        { target: 'endpoint', address: '10.3.60.100', port: 6443, facts: { ...apiserver, fingerprint: 'AA:BB' } },
        { target: m01.name, address: m01.address, port: 6443, facts: apiserver },
        { target: m02.name, address: m02.address, port: 6443, error: 'connection refused' },
      ],
      [host],
      now,
      DEFAULT_THRESHOLDS,
    );
    const csrs = [{ name: 'csr-abc', signerName: 'kubernetes.io/kubelet-serving', username: 'system:node:labs-k8s-m01', ageSeconds: 1200, kind: 'kubelet-serving' as const }];
    return { cluster: 'labs-k8s', at: '2026-12-05T10:00:00.000Z', thresholds: DEFAULT_THRESHOLDS, hosts: [host, unread], served, local: [], csrs };
  };
  const { en, ru } = bothWays(() => {
    const r = build();
    return { report: r, text: renderCertReport(r), summary: summarize(r), sentence: inspectionSentence(r) };
  });
  const problems = [...ru.report.hosts.flatMap((h) => h.entries.flatMap((e) => e.problems)), ...ru.report.served.flatMap((c) => c.problems)];
  // every kind of problem is there but for an unreadable file and a CA (this PKI has neither)
  assert.ok(new Set(problems.map((p) => p.kind)).size >= 6, JSON.stringify([...new Set(problems.map((p) => p.kind))]));
  assert.ok(problems.every((p) => p.kind !== undefined), 'every problem has its kind');
  // Every finding is Russian, the expiries too (src/core/live/certProblems.ts tells them by their kind).
  assert.ok(problems.some((p) => p.kind === 'expiry') && problems.some((p) => p.kind === 'served-expiry'), 'both expiries are among them');
  assert.deepEqual(english(Object.fromEntries(problems.map((p, i) => [`problem ${i}`, p.message]))), []);
  assert.deepEqual(english(Object.fromEntries(ru.report.hosts.flatMap((h) => h.entries.flatMap((e) => e.notes)).map((n, i) => [`note ${i}`, n]))), []);
  // The report: each line of words is Russian; the rows of the table are data (marks, days, dates, ids, subjects).
  const words = englishLines(ru.text).filter((l) => !/^ {2}(ok|WARN|ERROR) /.test(l));
  assert.deepEqual(words, [], ru.text);
  const lines = ru.summary.lines;
  const endpoint = ru.summary.servedNotRead.filter((n) => !n.at.startsWith('labs-k8s-'));
  assert.deepEqual(english({ sentence: ru.sentence.text, ...Object.fromEntries(lines.map((l, i) => [`line ${i}`, l])), ...Object.fromEntries(endpoint.map((n, i) => [`served ${i}`, n.at])) }), []);
  assert.equal(ru.sentence.level, en.sentence.level);
  assert.match(en.text, /^ {2}level {2}days {2}not after {3}certificate {16}subject$/m);
  assert.match(en.text, /^labs-k8s-m01 \(10\.3\.60\.51, control plane\)$/m);
  assert.match(en.sentence.text, /^Certificates of labs-k8s: \d+ finding\(s\) need a look; \d+ certificate\(s\) read on 1 host\(s\), the soonest expires in \d+ days; 1 of 2 host\(s\) not read \(connection refused\); no TLS handshake with 1 of 3 API address\(es\)\.$/);
});
