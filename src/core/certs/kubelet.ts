/**
 * The kubelet's certificates, which `kubeadm certs check-expiration` leaves out:
 *  - its client certificate: kubelet.conf should point at /var/lib/kubelet/pki/kubelet-client-current.pem, which the
 *    kubelet renews itself (rotateCertificates, at 70–90 % of its life, through a CSR the controller-manager approves).
 *    A kubelet.conf that embeds the certificate (`client-certificate-data`, kubeadm#1317: the node that ran
 *    `kubeadm init` before kubeadm 1.17, carried through upgrades) keeps using that one while the rotated file goes
 *    unused: the node drops out a year after it was set up. The documented fix points kubelet.conf at the rotated
 *    file and restarts the kubelet ("Certificate Management with kubeadm", kubernetes.io) — here a plan, drained first.
 *  - its serving certificate: self-signed kubelet.crt by default, or kubelet-server-current.pem from a CSR when
 *    serverTLSBootstrap is on — which nobody approves by default: pending kubelet-serving CSRs are named.
 *  - pending CSRs: a kubelet client CSR left pending is a rotation that is not happening.
 */
import { t } from '../l10n';
import type { Inventory } from '../inventory/types';
import { KUBECTL } from '../phases/interrupted';
import type { Plan, Step } from '../plan/types';
import { sh, type RemoteCommand } from '../ssh/command';

export const KUBELET_CONF = '/etc/kubernetes/kubelet.conf';
export const KUBELET_CLIENT_CURRENT = '/var/lib/kubelet/pki/kubelet-client-current.pem';

/** The kubelet renews its client certificate between 70 % and 90 % of its life (client-go's certificate manager). */
export function rotationWindow(notBefore: string, notAfter: string): { from: string; to: string } {
  const a = Date.parse(notBefore);
  const life = Date.parse(notAfter) - a;
  return { from: new Date(a + 0.7 * life).toISOString(), to: new Date(a + 0.9 * life).toISOString() };
}

export interface PendingCsr {
  name: string;
  signerName: string;
  /** Who asked (`system:node:m02`). */
  username: string;
  ageSeconds: number;
  /** kubelet client rotation, kubelet serving certificate, or another signer. */
  kind: 'kubelet-client' | 'kubelet-serving' | 'other';
}

interface RawCsr {
  metadata?: { name?: string; creationTimestamp?: string };
  spec?: { signerName?: string; username?: string };
  status?: { conditions?: { type?: string }[] };
}

/** `kubectl get csr -o json`: the requests without an Approved or Denied condition. */
export function parsePendingCsrs(json: string, now: number): PendingCsr[] {
  const items = (JSON.parse(json) as { items?: RawCsr[] }).items ?? [];
  return items
    .filter((c) => !(c.status?.conditions ?? []).some((x) => x.type === 'Approved' || x.type === 'Denied'))
    .map((c) => {
      const signerName = c.spec?.signerName ?? '';
      const kind = signerName === 'kubernetes.io/kube-apiserver-client-kubelet' ? 'kubelet-client' : signerName === 'kubernetes.io/kubelet-serving' ? 'kubelet-serving' : 'other';
      const created = Date.parse(c.metadata?.creationTimestamp ?? '');
      return { name: c.metadata?.name ?? '?', signerName, username: c.spec?.username ?? '?', ageSeconds: Number.isFinite(created) ? Math.max(0, Math.round((now - created) / 1000)) : 0, kind };
    });
}

/** Pending CSRs worth a look: any kubelet-serving one (nobody approves them by default), a client one over 15 minutes. */
export function csrProblem(c: PendingCsr): string | undefined {
  if (c.kind === 'kubelet-serving') return t('kubelet serving CSR {0} of {1} pending for {2} min: with serverTLSBootstrap nothing approves it by default (kubectl certificate approve {0} after checking its names), and until then kubectl logs/exec to that node fail', c.name, c.username, Math.round(c.ageSeconds / 60));
  if (c.kind === 'kubelet-client' && c.ageSeconds > 15 * 60) return t("kubelet client CSR {0} of {1} pending for {2} min: the kubelet's certificate rotation is not happening (is the controller-manager's csrapproving controller running?)", c.name, c.username, Math.round(c.ageSeconds / 60));
  return undefined;
}

export function listCsrsCommand(): RemoteCommand {
  return sh`${KUBECTL} get csr -o json --request-timeout=15s`;
}

/** Exits 0 when kubelet.conf takes its client certificate from the rotated file (nothing to fix). */
export function kubeletConfUsesRotatedFile(): RemoteCommand {
  return sh`grep -qE ${`^[[:space:]]*client-certificate:[[:space:]]*"?${KUBELET_CLIENT_CURRENT}"?[[:space:]]*$`} ${KUBELET_CONF} && ! grep -qE '^[[:space:]]*client-(certificate|key)-data:' ${KUBELET_CONF}`;
}

/** Exits 0 when the rotated file is there, not expired for an hour yet, and signed by the cluster's CA. */
export function rotatedFileUsable(): RemoteCommand {
  return sh`test -s ${KUBELET_CLIENT_CURRENT} && openssl x509 -noout -checkend 3600 -in ${KUBELET_CLIENT_CURRENT} >/dev/null && openssl verify -CAfile /etc/kubernetes/pki/ca.crt ${KUBELET_CLIENT_CURRENT} >/dev/null`;
}

/**
 * kubelet.conf's embedded client certificate and key replaced by the rotated file (the documented fix), the old file
 * kept beside kubeadm's own backups; written to a temp file and moved into place.
 */
export function pointAtRotatedFile(): RemoteCommand {
  const d = '/etc/kubernetes/tmp';
  return sh`mkdir -p ${d} && cp -p ${KUBELET_CONF} ${d}/kubelet.conf.kubeadm-workbench-$(date +%Y%m%d%H%M%S) && sed -E -e ${`s#^([[:space:]]*)client-certificate-data:.*#\\1client-certificate: ${KUBELET_CLIENT_CURRENT}#`} -e ${`s#^([[:space:]]*)client-key-data:.*#\\1client-key: ${KUBELET_CLIENT_CURRENT}#`} ${KUBELET_CONF} > ${`${KUBELET_CONF}.kw-tmp`} && chmod 600 ${`${KUBELET_CONF}.kw-tmp`} && mv -f ${`${KUBELET_CONF}.kw-tmp`} ${KUBELET_CONF}`;
}

/**
 * The restarted kubelet is back: its node Lease renewed after the kubelet (re)started — the kubelet renews it with
 * kubelet.conf's credentials, so the fixed file works — and the Node Ready as those credentials read it. Ready alone
 * would pass at once on the status the old kubelet posted (it stays Ready for the node monitor's grace period), and a
 * renewal seen within the second of the restart can be the old process's: systemd's start time in microseconds. A
 * time not read (a systemd before 248 has no --timestamp=us, a failed Lease read) is no proof: `date -d ""` would read
 * as midnight. The kubelet still running at the end: one renewal and a crash is not "back".
 */
export function kubeletBackAfterRestart(node: string): RemoteCommand {
  const kubectl = sh`kubectl --kubeconfig ${KUBELET_CONF} --request-timeout=10s`;
  return sh`since=$(systemctl show kubelet -p ActiveEnterTimestamp --value --timestamp=us) && test -n "$since" && started=$(date -d "$since" +%s%N) && renewal=$(${kubectl} get ${`lease/${node}`} -n kube-node-lease -o jsonpath='{.spec.renewTime}') && test -n "$renewal" && renewed=$(date -d "$renewal" +%s%N) && test "$renewed" -gt "$started" && systemctl is-active --quiet kubelet && test "$(${kubectl} get ${`node/${node}`} -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}')" = True`;
}

export interface KubeletConfPlanInput {
  inventory: Inventory;
  node: string;
  /** A control-plane host with admin.conf that drains and uncordons the node (not the node itself when there is another). */
  helper: string;
  drainTimeoutSeconds?: number;
}

export function buildKubeletConfPlan(input: KubeletConfPlanInput): Plan {
  const { node, helper } = input;
  const step = (host: string, key: string, rest: Omit<Step, 'id' | 'phase' | 'host'>): Step => ({ id: `kubelet-conf/${host}/${key}`, phase: 'kubelet-conf', host, about: node, ...rest });
  const timeout = input.drainTimeoutSeconds ?? 300;
  const steps: Step[] = [
    step(node, 'rotated-file', {
      title: t('{0} is there, valid and signed by the cluster\'s CA (the file kubelet.conf will use)', KUBELET_CLIENT_CURRENT),
      why: t('pointing kubelet.conf at a missing or expired file would lock the kubelet out'),
      check: kubeletConfUsesRotatedFile(),
      run: sh`${rotatedFileUsable()} || { echo ${`${KUBELET_CLIENT_CURRENT} is missing, expires within the hour or is not signed by /etc/kubernetes/pki/ca.crt: follow "Kubelet client certificate rotation fails" in kubeadm's certificate management guide (a new kubelet.conf from kubeadm kubeconfig user on a control-plane node)`} >&2; exit 1; }`,
    }),
    step(helper, `drain-${node}`, {
      title: t('drain {0} (DaemonSet pods stay; a pod with emptyDir data stops it, as kubectl drain does; {1} s at most)', node, timeout),
      why: t('the kubelet restarts: its pods move first'),
      rerun: 'kubectl drain of a drained node changes nothing',
      run: sh`${KUBECTL} drain ${node} --ignore-daemonsets --timeout=${`${timeout}s`} --request-timeout=30s`,
      timeoutMs: (timeout + 60) * 1000,
    }),
    step(node, 'kubelet-conf', {
      title: t('{0}: client-certificate and client-key point at {1} (the embedded data goes, the old file is kept in /etc/kubernetes/tmp)', KUBELET_CONF, KUBELET_CLIENT_CURRENT),
      why: t('the kubelet keeps renewing that file; the embedded certificate would expire a year after it was made (kubeadm#1317)'),
      check: kubeletConfUsesRotatedFile(),
      run: pointAtRotatedFile(),
      verify: kubeletConfUsesRotatedFile(),
      verifyTimeoutMs: 5_000,
    }),
    step(node, 'kubelet-restart', {
      title: t('restart the kubelet; {0} Ready and its Lease renewed by the restarted kubelet', node),
      rerun: 'a restart reads the fixed file; its verify is the proof',
      run: sh`systemctl restart kubelet`,
      verify: kubeletBackAfterRestart(node),
      verifyTimeoutMs: 3 * 60_000,
    }),
    step(helper, `uncordon-${node}`, {
      title: t('uncordon {0}', node),
      check: sh`test -z "$(${KUBECTL} get ${`node/${node}`} --request-timeout=10s -o jsonpath='{.spec.unschedulable}')"`,
      run: sh`${KUBECTL} uncordon ${node} --request-timeout=30s`,
    }),
  ];
  return {
    fingerprint: `kubelet-conf:${input.inventory.cluster.name}:${node}`,
    phases: [{ phase: 'kubelet-conf', title: t('Point {0}\'s kubelet.conf at its rotated client certificate, drained first', node), order: 'serial', steps, warnings: [] }],
  };
}
