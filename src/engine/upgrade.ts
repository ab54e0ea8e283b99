/**
 * The upgrade's read-only side: the facts the preflight judges, gathered over SSH (every node's versions, static pod
 * images, disk and the target source's packages; from a control-plane node the API's nodes and add-ons, the
 * deprecated-API metric, the images the target's kubeadm pulls and whether the registry has each) and etcd's
 * members; then the findings and, when nothing refuses, the plan. The CLI's `upgrade` and the editor's "Upgrade
 * Cluster…" both come through `prepareUpgrade`.
 */
import { asRoot } from '../core/drill/commands';
import { hostsWithRole, type Inventory } from '../core/inventory/types';
import { errorMessage } from '../core/errors';
import { t } from '../core/l10n';
import { sh, type RemoteCommand, type SudoOptions } from '../core/ssh/command';
import { ANY_EXIT_CODE, type SshTransport } from '../core/ssh/transport';
import type { Plan } from '../core/plan/types';
import { clusterFactsCommand, nodeFactsCommand, NODE_FACTS_TIMEOUT_MS, parseClusterFacts, parseImageRef, parseNodeFacts, parseRegistryCheck, registryCheckCommand, targetImagesCommand } from '../core/upgrade/factsScripts';
import { targetPackageSource, type TargetSource } from '../core/upgrade/packageSource';
import { buildUpgradePlan, DEFAULT_DRAIN_TIMEOUT_SECONDS, versionChanges, type UpgradeHooks } from '../core/upgrade/plan';
import { preflight, versionsOf, type NodeFacts, type UpgradeFacts, type UpgradeFinding } from '../core/upgrade/preflight';
import { gvOf, removalsBetween, type ServedResource } from '../core/upgrade/removedApis';
import { compareVersions, formatVersion, lowest, minorOf, parseVersion, skewAlongPlan, type KubeVersion } from '../core/upgrade/versions';
import { DEFAULT_DRAIN_OPTIONS } from '../core/drain/classify';
import { runDrain, setCordon, type DrainCluster } from '../core/drain/drainNode';
import { backupEtcd, readEtcdOverSsh, type BackupDeps } from './backup';
import { driftWarnings } from './drift';
import { moveLeaderAway } from './renew';

export interface UpgradeDeps {
  inventory: Inventory;
  ssh: SshTransport;
  become: (host: string) => SudoOptions | undefined;
  say?: (line: string) => void;
}

export interface UpgradeRequest {
  target: KubeVersion;
  maxUnavailable?: number;
  drainTimeoutSeconds?: number;
}

export interface UpgradePreparation {
  facts: UpgradeFacts;
  findings: UpgradeFinding[];
  source?: TargetSource;
  /** Undefined when a finding refuses. */
  plan?: Plan;
}

type Answer = { code: number; stdout: string; stderr: string };

async function root(deps: UpgradeDeps, host: string, cmd: RemoteCommand, timeoutMs = 60_000): Promise<Answer> {
  const r = await deps.ssh.exec(host, asRoot(cmd, deps.become(host)), { okCodes: [...ANY_EXIT_CODE], timeoutMs });
  return { code: r.code ?? -1, stdout: r.stdout, stderr: r.stderr };
}

function nodesOf(inv: Inventory): { name: string; role: NodeFacts['role'] }[] {
  const cps = hostsWithRole(inv, 'control-plane').map((h) => ({ name: h.name, role: 'control-plane' as const }));
  const workers = hostsWithRole(inv, 'worker').filter((h) => !h.roles.includes('control-plane')).map((h) => ({ name: h.name, role: 'worker' as const }));
  return [...cps, ...workers];
}

async function readNodes(deps: UpgradeDeps, indexUrl: string | undefined): Promise<NodeFacts[]> {
  return Promise.all(nodesOf(deps.inventory).map(async (n) => {
    try {
      const r = await root(deps, n.name, nodeFactsCommand(indexUrl), NODE_FACTS_TIMEOUT_MS);
      deps.say?.(t('{0}: read', n.name));
      return parseNodeFacts(n.name, n.role, r.stdout);
    } catch (e) {
      return { name: n.name, role: n.role, unreachable: errorMessage(e) };
    }
  }));
}

/**
 * The versions the package sources offer for the pick: the current minor's patches and the next minor's, each
 * read from a control-plane node (what it reaches is what counts). Newest first; only versions above the control plane.
 */
export async function offeredTargets(deps: UpgradeDeps): Promise<{ current?: KubeVersion; versions: KubeVersion[]; problems: string[] }> {
  const cps = nodesOf(deps.inventory).filter((n) => n.role === 'control-plane');
  const problems: string[] = [];
  for (const cp of cps) {
    let facts: NodeFacts;
    try {
      facts = parseNodeFacts(cp.name, cp.role, (await root(deps, cp.name, nodeFactsCommand(undefined))).stdout);
    } catch (e) {
      problems.push(`${cp.name}: ${errorMessage(e)}`);
      continue;
    }
    const current = parseVersion(facts.staticPods?.apiserver);
    if (!current) {
      problems.push(t('{0}: no kube-apiserver manifest to read the version from', cp.name));
      continue;
    }
    const found: KubeVersion[] = [];
    for (const minor of [current.minor, current.minor + 1]) {
      const at = { ...current, minor, patch: 0 };
      let source: TargetSource;
      try {
        source = targetPackageSource(deps.inventory, at);
      } catch (e) {
        problems.push(errorMessage(e));
        continue;
      }
      if (!source.packagesIndexUrl) continue;
      const offered = parseNodeFacts(cp.name, cp.role, (await root(deps, cp.name, nodeFactsCommand(source.packagesIndexUrl), NODE_FACTS_TIMEOUT_MS)).stdout);
      if (offered.offeredError) problems.push(`${minorOf(at)}: ${offered.offeredError}`);
      for (const v of offered.offered?.kubeadm ?? []) {
        const p = parseVersion(v);
        if (p && compareVersions(p, current) > 0 && !found.some((f) => compareVersions(f, p) === 0)) found.push(p);
      }
    }
    return { current, versions: found.sort((a, b) => compareVersions(b, a)), problems };
  }
  return { versions: [], problems };
}

async function readImages(deps: UpgradeDeps, host: string, source: TargetSource, target: KubeVersion, repository: string | undefined): Promise<Pick<UpgradeFacts, 'images' | 'imagesError'>> {
  if (!source.packagesIndexUrl) return { imagesError: t('the {0} package source is not a flat repository: its kubeadm cannot be asked which images it pulls', minorOf(target)) };
  if (!source.signedBy) return { imagesError: t('the {0} package source ({1}) names no signed-by keyring: its InRelease cannot be verified, so its kubeadm is not run', minorOf(target), source.kubernetesApt) };
  const base = source.packagesIndexUrl.replace(/Packages$/, '');
  const list = await root(deps, host, targetImagesCommand(source.packagesIndexUrl, `${target.major}.${target.minor}.${target.patch}`, base, repository, source.signedBy), 6 * 60_000);
  if (list.code !== 0) return { imagesError: t('the {0} kubeadm could not list its images on {1}: {2}', formatVersion(target), host, list.stderr.trim().split('\n').slice(-2).join(' ')) };
  const lines = list.stdout.split('\n').map((l) => l.trim()).filter(Boolean);
  const refs = lines.map(parseImageRef);
  const bad = lines.filter((_, i) => !refs[i]);
  if (bad.length || !refs.length) return { imagesError: t('kubeadm printed what is not an image reference: {0}', bad.join(', ') || t('(nothing)')) };
  const check = await root(deps, host, registryCheckCommand(refs.map((r) => r!), deps.inventory.cluster.registryMirrors), 5 * 60_000);
  return { images: parseRegistryCheck(check.stdout) };
}

async function readServed(deps: UpgradeDeps, host: string, current: KubeVersion, target: KubeVersion, requested: { groupVersion: string; resource: string }[]): Promise<ServedResource[]> {
  const out: ServedResource[] = [];
  for (const api of removalsBetween(current, target)) {
    const gv = gvOf(api);
    const r = await root(deps, host, sh`kubectl --kubeconfig /etc/kubernetes/admin.conf get ${`${api.resource}.${api.version}.${api.group}`} -A -o name --request-timeout=20s`);
    const isRequested = requested.some((x) => x.groupVersion === gv && x.resource === api.resource);
    if (r.code !== 0 && !isRequested) continue; // not served any more, nothing to move
    out.push({ groupVersion: gv, resource: api.resource, requested: isRequested, ...(r.code === 0 ? { count: r.stdout.split('\n').filter(Boolean).length } : {}) });
  }
  return out;
}

/** How long the preflight reads an unhealthy etcd member again before judging: a static pod's restart takes seconds. */
const ETCD_SETTLE_MS = 120_000;

export async function gatherUpgradeFacts(deps: UpgradeDeps, target: KubeVersion): Promise<{ facts: UpgradeFacts; source?: TargetSource; sourceProblem?: string }> {
  const say = deps.say ?? (() => undefined);
  let source: TargetSource | undefined;
  let sourceProblem: string | undefined;
  try {
    source = targetPackageSource(deps.inventory, target);
  } catch (e) {
    sourceProblem = errorMessage(e);
  }
  say(source?.packagesIndexUrl ? t('reading every node over SSH (and {0} from each)…', source.packagesIndexUrl) : t('reading every node over SSH…'));
  const nodes = await readNodes(deps, source?.packagesIndexUrl);
  const facts: UpgradeFacts = { target, nodes };
  if (source && !source.packagesIndexUrl) for (const n of nodes) if (n.unreachable === undefined) n.offeredError = t('the {0} source ({1}) is not a flat repository; its packages cannot be listed before it is switched', minorOf(target), source.kubernetesApt);
  if (sourceProblem) for (const n of nodes) if (n.unreachable === undefined) n.offeredError = sourceProblem;

  const helper = nodes.find((n) => n.role === 'control-plane' && n.unreachable === undefined);
  if (helper) {
    say(t("reading the cluster through {0}'s admin.conf…", helper.name));
    const cluster = parseClusterFacts((await root(deps, helper.name, clusterFactsCommand())).stdout);
    for (const n of nodes) {
      const known = cluster.nodes.get(n.name);
      if (known) n.ready = known.ready;
    }
    if (cluster.coreDns) facts.coreDns = cluster.coreDns;
    if (cluster.kubeProxy) facts.kubeProxy = cluster.kubeProxy;
    const current = lowest(versionsOf(facts).apiServers.map((a) => a.version));
    if (current) {
      try {
        facts.served = await readServed(deps, helper.name, current, target, cluster.requested);
      } catch (e) {
        facts.servedError = errorMessage(e);
      }
    }
    if (source) {
      say(t('asking the {0} kubeadm which images it pulls, and the registry for each…', formatVersion(target)));
      try {
        Object.assign(facts, await readImages(deps, helper.name, source, target, deps.inventory.cluster.imageRepository ?? cluster.imageRepository));
      } catch (e) {
        facts.imagesError = errorMessage(e);
      }
    }
  } else {
    facts.imagesError = t('no control-plane node answers');
  }
  // A member that does not answer may be restarting: its static pod is replaced by every kubeadm upgrade step (a run
  // resumed after one was interrupted in `kubeadm upgrade node` finds that node's etcd coming back). It is read again
  // for a while before the preflight judges; nothing is changed meanwhile, so the quorum guard is unaffected.
  const settleBy = Date.now() + ETCD_SETTLE_MS;
  for (;;) {
    try {
      const etcd = await readEtcdOverSsh(deps);
      facts.etcd = etcd.members.map((m) => ({ name: m.host ?? m.name, learner: m.isLearner, healthy: m.healthy, ...(m.problem ? { problem: m.problem } : {}) }));
      delete facts.etcdError;
    } catch (e) {
      facts.etcdError = errorMessage(e);
    }
    const unhealthy = (facts.etcd ?? []).filter((m) => !m.healthy).map((m) => m.name);
    // Unread with no control-plane node answering over SSH is not a restart: judged at once.
    const mayBeRestarting = unhealthy.length > 0 || (facts.etcdError !== undefined && helper !== undefined);
    if (!mayBeRestarting || Date.now() >= settleBy) break;
    say(unhealthy.length ? t('etcd member {0} unhealthy; reading it again in 5 s (a member restarts with its static pod)…', unhealthy.join(', ')) : t('etcd not read; reading it again in 5 s (a member restarts with its static pod)…'));
    await new Promise((r) => setTimeout(r, 5_000));
  }
  facts.certificatesError = t('read with `kubeadm-workbench certs`; kubeadm upgrade renews the certificates it manages');
  return { facts, ...(source ? { source } : {}), ...(sourceProblem ? { sourceProblem } : {}) };
}

/** `gather`: the facts' reader (tests give facts as a cluster would answer; the real one runs over SSH on the lab). */
export async function prepareUpgrade(deps: UpgradeDeps, req: UpgradeRequest, hooks: UpgradeHooks, gather = gatherUpgradeFacts): Promise<UpgradePreparation> {
  const { facts, source, sourceProblem } = await gather(deps, req.target);
  const findings = preflight(facts);
  if (sourceProblem) findings.unshift({ severity: 'error', rule: 'upgrade/package-source', subject: 'packages.kubernetesApt', message: sourceProblem });
  // The init/join list is reused for plan, apply and node; `all` would silence the checks an upgrade relies on.
  if ((deps.inventory.cluster.ignorePreflightErrors ?? []).some((e) => e.toLowerCase() === 'all')) {
    findings.unshift({ severity: 'error', rule: 'upgrade/ignore-all-preflight', subject: 'cluster.ignorePreflightErrors', message: t('names "all": kubeadm upgrade plan, apply and node would ignore every one of their preflight checks; name the checks to ignore instead') });
  }
  if (findings.some((f) => f.severity === 'error') || !source) return { facts, findings, ...(source ? { source } : {}) };
  const plan = buildUpgradePlan({ inventory: deps.inventory, target: req.target, source, ...(req.maxUnavailable ? { maxUnavailable: req.maxUnavailable } : {}), ...(req.drainTimeoutSeconds ? { drainTimeoutSeconds: req.drainTimeoutSeconds } : {}) }, hooks);
  // The order is the skew policy's: proved on this cluster's versions before anything runs.
  const { apiServers, kubelets } = versionsOf(facts);
  for (const p of skewAlongPlan({ apiServers, kubelets, target: req.target }, versionChanges(plan))) findings.push({ severity: 'error', rule: 'upgrade/skew-plan', subject: p.node ?? 'plan', message: p.message });
  if (findings.some((f) => f.severity === 'error')) return { facts, findings, source };
  const warnings = findings.filter((f) => f.severity === 'warning').map((f) => `[${f.subject}] ${f.message}`);
  plan.phases[0]!.warnings.push(...warnings, ...(await driftWarnings(deps, 'upgrade')));
  return { facts, findings, source, plan };
}

/**
 * The plan's in-process hooks over the front-end's parts: the pre-upgrade snapshot with the backup's own code
 * (into `backupDir`, outside any git work tree, 0600), and our drain (kubectl's semantics: DaemonSet pods stay,
 * PodDisruptionBudgets honoured, a finite timeout) through the API. A pod with emptyDir data stops the drain, as
 * kubectl's does, unless `deleteEmptyDirData` was asked for (that data is lost with the pod).
 */
export function upgradeHooks(o: {
  backup: Omit<BackupDeps, 'say' | 'signal'>;
  backupDir: string;
  /** The drain's cluster, connected on first use (a --plan never connects). */
  cluster: () => Promise<DrainCluster>;
  drainTimeoutSeconds?: number;
  /** --delete-emptydir-data: evict pods with emptyDir volumes, losing that data (default: they stop the drain). */
  deleteEmptyDirData?: boolean;
  say?: (line: string) => void;
}): UpgradeHooks {
  const say = o.say ?? (() => undefined);
  const deleteEmptyDirData = o.deleteEmptyDirData ?? false;
  return {
    drainDeletesEmptyDirData: deleteEmptyDirData,
    snapshot: {
      display: t('backup to {0}', o.backupDir),
      run: async (signal) => {
        const r = await backupEtcd({ ...o.backup, say, ...(signal ? { signal } : {}) }, o.backupDir);
        say(t('etcd snapshot: {0} ({1} bytes, revision {2})', r.dir, r.manifest.snapshot.size, r.manifest.status?.revision ?? r.manifest.revisionAtSave ?? '?'));
      },
    },
    drain: async (node, signal) => {
      const result = await runDrain(await o.cluster(), node, {
        ...DEFAULT_DRAIN_OPTIONS, ignoreDaemonSets: true, deleteEmptyDirData, timeoutSeconds: o.drainTimeoutSeconds ?? DEFAULT_DRAIN_TIMEOUT_SECONDS,
        gracePeriodSeconds: -1, dryRun: 'none', readyTimeoutSeconds: 0, uncordonAfter: false, signal, onLine: (l) => say(l.text),
      });
      if (!result.ok) throw new Error(result.error ?? t('the drain of {0} failed', node));
    },
    uncordon: async (node) => setCordon(await o.cluster(), node, false, 'none', (l) => say(l.text)),
    moveEtcdLeader: (host, upcoming, signal) => moveLeaderAway(o.backup, host, upcoming, say, signal),
  };
}
