/**
 * The Certificates view's rows from an inspection's report: one branch per Kubernetes host (control plane first), each
 * certificate sorted by days left with its colour and icon by threshold; then what the API servers serve and the
 * user's own kubeconfig credentials. Loaded with the first report shown (certificatesView.ts), not at activation.
 */
import { t } from '../core/l10n';
import { byDaysLeft, entrySeverity, type CertEntry } from '../core/certs/assess';
import type { CertReport } from '../core/certs/report';
import type { ServedCheck } from '../core/certs/served';
import { csrProblem } from '../core/certs/kubelet';
import type { Severity } from '../core/findings';
import { ERR, md, MUTED, notReadRow, OK, WARN } from './rowLook';
import type { LiveNode } from '../editor/treeNodes';

const LOOK: Record<Severity | 'ok', { icon: string; color: string | undefined }> = {
  ok: { icon: 'pass', color: OK },
  info: { icon: 'pass', color: OK },
  warning: { icon: 'warning', color: WARN },
  error: { icon: 'error', color: ERR },
};


function worst(severities: (Severity | undefined)[]): Severity | 'ok' {
  return severities.includes('error') ? 'error' : severities.includes('warning') ? 'warning' : 'ok';
}

function entryNode(e: CertEntry): LiveNode {
  const look = LOOK[entrySeverity(e) ?? 'ok'];
  const f = e.facts;
  return {
    id: `cert:${e.host}:${e.id}`,
    label: e.id,
    description: e.daysLeft === undefined ? (e.problems[0]?.message ?? '') : `${e.daysLeft < 0 ? t('expired {0}d ago', -e.daysLeft) : t('{0}d left', e.daysLeft)} · ${f!.notAfter.slice(0, 10)}`,
    icon: look.icon,
    color: look.color,
    contextValue: e.fix === 'kubelet-conf' ? 'certificate-kubelet-conf-embedded' : `certificate-${e.role}`,
    tooltip: md([
      `**${e.id}** \`${e.path}\``,
      f ? `subject \`${f.subject}\`\n\nissuer \`${f.issuer}\`\n\nvalid ${f.notBefore} → ${f.notAfter}` : '',
      f && (f.dnsNames.length || f.ipAddresses.length) ? `SANs: ${[...f.dnsNames, ...f.ipAddresses].join(', ')}` : '',
      ...e.problems.map((p) => `- **${p.severity}** ${p.message}`),
      ...e.notes.map((n) => `- ${n}`),
    ]),
  };
}

function servedNode(c: ServedCheck): LiveNode {
  if (!c.facts) {
    // No handshake: nothing served was read, so nothing is judged (muted, like a host not read).
    return {
      id: `served:${c.target}`,
      label: c.target === 'endpoint' ? `endpoint ${c.address}:${c.port}` : c.target,
      description: t('not read: {0}', c.error ?? t('no certificate')),
      icon: 'debug-disconnect',
      color: MUTED,
      tooltip: md([t('**served by {0}:{1}**: no TLS handshake, so what it serves is not judged.', c.address, c.port), t('Cause: {0}', c.error ?? t('no certificate'))]),
    };
  }
  const look = LOOK[worst(c.problems.map((p) => p.severity))];
  return {
    id: `served:${c.target}`,
    label: c.target === 'endpoint' ? `endpoint ${c.address}:${c.port}` : c.target,
    description: c.facts ? `${t('{0}d left', String(c.daysLeft))}${c.matchesHost ? t(' · = {0}\'s apiserver.crt', c.matchesHost) : ''}` : (c.error ?? ''),
    icon: look.icon,
    color: look.color,
    tooltip: md([t('**served by {0}:{1}**', c.address, c.port), c.facts ? t('fingerprint `{0}`\n\nvalid until {1}', c.facts.fingerprint, c.facts.notAfter) : '', ...c.problems.map((p) => `- **${p.severity}** ${p.message}`)]),
  };
}

/** The view's tree for a report (exported for the unit test). */
export function buildCertificateTree(r: CertReport): LiveNode[] {
  const hosts = [...r.hosts].sort((a, b) => Number(b.controlPlane) - Number(a.controlPlane));
  const out: LiveNode[] = hosts.map((h) => {
    if (h.error) {
      return notReadRow({ id: `certs:${h.host}`, label: h.host, contextValue: 'certificates-not-read', headline: t('**{0}** ({1}): the certificates were not read, so none of them is judged.', h.host, h.address), error: h.error });
    }
    const children = byDaysLeft(h.entries).map(entryNode);
    const look = LOOK[worst(h.entries.map(entrySeverity))];
    const soonest = h.entries.map((e) => e.daysLeft).filter((d): d is number => d !== undefined);
    return {
      id: `certs:${h.host}`,
      label: h.host,
      description: t('{0} certificates{1}', h.entries.length, soonest.length ? t(' · soonest {0}d', Math.min(...soonest)) : ''),
      icon: h.controlPlane ? 'server-process' : 'server',
      color: look.color,
      expanded: look.icon !== 'pass',
      children,
    };
  });
  if (r.served.length) {
    const look = LOOK[worst(r.served.filter((c) => c.facts).flatMap((c) => c.problems.map((p) => p.severity)))];
    out.push({ id: 'certs:served', label: t('Served by the API servers'), icon: 'globe', color: look.color, expanded: look.icon !== 'pass', children: r.served.map(servedNode) });
  }
  if (r.csrs?.length || r.csrsError) {
    const nodes: LiveNode[] = (r.csrs ?? []).map((c) => {
      const problem = csrProblem(c);
      return { id: `csr:${c.name}`, label: c.name, description: t('{0} · {1} · {2} min pending', c.kind, c.username, Math.round(c.ageSeconds / 60)), icon: problem ? 'warning' : 'clock', color: problem ? WARN : MUTED, tooltip: md([`**${c.name}** \`${c.signerName}\``, problem ?? t('pending: approved by the controller-manager shortly')]) };
    });
    if (r.csrsError) nodes.push({ id: 'csr:error', label: t('not read'), description: r.csrsError, icon: 'error', color: ERR });
    const warn = nodes.some((n) => n.color === WARN || n.color === ERR);
    out.push({ id: 'certs:csrs', label: t('Pending certificate signing requests'), description: `${r.csrs?.length ?? 0}`, icon: 'git-pull-request', color: warn ? WARN : MUTED, expanded: warn, children: nodes });
  }
  if (r.local.length) {
    const look = LOOK[worst(r.local.map(entrySeverity))];
    out.push({ id: 'certs:local', label: t('Your kubeconfig'), icon: 'account', color: look.color ?? MUTED, expanded: look.icon !== 'pass', children: byDaysLeft(r.local).map(entryNode) });
  }
  return out;
}
