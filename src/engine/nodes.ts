/**
 * Remove, replace and reset nodes (CLI `remove`, `replace`, `reset`; editor "Remove from Cluster…",
 * "Replace…", "Reset Host…"). Before any plan: which hosts answer over SSH, etcd's members and their health
 * (read on a control-plane host that answers), whether the API knows the host as a Node, and the quorum
 * guard. A refusal comes before anything acts. The plan runs on the plan engine (ledger, checks, locks,
 * cancel); afterwards the inventory edit is offered, never written silently — the questions and the run are
 * the nodes workflow's (workflows/nodesWorkflow.ts), which both front-ends call.
 */
import { t } from '../core/l10n';
import { generateHaproxyConfig } from '../core/generate/haproxy';
import { parseInventory } from '../core/inventory/parse';
import { isKubernetesHost, hostsWithRole, type HostSpec, type Inventory } from '../core/inventory/types';
import { assertValidInventory } from '../core/inventory/validate';
import { asRoot, etcdctlCommand } from '../core/drill/commands';
import { buildEtcd, type EtcdModel } from '../core/live/etcd';
import { etcdctlTlsArgs, readEtcd } from '../core/live/etcdSource';
import { ADMIN, KUBECTL } from '../core/nodes/commands';
import { lineDiff, removeHostText, replaceHostText } from '../core/nodes/inventoryEdit';
import { haproxyPhase, isControlPlane, removeControlPlanePhases, removeWorkerPhases, resetPhases } from '../core/nodes/plans';
import { checkMemberRemoval, guardMembersOf, memberOf, type GuardVerdict } from '../core/nodes/quorumGuard';
import type { PhaseConfigs, PhaseSources } from '../core/phases/configs';
import { planForHosts } from '../core/plan/forHosts';
import type { Plan } from '../core/plan/types';
import { sh, type SudoOptions } from '../core/ssh/command';
import { ANY_EXIT_CODE, type SshTransport } from '../core/ssh/transport';
import { buildBringUpPlan } from './bringUp';
import { readClusterSans, sanAdvice } from './nodeSans';
import { errorMessage } from '../core/errors';

export type NodeOperation = 'remove' | 'replace' | 'reset';

export interface NodeRequest {
  operation: NodeOperation;
  host: string;
  /** replace: the new host (an inventory entry of its own, or a name and address given by the user). */
  replacement?: { name: string; address: string };
  /** What the user typed to force past another unhealthy etcd member. */
  forceTyped?: string;
  drainTimeoutSeconds?: number;
}

export interface NodeDeps {
  inventory: Inventory;
  /** inventory.yaml's text, for the edit offered afterwards. */
  inventoryText: string;
  ssh: SshTransport;
  become: (host: string) => SudoOptions | undefined;
  /** The bring-up's configs and sources for an inventory (a replace joins the new host with them). */
  joinInputs: (inv: Inventory) => Promise<{ configs: PhaseConfigs; sources: PhaseSources }>;
  say?: (line: string) => void;
}

export interface NodePreparation {
  /** Undefined when refused. */
  plan?: Plan;
  refusals: string[];
  /** The refusal goes away when the host's name is typed back (another etcd member unhealthy). */
  forceable: boolean;
  /** What was found (answers, etcd, the guard's arithmetic): printed above the plan. */
  facts: string[];
  warnings: string[];
  /** The inventory.yaml text with the host removed or replaced, and its diff (remove/replace). */
  inventoryEdit?: { text: string; diff: string };
  guard?: GuardVerdict;
  /** Hosts whose SSH connection failed on their host key (a re-imaged host presents a new one). */
  hostKeyRefused: string[];
}

const TIMEOUT = 20_000;

async function run(deps: NodeDeps, host: string, cmd: ReturnType<typeof sh>, timeoutMs = TIMEOUT): Promise<{ code: number; stdout: string; stderr: string }> {
  const r = await deps.ssh.exec(host, asRoot(cmd, deps.become(host)), { okCodes: [...ANY_EXIT_CODE], timeoutMs });
  return { code: r.code ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/** Whether the host answers over SSH (and why not, e.g. a host key that was not accepted). */
export async function probeHost(deps: NodeDeps, host: string): Promise<{ answers: boolean; why?: string }> {
  try {
    const r = await run(deps, host, sh`true`, 15_000);
    return r.code === 0 ? { answers: true } : { answers: false, why: `exit ${r.code}` };
  } catch (e) {
    return { answers: false, why: errorMessage(e) };
  }
}

function hostKeyProblem(why: string | undefined): boolean {
  return /host key/i.test(why ?? '');
}

/** etcd's members and health, read on the first of `hosts` that can (over SSH: works while the API is down). */
async function readEtcdFrom(deps: NodeDeps, hosts: string[]): Promise<EtcdModel> {
  const errors: string[] = [];
  for (const h of hosts) {
    try {
      const raw = await readEtcd(async (args) => run(deps, h, etcdctlCommand(args)), etcdctlTlsArgs());
      return buildEtcd(raw, `ssh ${h}`, Date.now(), deps.inventory);
    } catch (e) {
      errors.push(`${h}: ${errorMessage(e)}`);
    }
  }
  throw new Error(errors.join('; ') || t('no control-plane host answers'));
}

/** The inventory after the operation (the host taken out, or the new host in its place). */
export function inventoryAfter(inv: Inventory, req: NodeRequest): Inventory {
  const old = inv.hosts.find((h) => h.name === req.host)!;
  // A host without a role is only there to be reached over SSH (the new host of a replace, before it joins).
  if (req.operation !== 'replace' || !req.replacement) return { ...inv, hosts: inv.hosts.filter((h) => h !== old && h.roles.length > 0) };
  const next: HostSpec = { ...old, name: req.replacement.name, address: req.replacement.address };
  return { ...inv, hosts: inv.hosts.filter((h) => (h.name !== req.replacement!.name && h.roles.length > 0) || h === old).map((h) => (h === old ? next : h)) };
}

/** The same inventory with `helper` as its first control-plane host (the bring-up's join steps take their credentials there). */
function withHelperFirst(inv: Inventory, helper: string): Inventory {
  const h = inv.hosts.find((x) => x.name === helper)!;
  return { ...inv, hosts: [h, ...inv.hosts.filter((x) => x !== h)] };
}

export async function prepareNodeOperation(deps: NodeDeps, req: NodeRequest): Promise<NodePreparation> {
  const inv = deps.inventory;
  const say = deps.say ?? (() => undefined);
  const out: NodePreparation = { refusals: [], forceable: false, facts: [], warnings: [], hostKeyRefused: [] };
  const target = inv.hosts.find((h) => h.name === req.host);
  if (!target) return { ...out, refusals: [t('{0} is not a host of the inventory (hosts: {1})', req.host, inv.hosts.map((h) => h.name).join(', '))] };
  if (!isKubernetesHost(target)) return { ...out, refusals: [t('{0} is neither a control-plane node nor a worker: nothing to {1}', req.host, req.operation)] };
  if (req.operation === 'replace') {
    const r = req.replacement;
    if (!r) return { ...out, refusals: [t('name the new host (--with NAME, and --address when it is not in the inventory)')] };
    if (r.name === target.name) return { ...out, refusals: [t('{0} would replace itself: remove it first (remove --host {0}), re-image it, then join it (join --host {0})', r.name)] };
    const clash = inv.hosts.find((h) => h.name !== r.name && h !== target && h.address === r.address);
    if (clash) return { ...out, refusals: [t("{0} is {1}'s address", r.address, clash.name)] };
    const spare = inv.hosts.find((h) => h.name === r.name);
    if (spare && isKubernetesHost(spare)) return { ...out, refusals: [t('{0} is already a {1} host of the inventory: it cannot replace {2}', r.name, spare.roles.join('/'), target.name)] };
  }

  // Who answers: the target (its reset is skipped when it does not), the control plane (the helper), the balancers, the new host.
  say(t('asking the hosts over SSH…'));
  const cps = hostsWithRole(inv, 'control-plane');
  const balancers = hostsWithRole(inv, 'loadbalancer');
  const names = [...new Set([target.name, ...cps.map((h) => h.name), ...(isControlPlane(target) ? balancers.map((h) => h.name) : [])])];
  const probes = new Map(await Promise.all(names.map(async (n) => [n, await probeHost(deps, n)] as const)));
  const answers = (n: string) => probes.get(n)?.answers === true;
  for (const [n, p] of probes) out.facts.push(`${n}: ${p.answers ? t('answers over SSH') : t('does not answer ({0})', p.why)}`);
  for (const [n, p] of probes) if (!p.answers && hostKeyProblem(p.why)) out.hostKeyRefused.push(n);
  for (const [n, p] of probes) if (!p.answers && hostKeyProblem(p.why)) out.refusals.push(t('{0}: its host key was not accepted ({1}); check the key and accept it explicitly, then run this again', n, p.why));
  if (isControlPlane(target)) for (const b of balancers) if (!answers(b.name)) out.refusals.push(t('balancer {0} does not answer: its HAProxy cannot be changed and checked', b.name));

  // etcd and the API, from a control-plane host that answers.
  let etcd: EtcdModel | undefined;
  try {
    etcd = await readEtcdFrom(deps, cps.filter((h) => answers(h.name)).map((h) => h.name));
    out.facts.push(`etcd (${etcd.via}): ${etcd.quorumLine}; ${etcd.members.map((m) => `${m.host ?? m.name} ${m.isLearner ? t('learner') : t('voter')} ${m.healthy ? t('healthy') : m.problem}`).join(', ')}`);
  } catch (e) {
    out.refusals.push(t('etcd cannot be read on any control-plane host that answers: {0}', errorMessage(e)));
  }
  const members = etcd ? guardMembersOf(etcd) : [];
  const targetMember = memberOf(members, target.name);
  const helperHost = cps.find((h) => h.name !== target.name && answers(h.name) && members.some((m) => m.host === h.name && !m.learner && m.healthy));
  let helperReady = false;
  // Through the endpoint: a request may land on an API server that is failing (a stopped etcd beside it) — a few tries.
  if (helperHost) helperReady = (await run(deps, helperHost.name, sh`test -f ${ADMIN} && for i in 1 2 3 4 5; do ${KUBECTL} get --raw=/readyz --request-timeout=5s >/dev/null 2>&1 && exit 0; sleep 2; done; exit 1`, 60_000)).code === 0;
  const helper = helperReady ? helperHost!.name : undefined;
  if (!helper) out.refusals.push(t('no control-plane host other than {0} answers with a healthy etcd member and a working API (admin.conf): the cluster-side steps have nowhere to run', target.name));
  else out.facts.push(t('cluster-side steps run on {0} (its admin.conf; etcdctl in its etcd pod)', helper));
  // Known only when the API answered: "not found" is an empty answer, a failed request is no answer.
  const asked = helper ? await run(deps, helper, sh`for i in 1 2 3; do out=$(${KUBECTL} get ${'node/' + target.name} --ignore-not-found -o name --request-timeout=15s) && { echo "answer:$out"; exit 0; }; sleep 2; done; exit 1`, 90_000) : undefined;
  const isNode = asked?.code === 0 ? /answer:node\//.test(asked.stdout) : undefined;
  if (helper && isNode === undefined) out.refusals.push(t("the API does not answer whether {0} is a Node (through {1}'s admin.conf): try again when it does", target.name, helper));
  if (isNode !== undefined) out.facts.push(`${target.name}: ${isNode ? t('a Node of the cluster') : t('not a Node of the cluster')}, ${targetMember ? t('etcd member {0}', targetMember.id) : t('not an etcd member')}`);

  if (req.operation === 'reset') {
    if (!answers(target.name)) out.refusals.push(t('{0} does not answer over SSH: nothing can be reset there', target.name));
    if (targetMember) out.refusals.push(t("{0} is still etcd member {1}: resetting it would wipe a member's data while it counts for the quorum. Remove it first: kubeadm-workbench remove --host {0}", target.name, targetMember.id));
    if (isNode) out.refusals.push(t('{0} is still a Node of the cluster: remove it first (kubeadm-workbench remove --host {0}), which drains it and resets it', target.name));
    if (out.refusals.length) return out;
    return { ...out, plan: { fingerprint: `reset:${target.name}`, phases: resetPhases(target.name) } };
  }

  if (isControlPlane(target) && etcd) {
    const guard = checkMemberRemoval(members, { operation: req.operation, target: target.name, ...(req.forceTyped !== undefined ? { forceTyped: req.forceTyped } : {}) });
    out.guard = guard;
    out.facts.push(guard.arithmetic);
    out.warnings.push(...guard.warnings);
    if (!guard.allowed) {
      out.refusals.push(...guard.reasons);
      out.forceable = guard.forceable && out.refusals.length === guard.reasons.length;
    }
  }
  if (hostsWithRole(inv, 'control-plane').length === 1 && isControlPlane(target) && req.operation === 'remove') out.refusals.push(t('{0} is the only control-plane host', target.name));

  const after = inventoryAfter(inv, req);
  try {
    assertValidInventory(after);
  } catch (e) {
    out.refusals.push(t('the inventory without {0} is not valid: {1}', target.name, errorMessage(e)));
  }
  if (req.operation === 'replace' && req.replacement) {
    const probe = await probeHost(deps, req.replacement.name).catch((e: Error) => ({ answers: false, why: e.message }));
    out.facts.push(`${req.replacement.name} (${req.replacement.address}): ${probe.answers ? t('answers over SSH') : t('does not answer ({0})', probe.why)}`);
    if (!probe.answers && hostKeyProblem(probe.why)) out.hostKeyRefused.push(req.replacement.name);
    if (!probe.answers) out.refusals.push(hostKeyProblem(probe.why)
      ? t("{0}: {1}. A new or re-imaged host presents a new key: check its fingerprint on the host's console and accept it explicitly (typed back when asked, or --accept-new-host-key=SHA256:… on the command line)", req.replacement.name, probe.why)
      : t('the new host {0} does not answer over SSH: it must be up (Debian 12, reachable as the inventory says) before anything is removed', req.replacement.name));
    if (helper && isControlPlane(target)) {
      const sans = await readClusterSans(async (cmd) => run(deps, helper, cmd));
      const advice = sanAdvice(sans, inv, req.replacement.address);
      if (advice) out.warnings.push(advice);
    }
  }
  out.inventoryEdit = editOf(deps.inventoryText, req);
  if (out.refusals.length || !helper) return out;

  const input = {
    inventory: inv, target, helper, targetAnswers: answers(target.name),
    ...(targetMember ? { memberId: targetMember.id } : {}),
    ...(req.drainTimeoutSeconds ? { drainTimeoutSeconds: req.drainTimeoutSeconds } : {}),
  };
  if (isNode === false) out.facts.push(t('{0} is no Node: the drain and the delete are skipped by their checks', target.name));
  // HAProxy first loses the old node; a replacement is added once it has joined (see haproxyPhase).
  const without = inventoryAfter(inv, { operation: 'remove', host: target.name });
  const phases = isControlPlane(target) ? removeControlPlanePhases(input, without, generateHaproxyConfig(without)) : removeWorkerPhases(input);
  if (req.operation === 'replace' && req.replacement) {
    const joinInv = withHelperFirst(after, helper);
    const { configs, sources } = await deps.joinInputs(after);
    const joinPhases = isControlPlane(target) ? (['prepare', 'join-control-plane'] as const) : (['prepare', 'join-workers'] as const);
    const full = buildBringUpPlan(joinInv, [...joinPhases], configs, sources, { saveAdminKubeconfig: async () => undefined });
    const joined = planForHosts(full, [req.replacement.name]);
    for (const p of joined.phases) {
      // The bring-up's two-member warning is about a first join; here the cluster keeps its other members.
      if (p.phase === 'join-control-plane' && p.steps.some((s) => (s.about ?? s.host) === req.replacement!.name)) p.warnings = [t('{0} joins as a learner and is promoted once it has caught up; a fresh certificate key is uploaded on {1} for it.', req.replacement.name, helper)];
    }
    phases.push(...joined.phases);
    if (isControlPlane(target)) phases.push(haproxyPhase(after, generateHaproxyConfig(after), t('Add {0} to HAProxy on every balancer, UP', req.replacement.name), `haproxy-with-${req.replacement.name}`, [req.replacement.name]));
  }
  const fingerprint = `${req.operation}:${target.name}:${req.replacement?.name ?? ''}:${helper}:${targetMember?.id ?? '-'}`;
  return { ...out, plan: { fingerprint, phases } };
}

function editOf(text: string, req: NodeRequest): NodePreparation['inventoryEdit'] {
  try {
    const next = req.operation === 'replace' && req.replacement ? replaceHostText(text, req.host, req.replacement) : removeHostText(text, req.host);
    if (parseInventory(next).findings.some((f) => f.severity === 'error')) return undefined;
    return { text: next, diff: lineDiff(text, next) };
  } catch {
    return undefined;
  }
}
