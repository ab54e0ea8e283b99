/**
 * The bring-up's joins: a bootstrap token (with the certificate key for control-plane joins), the other control-plane
 * nodes joined one at a time behind etcd's voting-member gate, and the workers beside them in parallel.
 */
import { t } from '../l10n';
import { createHash, X509Certificate } from 'node:crypto';
import { hostsWithRole, type HostSpec, type Inventory } from '../inventory/types';
import { and, raw, secret, sh, type Raw, type RemoteCommand } from '../ssh/command';
import type { PhasePlan, Step } from '../plan/types';
import { auditPolicyStep } from './auditPolicy';
import type { PhaseConfigs, PhaseSources } from './configs';
import { forgetInterruptedJoin, isControlPlaneNode, KUBECTL, resetInterruptedControlPlaneJoin, resetInterruptedWorkerJoin, waitForKubeadmToExit } from './interrupted';
import { firstControlPlane, GATE, step } from './steps';

/** `sha256:<hex>` of the CA's SubjectPublicKeyInfo — what `--discovery-token-ca-cert-hash` pins. */
export function caCertHash(pem: string): string {
  const cert = new X509Certificate(pem);
  const spki = cert.publicKey.export({ type: 'spki', format: 'der' });
  return `sha256:${createHash('sha256').update(spki).digest('hex')}`;
}

function tokenStep(inv: Inventory, phase: Step['phase'], withCertificateKey: boolean): Step[] {
  const first = firstControlPlane(inv);
  const steps: Step[] = [
    step(phase, first, 'ca-hash', {
      title: t('Compute the CA hash from the CA certificate (here, not on the host)'),
      shared: true,
      rerun: 'it only reads the CA certificate, which a rebuilt first control-plane node has anew: the hash the joins pin must be the current one',
      run: sh`cat /etc/kubernetes/pki/ca.crt`,
      capture: (out) => ({ caHash: caCertHash(out) }),
    }),
    step(phase, first, 'token', {
      title: t('A fresh bootstrap token valid for 30 minutes'),
      shared: true,
      rerun: 'the token is a secret the ledger never keeps, and it expires: each run makes its own',
      why: t('A short-lived token limits what a leaked join command can do.'),
      // Then wait (30 s at most) until the controller-manager has signed cluster-info with it: kubeadm's
      // discovery would otherwise find no signature right after init and retry only every 5 s.
      run: sh`t=$(kubeadm token create --ttl 30m) || exit 1; id=$(printf '%s' "$t" | cut -d. -f1); i=0; while [ $i -lt 60 ] && ! ${KUBECTL} -n kube-public get configmap cluster-info -o ${'jsonpath={.data.jws-kubeconfig-'}"$id"${'}'} --request-timeout=5s 2>/dev/null | grep -q .; do i=$((i+1)); sleep 0.5; done; printf '%s\n' "$t"`,
      capture: (out) => ({ token: out.trim().split('\n').pop()!.trim() }),
      secretCaptures: ['token'],
    }),
  ];
  if (withCertificateKey) {
    steps.push(step(phase, first, 'certificate-key', {
      title: t('Re-upload the control-plane certificates with a fresh key (valid 2 hours)'),
      shared: true,
      rerun: 'the certificate key is a secret the ledger never keeps, and the uploaded certificates expire after two hours (skipped when this run\'s init uploaded them less than an hour ago)',
      why: t('The kubeadm-certs Secret expires after two hours; a fresh upload guarantees the join finds it.'),
      run: sh`kubeadm init phase upload-certs --upload-certs`,
      // init uploaded them minutes ago in this run: its key is good for two hours (an hour is kept as margin).
      skipWhen: (values) => values.get('certificateKey') !== undefined && Date.now() - Number(values.get('certificateKeyAt') ?? 0) < 60 * 60_000,
      capture: (out) => ({ certificateKey: out.trim().split('\n').pop()!.trim() }),
      secretCaptures: ['certificateKey'],
    }));
  }
  return steps;
}

function joinCommand(inv: Inventory, host: HostSpec, controlPlane: boolean, ignore: string[] | undefined) {
  return (values: { get(k: string): string | undefined }): RemoteCommand => {
    const common = sh`kubeadm join ${inv.cluster.controlPlaneEndpoint} --token ${secret(values.get('token')!)} --discovery-token-ca-cert-hash ${values.get('caHash')!} --node-name ${host.name}`;
    const cp = controlPlane ? sh` --control-plane --certificate-key ${secret(values.get('certificateKey')!)} --apiserver-advertise-address ${host.address}` : sh``;
    const ig = ignore?.length ? sh` --ignore-preflight-errors=${ignore.join(',')}` : sh``;
    return sh`${common}${cp}${ig}`;
  };
}

/** etcdctl in the first control-plane node's etcd pod, through the API (the host has no etcdctl of its own). */
function etcdctlOn(first: HostSpec, endpoints: Raw, cmd: Raw): RemoteCommand {
  return sh`${KUBECTL} -n kube-system exec ${'etcd-' + first.name} -- etcdctl --endpoints=${endpoints} --cacert=/etc/kubernetes/pki/etcd/ca.crt --cert=/etc/kubernetes/pki/etcd/server.crt --key=/etc/kubernetes/pki/etcd/server.key ${cmd}`;
}

/**
 * `host`'s etcd member is started and voting, and every voting member answers a health check. A learner
 * that was never promoted is listed as started too, so only isLearner false counts. Learners are left out
 * of the health check: they do not count for the quorum, and one left by a later host's interrupted join
 * (removed by that host's forget step, which comes after this gate) answers "rpc not supported for learner".
 */
export function votingMemberHealthy(first: HostSpec, host: HostSpec): RemoteCommand {
  const list = etcdctlOn(first, raw('https://127.0.0.1:2379'), raw('member list'));
  // `member list` prints "ID, status, name, peer URLs, client URLs, isLearner"; several URLs are joined by a bare comma.
  // An unstarted member has no client URL yet (nothing to ask; `--cluster` skipped it too).
  const voters = raw(`voters=$(echo "$members" | awk -F', ' '$NF == "false" && $5 != "" { print $5 }' | paste -sd, -)`);
  return sh`members=$(${list}) && echo "$members" | grep -F ${`, started, ${host.name}, `} | grep -q ', false$' && ${voters} && ${etcdctlOn(first, raw('"$voters"'), raw('endpoint health'))}`;
}

/**
 * The control-plane joins' credentials, then the joins one at a time. The credentials need init only (the first
 * node's API), so they are made beside the other nodes' image pulls rather than after them: they were on the way
 * from init to the first join. `configs.auditPolicy`: the API server's audit policy, placed on each node before its
 * join starts an API server with it.
 */
export function joinControlPlanePhases(inv: Inventory, sources: PhaseSources, configs: Pick<PhaseConfigs, 'auditPolicy'> = {}): PhasePlan[] {
  return [
    { phase: 'join-control-plane', title: t('Join credentials for the control plane'), order: 'serial', steps: tokenStep(inv, 'join-control-plane', true), warnings: [], overlaps: ['prepare'] },
    controlPlaneJoins(inv, sources, configs),
  ];
}

function controlPlaneJoins(inv: Inventory, sources: PhaseSources, configs: Pick<PhaseConfigs, 'auditPolicy'>): PhasePlan {
  const first = firstControlPlane(inv);
  const others = hostsWithRole(inv, 'control-plane').filter((h) => h.name !== first.name);
  const etcdctl = (cmd: Raw) => etcdctlOn(first, raw('https://127.0.0.1:2379'), cmd);
  const steps: Step[] = [];
  for (const host of others) {
    steps.push(
      step('join-control-plane', host, 'no-kubeadm-running', {
        title: t('No kubeadm of an interrupted run still running on {0}', host.name),
        why: t('A run killed mid-join leaves its kubeadm running on the host (nothing hangs it up); cleaning up etcd beside it would race it.'),
        check: sh`! pgrep -x kubeadm >/dev/null`,
        run: waitForKubeadmToExit(host),
      }),
      ...(configs.auditPolicy ? [step('join-control-plane', host, 'audit-policy', auditPolicyStep(configs.auditPolicy))] : []),
      step('join-control-plane', first, `forget-partial-${host.name}`, {
        title: t('Remove what an interrupted join of {0} left in the cluster (its etcd member, its Node)', host.name),
        about: host.name,
        why: t('A join killed after adding its etcd member leaves a member whose data the next join wipes: it leaves etcd first, or two voting members of two become one and the quorum is lost.'),
        ...forgetInterruptedJoin(host, etcdctl),
      }),
      step('join-control-plane', host, 'join', {
        title: t('kubeadm join --control-plane ({0})', host.name),
        // kubelet.conf alone is not enough: it is written before the etcd member is added and promoted,
        // so a join killed there would be skipped. The control-plane label is set once etcd is done.
        check: and(sh`test -f /etc/kubernetes/kubelet.conf`, isControlPlaneNode(host)),
        run: (values) => sh`${resetInterruptedControlPlaneJoin(host)} && ${joinCommand(inv, host, true, sources.ignorePreflightErrors)(values)}`,
        planDisplay: `${resetInterruptedControlPlaneJoin(host).display} && kubeadm join ${inv.cluster.controlPlaneEndpoint} --token *** --discovery-token-ca-cert-hash sha256:<from the CA> --node-name ${host.name} --control-plane --certificate-key *** --apiserver-advertise-address ${host.address}`,
        timeoutMs: 10 * 60_000,
      }),
      step('join-control-plane', first, `etcd-healthy-${host.name}`, {
        title: t('etcd member {0} joined and every member is healthy', host.name),
        about: host.name,
        why: t('Join the next node only when etcd is healthy again: two unhealthy members of three is a lost quorum.'),
        rerun: GATE,
        verify: votingMemberHealthy(first, host),
        verifyTimeoutMs: 3 * 60_000,
      }),
    );
  }
  // Ready needs the CNI running on the node, which quorum does not: the next join waits for a healthy
  // etcd only, and every joined node's Ready is checked once they have all joined.
  for (const host of others) {
    steps.push(
      step('join-control-plane', first, `ready-${host.name}`, {
        title: t('{0} is Ready', host.name),
        about: host.name,
        rerun: GATE,
        verify: sh`${KUBECTL} wait --for=condition=Ready ${'node/' + host.name} --timeout=10s`,
        verifyTimeoutMs: 5 * 60_000,
      }),
    );
  }
  const warnings = others.length
    ? [t('While {0} joins, etcd has two members and a quorum of two: it tolerates no failure until the third member is healthy. Do not touch {1} during this window.', others[0]!.name, first.name)]
    : [];
  return { phase: 'join-control-plane', title: t('Join the other control-plane nodes, one at a time'), order: 'serial', steps, warnings };
}

export function joinWorkersPhases(inv: Inventory, sources: PhaseSources): PhasePlan[] {
  const first = firstControlPlane(inv);
  const workers = hostsWithRole(inv, 'worker').filter((h) => !h.roles.includes('control-plane'));
  if (workers.length === 0) return [];
  const joins = workers.map((host) =>
    step('join-workers', host, 'join', {
      title: t('kubeadm join ({0})', host.name),
      // The API knows the node, asked with the node's own credentials (a kubelet.conf of a cluster since rebuilt fails here).
      check: sh`test -f /etc/kubernetes/kubelet.conf && kubectl --kubeconfig /etc/kubernetes/kubelet.conf get ${'node/' + host.name} -o name --request-timeout=15s >/dev/null 2>&1`,
      // kubelet.conf is a worker's last file: without it, what an interrupted join left is reset first.
      run: (values) => sh`${resetInterruptedWorkerJoin(host)} && ${joinCommand(inv, host, false, sources.ignorePreflightErrors)(values)}`,
      planDisplay: `${resetInterruptedWorkerJoin(host).display} && kubeadm join ${inv.cluster.controlPlaneEndpoint} --token *** --discovery-token-ca-cert-hash sha256:<from the CA> --node-name ${host.name}`,
      timeoutMs: 10 * 60_000,
    }),
  );
  const ready = workers.map((host) =>
    step('join-workers', first, `ready-${host.name}`, {
      title: t('{0} is Ready', host.name),
      about: host.name,
      rerun: GATE,
      verify: sh`${KUBECTL} wait --for=condition=Ready ${'node/' + host.name} --timeout=10s`,
      verifyTimeoutMs: 5 * 60_000,
    }),
  );
  // A worker join goes through the VIP to any ready API server and never touches etcd membership: it needs
  // init (the cluster, its CNI, the API answering through the VIP), not the other control-plane joins, so
  // the workers join while those go on one at a time (HAProxy sends them only to servers whose /readyz says so).
  const beside = { overlaps: ['join-control-plane'] } satisfies Pick<PhasePlan, 'overlaps'>;
  return [
    // The credentials need init only, as the control plane's do: made beside the other nodes' image pulls too.
    { phase: 'join-workers', title: t('Join credentials for the workers'), order: 'serial', steps: tokenStep(inv, 'join-workers', false), warnings: [], overlaps: ['join-control-plane', 'prepare'] },
    { phase: 'join-workers', title: t('Join the workers in parallel'), order: 'parallel', steps: joins, warnings: [], ...beside },
    { phase: 'join-workers', title: t('Workers Ready'), order: 'serial', steps: ready, warnings: [], ...beside },
  ];
}
