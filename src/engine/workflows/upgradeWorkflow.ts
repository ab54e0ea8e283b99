/**
 * A Kubernetes upgrade, written once for the editor's "Upgrade Cluster…" and the CLI's `upgrade`: the target picked
 * among the versions the package source offers (or given), the preflight read and shown (the versions of every
 * node and every finding), a refusal before anything changes, the plan run through the plan-run workflow (its
 * question, sudo password, progress, cancel and resume), a failed step's output matched against the known failure
 * signatures and explained, and the report: time per node, and kubeadm's backups left in /etc/kubernetes/tmp.
 */
import { t } from '../../core/l10n';
import { haproxyServerNames, HAPROXY_BACKEND } from '../../core/generate/haproxy';
import { describeError } from '../../core/live/errors';
import { serverMatchesEndpoint } from '../../core/live/kubeconfig';
import { HAPROXY_SOCKET } from '../../core/nodes/commands';
import { renderPlan } from '../../core/plan/types';
import type { UpgradeHooks } from '../../core/upgrade/plan';
import { renderFindings, versionTable, type UpgradeFinding } from '../../core/upgrade/preflight';
import { explainFailure, type FailureSignature } from '../../core/upgrade/signatures';
import { formatVersion, minorOf, parseVersion, type KubeVersion } from '../../core/upgrade/versions';
import { sudoUnlessRoot } from '../become';
import { offeredTargets, prepareUpgrade, type UpgradeDeps, type UpgradePreparation } from '../upgrade';
import { planRunWorkflow, type PlanRunInput, type PlanRunOutcome } from './planRunWorkflow';
import type { Ui } from './ui';
import { isKubernetesHost } from '../../core/inventory/types';

export interface UpgradeWorkflowInput {
  deps: Omit<UpgradeDeps, 'become' | 'say'>;
  loginUser: (host: string) => string;
  /** The target (`1.34.12`, `v1.34.12`); undefined: picked among the versions the package source offers. */
  target?: string;
  maxUnavailable?: number;
  drainTimeoutSeconds?: number;
  /** Show the preflight and the plan, and stop (CLI --plan). */
  planOnly?: boolean;
  /** The front-end's snapshot folder and drain (over its connection to the API). */
  hooks: UpgradeHooks;
  run: Omit<PlanRunInput, 'inventory' | 'plan' | 'command' | 'title' | 'planDocument' | 'password' | 'onEvent'>;
  /** Told the sudo password once the run asked it (the hooks' snapshot runs its own commands). */
  onPassword?: (password: string | undefined) => void;
  /**
   * The front-end's connection the drains and uncordons go through: one whose server is not the inventory's
   * controlPlaneEndpoint is asked about before anything is read (it may be another cluster with nodes of the same names).
   */
  drainsThrough?: { context: string; server: string };
  /** Tests: the engine's reads (the real ones run over SSH on the lab). */
  prepare?: typeof prepareUpgrade;
  offered?: typeof offeredTargets;
}

export type UpgradeOutcome =
  | { kind: 'cancelled' | 'not-picked' }
  | { kind: 'invalid' | 'failed-to-read'; message: string }
  | { kind: 'refused'; message: string; findings: UpgradeFinding[] }
  | { kind: 'planned'; findings: UpgradeFinding[] }
  | (PlanRunOutcome & { explanations: FailureSignature[]; perNode: { host: string; seconds: number }[]; backups: string[]; leftInMaintenance: LeftInMaintenance[] });

/** An API server a stopped run took out of a balancer's backend (its maint step ran) and did not put back. */
export interface LeftInMaintenance {
  balancer: string;
  node: string;
  server: string;
}

const MAX_OUTPUT_PER_HOST = 64 * 1024;

export async function upgradeWorkflow(ui: Ui, input: UpgradeWorkflowInput): Promise<UpgradeOutcome> {
  const inv = input.deps.inventory;
  let password: string | undefined;
  const deps = { ...input.deps, become: (h: string) => sudoUnlessRoot(input.loginUser, password)(h) };

  const through = input.drainsThrough;
  if (through && !input.planOnly && !serverMatchesEndpoint(through.server, inv.cluster.controlPlaneEndpoint)) {
    const go = await ui.confirm({
      message: t("Upgrade {0} with its drains through context {1}, whose server is not the inventory's controlPlaneEndpoint?", inv.cluster.name, through.context),
      detail: t("The drains and uncordons go through context {0} ({1}); the inventory's controlPlaneEndpoint is {2}. If that is another cluster, its nodes of the same names are cordoned and drained.", through.context, through.server, inv.cluster.controlPlaneEndpoint),
      actions: [t('Upgrade through this context')],
      declined: t("upgrade not started: context {0} is not the inventory's cluster (pick another); nothing was done.", through.context),
    });
    if (!go) return { kind: 'cancelled' };
  }

  let target: KubeVersion | undefined;
  if (input.target !== undefined) {
    target = parseVersion(input.target);
    if (!target || !/^v?\d+\.\d+\.\d+$/.test(input.target.trim())) {
      const message = t('"{0}" is not a Kubernetes version (like 1.34.12)', input.target);
      await ui.message('error', message);
      return { kind: 'invalid', message };
    }
  } else {
    let offered;
    try {
      offered = await ui.progress({ title: t('Reading the versions the package sources offer {0}…', inv.cluster.name) }, () => (input.offered ?? offeredTargets)(deps));
    } catch (e) {
      const message = t('Upgrade: cannot read the versions on offer: {0}', describeError(e));
      await ui.message('error', message);
      return { kind: 'failed-to-read', message };
    }
    if (!offered.versions.length) {
      const message = `${offered.current ? t('No newer version is offered than {0}', formatVersion(offered.current)) : t('No newer version is offered')}${offered.problems.length ? `: ${offered.problems.join('; ')}` : ''}`;
      await ui.message('info', message);
      return { kind: 'not-picked' };
    }
    target = await ui.pick(t('Upgrade {0} from {1} to', inv.cluster.name, offered.current ? formatVersion(offered.current) : '?'), offered.versions.map((v) => ({
      label: formatVersion(v),
      description: offered.current && v.minor === offered.current.minor ? t('patch release') : t('next minor ({0})', minorOf(v)),
      value: v,
    })));
    if (!target) return { kind: 'not-picked' };
  }

  let prep: UpgradePreparation;
  try {
    prep = await ui.progress({ title: t('Upgrade preflight of {0} for {1}…', inv.cluster.name, formatVersion(target)), narrate: true }, (progress) =>
      (input.prepare ?? prepareUpgrade)({ ...deps, say: (l) => progress(`   ${l}`) }, { target: target!, ...(input.maxUnavailable ? { maxUnavailable: input.maxUnavailable } : {}), ...(input.drainTimeoutSeconds ? { drainTimeoutSeconds: input.drainTimeoutSeconds } : {}) }, input.hooks));
  } catch (e) {
    const message = t('Upgrade: the preflight could not read the cluster: {0}', describeError(e));
    await ui.message('error', message);
    return { kind: 'failed-to-read', message };
  }
  await ui.show('upgrade-preflight.txt', `${versionTable(prep.facts)}\n\n${renderFindings(prep.findings)}\n`);
  const errors = prep.findings.filter((f) => f.severity === 'error');
  if (errors.length || !prep.plan) {
    const message = t('Upgrade to {0} refused; nothing was done: {1}', formatVersion(target), errors.map((f) => `[${f.subject}] ${f.message}`).join(' '));
    await ui.message('error', message, { modal: true });
    return { kind: 'refused', message, findings: prep.findings };
  }
  if (input.planOnly) {
    await ui.show('upgrade-plan.txt', renderPlan(prep.plan));
    return { kind: 'planned', findings: prep.findings };
  }

  const output = new Map<string, string>();
  const current = new Map<string, string>();
  const backups: string[] = [];
  const explanations: FailureSignature[] = [];
  /** Per node: the time of the steps about it (its gates on other hosts and balancers included), not the waits for other nodes. */
  const busy = new Map<string, number>();
  /** `balancer\0node` whose maint step started (its command may have reached the socket) and whose ready step has not ended well. */
  const maint = new Map<string, LeftInMaintenance>();
  const servers = new Map(haproxyServerNames(inv).map((s) => [s.host, s.server]));
  const outcome = await planRunWorkflow(ui, {
    ...input.run,
    inventory: inv, plan: prep.plan, command: 'upgrade', title: t('Upgrade of {0} to {1}', inv.cluster.name, formatVersion(target)), planDocument: 'upgrade-plan.txt',
    password: (p) => {
      password = p;
      input.onPassword?.(p);
    },
    onEvent: (e) => {
      if (e.type === 'step-start') {
        current.set(e.step.host, e.step.id);
        output.set(e.step.host, '');
        const node = e.step.about ?? e.step.host;
        if (/\/haproxy-maint-[^/]+$/.test(e.step.id)) maint.set(`${e.step.host}\0${node}`, { balancer: e.step.host, node, server: servers.get(node) ?? node });
      }
      if (e.type === 'output') {
        output.set(e.host, ((output.get(e.host) ?? '') + e.text).slice(-MAX_OUTPUT_PER_HOST));
        if (current.get(e.host)?.endsWith('/kubeadm-backups') && e.stream === 'stdout') backups.push(...e.text.split('\n').filter((l) => l.trim()).map((l) => `${e.host}: ${l.trim()}`));
      }
      if (e.type === 'step-end') {
        const node = e.step.about ?? e.step.host;
        const isMaint = /\/haproxy-maint-[^/]+$/.test(e.step.id);
        if ((isMaint && e.state === 'skipped') || (/\/haproxy-ready-[^/]+$/.test(e.step.id) && (e.state === 'done' || e.state === 'skipped'))) maint.delete(`${e.step.host}\0${node}`);
        if (!/\/(etcd-snapshot|kubeadm-backups)$/.test(e.step.id)) busy.set(node, (busy.get(node) ?? 0) + e.ms);
        if (e.state === 'failed') {
          const found = explainFailure(`${output.get(e.step.host) ?? ''}\n${e.error ?? ''}`);
          explanations.push(...found);
          if (found.length) void ui.show('upgrade-failure.md', failureReport(e.step.host, e.step.title, found));
        }
      }
    },
  });
  const perNode = [...busy].filter(([n]) => inv.hosts.some((h) => h.name === n && isKubernetesHost(h))).map(([host, ms]) => ({ host, seconds: ms / 1000 }));
  if (outcome.kind === 'ran' && outcome.result.ok) await ui.show('upgrade-report.md', report(formatVersion(target), perNode, backups));
  const leftInMaintenance = [...maint.values()];
  if (leftInMaintenance.length) await ui.message('warning', maintenanceNotice(leftInMaintenance), { modal: true });
  return { ...outcome, explanations, perNode, backups, leftInMaintenance };
}

/** The servers out of the VIP after a stopped run, and both ways to put them back. */
function maintenanceNotice(left: readonly LeftInMaintenance[]): string {
  const where = left.map((l) => t('{0} ({1}) on {2}', l.server, l.node, l.balancer)).join(', ');
  const commands = left.map((l) => t('on {0}: {1}', l.balancer, `echo 'set server ${HAPROXY_BACKEND}/${l.server} state ready' | socat stdio unix-connect:${HAPROXY_SOCKET}`)).join('; ');
  return t('The upgrade stopped with API servers in HAProxy maintenance, out of the VIP: {0}. Run the upgrade again to resume (it puts them back once their node is at the target), or put them back by hand — {1}.', where, commands);
}

function failureReport(host: string, step: string, found: readonly FailureSignature[]): string {
  return [`# ${t('{0}: {1} failed', host, step)}`, '', ...found.flatMap((f) => [`## ${f.id}`, '', f.explanation, ...(f.reference ? ['', t('See {0}', f.reference)] : []), ''])].join('\n');
}

function report(target: string, perNode: readonly { host: string; seconds: number }[], backups: readonly string[]): string {
  return [
    `# ${t('Upgrade to {0}', target)}`,
    '',
    `| ${t('node')} | ${t('seconds')} |`,
    '| --- | --- |',
    ...perNode.map((p) => `| ${p.host} | ${p.seconds.toFixed(1)} |`),
    '',
    `## ${t("kubeadm's backups in {0}", '/etc/kubernetes/tmp')}`,
    '',
    ...(backups.length ? backups.map((b) => `- ${b}`) : [`- ${t('none')}`]),
    '',
    t('kubeadm keeps the manifests and etcd data it replaced there and never removes them: once the cluster works at the new version, remove them on each node ({0}).', '`rm -rf /etc/kubernetes/tmp/kubeadm-backup-*`'),
    '',
  ].join('\n');
}
