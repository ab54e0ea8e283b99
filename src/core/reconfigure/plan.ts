/**
 * The reconfigure of the control plane as a plan (kubernetes.io "Reconfiguring a kubeadm cluster", with the upgrade's
 * gates): the kubeadm-config ConfigMap gets the workspace's extraArgs / extraVolumes / certSANs (validated by
 * `kubeadm config validate` first), then one control-plane node at a time — quorum guard; out of every balancer (the
 * shared steps of nodes/haproxyGates.ts); when etcd's flags change and its member leads, the leadership handed over;
 * when the certSANs change, apiserver.crt re-issued by `kubeadm init phase certs apiserver`; the manifests regenerated
 * from the ConfigMap by kubeadm's own phase (`kubeadm upgrade node phase control-plane`, certificates not renewed);
 * the node's API server ready with the new flags in its running pod; back in the balancers; etcd and the leader
 * leases healthy before the next node. Every step asks the node first, so a resumed run skips what is done.
 */
import { t } from '../l10n';
import { createHash } from 'node:crypto';
import { Document } from 'yaml';
import { killApiServerOnceClosed, memberFollowsCommand, restartComponentCommand } from '../certs/renewPlan';
import { AUDIT_POLICY_PATH } from '../generate/auditPolicy';
import { hostsWithRole, type HostSpec, type Inventory } from '../inventory/types';
import { balancersIn, balancersOut, GATE_RERUN } from '../nodes/haproxyGates';
import { votingMemberHealthy } from '../phases/bringUp';
import { KUBECTL } from '../phases/interrupted';
import type { Plan, RunValues, Step, UploadFile } from '../plan/types';
import { and, sh, type RemoteCommand } from '../ssh/command';
import { leadersRenewing, ownApiServerReady } from '../upgrade/commands';
import { flagWord, type Reconfiguration } from './changes';

const TMP = '/etc/kubernetes/tmp';
const CONFIG_FILE = `${TMP}/kubeadm-workbench-cluster-configuration.yaml`;
const PATCH_FILE = `${TMP}/kubeadm-workbench-cluster-configuration.patch.json`;
const NODE_CONFIG_FILE = `${TMP}/kubeadm-workbench-node-config.yaml`;
const APISERVER_CERT = '/etc/kubernetes/pki/apiserver.crt';

export interface ReconfigureHooks {
  /** Refuses (throws) when this node's API server and etcd member going away for a while could cost quorum or the API. */
  guard(host: string, signal?: AbortSignal): Promise<void>;
  /** When this node's etcd member leads, the leadership moved to another healthy member (the renewal's). */
  moveLeader(host: string, upcoming: readonly string[], signal?: AbortSignal): Promise<void>;
}

export interface ReconfigurePlanInput {
  inventory: Inventory;
  change: Reconfiguration;
  hooks: ReconfigureHooks;
  /** The audit policy the workspace's flags name, placed on each node before its API server reads it. */
  auditPolicy?: string;
  warnings?: string[];
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** Exits 0 when the ConfigMap's ClusterConfiguration is exactly `desired` (by its SHA-256). */
export function configMapIs(desired: string): RemoteCommand {
  return sh`test "$(${KUBECTL} -n kube-system get cm kubeadm-config --request-timeout=15s -o jsonpath='{.data.ClusterConfiguration}' | sha256sum | cut -d' ' -f1)" = ${sha256(desired)}`;
}

/** Exits 0 when every changed flag is in the node's manifest with its new value and no unset flag is left. */
export function manifestsHave(change: Reconfiguration): RemoteCommand {
  const per = change.changes.map((c) => {
    const file = `/etc/kubernetes/manifests/${c.component}.yaml`;
    const words = sh`w=$(sed 's/^[[:space:]]*- //' ${file})`;
    const set = [...c.set].map(([k, v]) => sh`echo "$w" | grep -qxF -- ${flagWord(k, v)}`);
    const unset = c.unset.map((k) => sh`! echo "$w" | grep -qF -- ${`--${k}=`}`);
    return and(words, ...set, ...unset);
  });
  return per.length ? sh`(${and(...per)})` : sh`true`;
}

/** Exits 0 when the certificate (a file, or what 127.0.0.1:6443 serves) covers every name. */
function covers(source: RemoteCommand, sans: readonly string[]): RemoteCommand {
  return sh`s=$(${source} | openssl x509 -noout -ext subjectAltName 2>/dev/null | tr ',' '\\n' | sed 's/^[[:space:]]*//') && for n in ${[...sans]}; do echo "$s" | grep -qxF -e "DNS:$n" -e "IP Address:$n" || exit 1; done`;
}

export function certCovers(sans: readonly string[]): RemoteCommand {
  return sh`(${covers(sh`cat ${APISERVER_CERT}`, sans)})`;
}

export function servedCovers(sans: readonly string[]): RemoteCommand {
  return sh`(${covers(sh`echo | openssl s_client -connect 127.0.0.1:6443 2>/dev/null`, sans)})`;
}

/** The old apiserver certificate and key kept aside (kubeadm will not replace a certificate that exists), a new one. */
export function reissueApiserverCert(): RemoteCommand {
  return sh`d=${TMP}/kubeadm-workbench-apiserver-$(date +%Y%m%d%H%M%S) && mkdir -p "$d" && mv /etc/kubernetes/pki/apiserver.crt /etc/kubernetes/pki/apiserver.key "$d"/ && { kubeadm init phase certs apiserver --config ${NODE_CONFIG_FILE} || { mv "$d"/apiserver.crt "$d"/apiserver.key /etc/kubernetes/pki/; exit 1; }; } && echo "the previous certificate and key are in $d"`;
}

/** The running mirror pod of each changed component on `node` is Ready and runs with the new flags. */
export function podsRunWith(node: string, change: Reconfiguration): RemoteCommand {
  const per = change.changes.map((c) => {
    const pod = `${c.component}-${node}`;
    const get = (path: string) => sh`${KUBECTL} -n kube-system get pod ${pod} --request-timeout=10s -o ${`jsonpath=${path}`}`;
    const set = [...c.set].map(([k, v]) => sh`echo "$cmd" | grep -qF -- ${`"${flagWord(k, v)}"`}`);
    const unset = c.unset.map((k) => sh`! echo "$cmd" | grep -qF -- ${`"--${k}=`}`);
    return and(sh`cmd=$(${get('{.spec.containers[0].command}')})`, sh`test "$(${get('{.status.conditions[?(@.type=="Ready")].status}')})" = True`, ...set, ...unset);
  });
  return per.length ? sh`(${and(...per)})` : sh`true`;
}

/** The node's own configuration for kubeadm's certs phase: its address and name, and the cluster's new configuration. */
export function nodeConfig(host: HostSpec, desired: string): string {
  const api = /^apiVersion:\s*(\S+)/m.exec(desired)?.[1] ?? 'kubeadm.k8s.io/v1beta4';
  const init = new Document({ apiVersion: api, kind: 'InitConfiguration', localAPIEndpoint: { advertiseAddress: host.address, bindPort: 6443 }, nodeRegistration: { name: host.name } });
  return `${init.toString()}---\n${desired}`;
}

export function buildReconfigurePlan(input: ReconfigurePlanInput): Plan {
  const { inventory: inv, change } = input;
  const cps = hostsWithRole(inv, 'control-plane');
  const first = cps[0]!;
  const etcdChanges = change.changes.some((c) => c.component === 'etcd');
  const volumesOnly = change.changes.some((c) => c.volumes);
  const step = (host: string, key: string, rest: Omit<Step, 'id' | 'phase' | 'host'>): Step => ({ id: `reconfigure/${host}/${key}`, phase: 'reconfigure', host, ...rest });
  const file = (path: string, content: string, secret = false): UploadFile => ({ path, content, mode: 0o600, ...(secret ? { secret } : {}) });
  const steps: Step[] = [step(first.name, 'configmap', {
    title: t('the kubeadm-config ConfigMap gets the workspace\'s flags and certSANs (kubeadm config validate first)'),
    why: t('kubeadm regenerates every control-plane manifest from this ConfigMap, now and at every later upgrade or join'),
    check: configMapIs(change.desired),
    files: [file(CONFIG_FILE, change.desired), file(PATCH_FILE, `${JSON.stringify({ data: { ClusterConfiguration: change.desired } })}\n`)],
    run: sh`kubeadm config validate --config ${CONFIG_FILE} && ${KUBECTL} -n kube-system patch cm kubeadm-config --type merge --patch-file ${PATCH_FILE} --request-timeout=30s`,
    verify: configMapIs(change.desired),
    verifyTimeoutMs: 30_000,
  })];
  for (const [i, host] of cps.entries()) {
    const key = `reconfigured:${host.name}`;
    const done = (values: RunValues) => values.get(key) === 'yes';
    const reached = change.certSans ? and(manifestsHave(change), servedCovers(change.certSans)) : manifestsHave(change);
    const balancerStep = (b: string, k: string, rest: Omit<Step, 'id' | 'phase' | 'host'>) => step(b, `haproxy-${k}-${host.name}`, rest);
    steps.push(
      step(host.name, 'guard', {
        title: t('quorum guard: the other etcd members and API servers must be healthy'),
        why: t('the node\'s API server (and etcd member, when its flags change) restarts; the rest must carry the cluster meanwhile'),
        planDisplay: t('read etcd members and every other API server /readyz; refuse if one more member down would lose quorum'),
        rerun: GATE_RERUN,
        action: (_v, signal) => input.hooks.guard(host.name, signal),
      }),
      step(host.name, 'at-target', {
        title: t('does {0} run the new configuration already? (its other steps are skipped when it does)', host.name),
        rerun: GATE_RERUN,
        run: sh`if ${reached}; then echo reconfigured=yes; else echo reconfigured=no; fi`,
        capture: (stdout) => ({ [key]: /reconfigured=yes/.test(stdout) && !volumesOnly ? 'yes' : 'no' }),
      }),
      ...balancersOut(inv, host, { step: balancerStep, restart: t('kubeadm regenerates its manifests'), skipWhen: done }),
    );
    if (etcdChanges) {
      steps.push(step(host.name, 'move-leader', {
        title: t('etcd: when this member leads, hand the leadership to another healthy voting member and see it answer'),
        why: t('its etcd restarts with the new flags; a handed-over leadership takes no election'),
        check: memberFollowsCommand(),
        skipWhen: done,
        planDisplay: t('when this member leads: etcdctl move-leader <ID of a healthy voting member> against this member, then wait until it answers as the leader'),
        action: (_v, signal) => input.hooks.moveLeader(host.name, cps.slice(i + 1).map((h) => h.name), signal),
      }));
    }
    if (change.certSans) {
      steps.push(step(host.name, 'certs', {
        title: t('apiserver.crt re-issued for the certSANs {0} (kubeadm init phase certs apiserver)', change.certSans.join(', ')),
        why: t('a certificate\'s names are fixed when it is issued; kubeadm keeps an existing one, so the old one is moved aside first'),
        check: certCovers(change.certSans),
        skipWhen: done,
        files: [file(NODE_CONFIG_FILE, nodeConfig(host, change.desired))],
        run: reissueApiserverCert(),
      }));
    }
    steps.push(step(host.name, 'manifests', {
      title: t('manifests regenerated from the ConfigMap: {0} (kubeadm upgrade node phase control-plane)', change.changes.map((c) => c.component).join(', ') || t('the API server\'s certificate only')),
      why: t('kubeadm\'s own phase writes each manifest from the cluster\'s configuration, compares, and waits for the kubelet to run the changed ones'),
      ...(volumesOnly ? { rerun: 'a change of mounts has no cheap check: kubeadm compares the manifests itself and leaves equal ones alone' } : { check: manifestsHave(change) }),
      skipWhen: done,
      ...(input.auditPolicy ? { files: [file(AUDIT_POLICY_PATH, input.auditPolicy)] } : {}),
      // Beside it, the old API server killed once it stopped listening: else its kubelet waits out the 30 s grace period.
      run: sh`${killApiServerOnceClosed()} & watcher=$!; kubeadm upgrade node phase control-plane --certificate-renewal=false --etcd-upgrade=${String(etcdChanges)}; r=$?; kill $watcher 2>/dev/null; wait $watcher 2>/dev/null; exit $r`,
      timeoutMs: 10 * 60_000,
    }));
    if (change.certSans) {
      steps.push(step(host.name, 'apiserver-certificate', {
        title: t('the API server serves the re-issued certificate (restarted when it still serves the old one)'),
        check: servedCovers(change.certSans),
        skipWhen: done,
        run: restartComponentCommand('kube-apiserver'),
        verify: servedCovers(change.certSans),
        verifyTimeoutMs: 3 * 60_000,
        timeoutMs: 60_000,
      }));
    }
    steps.push(
      step(host.name, 'running', {
        title: t('{0}\'s API server answers /readyz (at {1}) and its changed pods run with the new flags', host.name, host.address),
        rerun: GATE_RERUN,
        verify: and(ownApiServerReady(host.address), podsRunWith(host.name, change)),
        verifyTimeoutMs: 5 * 60_000,
      }),
      ...balancersIn(inv, host, { step: balancerStep }),
      step(first.name, `etcd-after-${host.name}`, {
        title: t('etcd: {0}\'s member is voting and every voting member is healthy', host.name),
        about: host.name,
        rerun: GATE_RERUN,
        verify: votingMemberHealthy(first, host),
        verifyTimeoutMs: 3 * 60_000,
      }),
      step(first.name, `leases-after-${host.name}`, {
        title: t('The scheduler\'s and controller-manager\'s leader leases are held and renewed'),
        about: host.name,
        rerun: GATE_RERUN,
        verify: leadersRenewing(),
        verifyTimeoutMs: 90_000,
      }),
    );
  }
  const what = [...change.changes.map((c) => `${c.component}: ${[...[...c.set].map(([k, v]) => flagWord(k, v)), ...c.unset.map((k) => `no --${k}`), ...(c.volumes ? [t('its extraVolumes')] : [])].join(' ')}`), ...(change.certSans ? [`certSANs ${change.certSans.join(', ')}`] : [])];
  return {
    fingerprint: `reconfigure:${inv.cluster.name}:${sha256(change.desired).slice(0, 16)}`,
    phases: [{ phase: 'reconfigure', title: t('Reconfigure the control plane ({0}) one node at a time', what.join('; ')), order: 'serial', steps, warnings: input.warnings ?? [] }],
  };
}
