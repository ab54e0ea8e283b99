/**
 * Judges the certificates read from a node: days left against the thresholds (warning 30, error 7 by
 * default: kubeadm's leaf certificates last one year, and a cluster whose certificates expired locks its
 * administrators out), the serving certificates' SANs against the inventory (the seed's
 * `x509: certificate is valid for 10.3.60.51, not 10.3.60.100`), and each leaf against the CA that must
 * have signed it.
 */
import { X509Certificate } from 'node:crypto';
import type { Severity } from '../findings';
import { hostsWithRole, splitEndpoint, type HostSpec, type Inventory } from '../inventory/types';
import { filesFor, type CertRole, type PkiFile, type RawPki } from './kubeadmPki';
import { coversName, daysLeft, parseCertificate, type CertFacts } from './x509';
import { KUBELET_CLIENT_CURRENT, rotationWindow } from './kubelet';
import { errorMessage } from '../errors';
import { t as tr } from '../l10n';

export { DEFAULT_THRESHOLDS, type CertThresholds } from './thresholds';
import { DEFAULT_THRESHOLDS, type CertThresholds } from './thresholds';

export type ExpiryLevel = 'ok' | 'warning' | 'error' | 'expired';

/**
 * What a certificate problem is about, for code that treats one kind apart (the health verdict lists an expiry once,
 * as critical): match this, never the message, which is in the reader's language.
 */
export type CertProblemKind =
  | 'unreadable'
  | 'not-yet-valid'
  | 'expiry'
  | 'missing'
  | 'no-certificate'
  | 'san'
  | 'rotation-off'
  | 'embedded-client-certificate'
  | 'not-signed'
  | 'no-handshake'
  | 'served-expiry'
  | 'served-san'
  | 'served-not-on-disk'
  | 'served-unknown'
  | 'unread-credential';

export interface CertProblem {
  severity: Severity;
  /** Absent only where an older caller built the problem; every problem of src/core/certs has one. */
  kind?: CertProblemKind;
  message: string;
}

export interface CertEntry {
  /** Inventory host, or `local` for the user's own kubeconfig. */
  host: string;
  id: string;
  /** The file (or `file#user` for a kubeconfig credential). */
  path: string;
  role: CertRole;
  facts?: CertFacts;
  daysLeft?: number;
  expiry?: ExpiryLevel;
  problems: CertProblem[];
  notes: string[];
  /** A guided fix exists for this entry's problem (the embedded kubelet.conf: `certs fix-kubelet-conf`). */
  fix?: 'kubelet-conf';
}

export interface HostCerts {
  host: string;
  address: string;
  controlPlane: boolean;
  entries: CertEntry[];
  /** The kubelet's `rotateCertificates` (undefined: not found in its config). */
  kubeletRotates?: boolean;
  /** Could not read the host at all: the cause in a few plain words (no command text; core/text/failureSummary). */
  error?: string;
  /** The whole error, for the log. */
  errorDetail?: string;
}

export function expiryLevel(days: number, t: CertThresholds): ExpiryLevel {
  if (days < 0) return 'expired';
  if (days < t.errorDays) return 'error';
  if (days < t.warningDays) return 'warning';
  return 'ok';
}

const RANK: Record<ExpiryLevel | Severity, number> = { ok: 0, info: 1, warning: 2, error: 3, expired: 3 };

/** The worst of an entry's expiry and its problems, as a finding severity (undefined: all fine). */
export function entrySeverity(e: Pick<CertEntry, 'expiry' | 'problems'>): Severity | undefined {
  let worst = e.expiry && e.expiry !== 'ok' ? RANK[e.expiry] : 0;
  for (const p of e.problems) worst = Math.max(worst, RANK[p.severity]);
  return worst >= 3 ? 'error' : worst === 2 ? 'warning' : worst === 1 ? 'info' : undefined;
}

/** Builds an entry from a certificate's PEM (the first block is the leaf). */
export function certEntry(host: string, id: string, path: string, role: CertRole, pem: string, now: number, t: CertThresholds): CertEntry {
  const entry: CertEntry = { host, id, path, role, problems: [], notes: [] };
  try {
    entry.facts = parseCertificate(pem);
  } catch (e) {
    entry.problems.push({ severity: 'error', kind: 'unreadable', message: errorMessage(e) });
    return entry;
  }
  entry.daysLeft = daysLeft(entry.facts.notAfter, now);
  entry.expiry = expiryLevel(entry.daysLeft, t);
  if (Date.parse(entry.facts.notBefore) > now) entry.problems.push({ severity: 'error', kind: 'not-yet-valid', message: tr("not valid before {0}: check this machine's and the node's clocks", entry.facts.notBefore) });
  if (entry.expiry !== 'ok') {
    entry.problems.push({
      severity: entry.expiry === 'warning' ? 'warning' : 'error',
      kind: 'expiry',
      message: entry.expiry === 'expired' ? tr('expired {0} day(s) ago ({1})', -entry.daysLeft, entry.facts.notAfter) : tr('expires in {0} day(s) ({1})', entry.daysLeft, entry.facts.notAfter),
    });
  }
  if (role === 'ca' && entry.expiry !== 'ok') entry.notes.push(tr('a CA: `kubeadm certs renew` does not renew it; plan a CA rotation'));
  return entry;
}

/** The issuing CA file of each leaf, by id. */
const ISSUER: Record<string, string> = {
  apiserver: 'ca',
  'apiserver-kubelet-client': 'ca',
  'front-proxy-client': 'front-proxy-ca',
  'apiserver-etcd-client': 'etcd/ca',
  'etcd/server': 'etcd/ca',
  'etcd/peer': 'etcd/ca',
  'etcd/healthcheck-client': 'etcd/ca',
  'admin.conf': 'ca',
  'super-admin.conf': 'ca',
  'controller-manager.conf': 'ca',
  'scheduler.conf': 'ca',
};

/** Did `caPem` sign `leafPem`? (signature check, not just matching names) */
export function signedBy(leafPem: string, caPem: string): boolean {
  try {
    return new X509Certificate(leafPem).verify(new X509Certificate(caPem).publicKey);
  } catch {
    return false;
  }
}

/** The names a serving certificate on `host` must cover, with how bad a missing one is and why. */
export function requiredNames(inv: Inventory, host: HostSpec, serves: 'apiserver' | 'etcd'): { name: string; severity: Severity; why: string }[] {
  const out: { name: string; severity: Severity; why: string }[] = [];
  if (serves === 'apiserver') {
    const ep = splitEndpoint(inv.cluster.controlPlaneEndpoint);
    if (ep) out.push({ name: ep.host, severity: 'error', why: tr('the controlPlaneEndpoint: every kubeconfig and kubelet reaches the API through it (x509: certificate is valid for …, not {0})', ep.host) });
    out.push({ name: host.address, severity: 'error', why: tr("the node's own address: the load balancer's health checks and the other nodes reach this API server by it") });
    for (const cp of hostsWithRole(inv, 'control-plane')) {
      if (cp.name !== host.name && cp.address !== host.address) out.push({ name: cp.address, severity: 'info', why: tr('another control-plane address; the generated kubeadm config lists every one in certSANs') });
    }
  } else {
    out.push({ name: host.address, severity: 'error', why: tr("the member's advertised address: the other members and the API servers dial it") });
    out.push({ name: '127.0.0.1', severity: 'error', why: tr('stacked etcd: the local kube-apiserver dials https://127.0.0.1:2379') });
  }
  return out;
}

/** Every certificate of one host, judged. `raw` is what the read-only script returned. */
export function assessHost(inv: Inventory, host: HostSpec, raw: RawPki, now: number, t: CertThresholds = DEFAULT_THRESHOLDS): HostCerts {
  const controlPlane = host.roles.includes('control-plane');
  const entries: CertEntry[] = [];
  const pemOf = new Map<string, string>();
  const byPath = (f: PkiFile) => raw.files.get(f.path);
  for (const f of filesFor(controlPlane)) {
    const file = byPath(f);
    if (!file || !file.present) {
      if (f.required) entries.push({ host: host.name, id: f.id, path: f.path, role: f.role, problems: [{ severity: 'error', kind: 'missing', message: tr('missing: kubeadm writes this file on every control-plane node') }], notes: [] });
      continue;
    }
    if (!file.pems.length) {
      // kubelet.conf pointing at the rotated client certificate: that file is its own entry.
      if (file.certificateFile) continue;
      entries.push({ host: host.name, id: f.id, path: f.path, role: f.role, problems: [{ severity: 'error', kind: 'no-certificate', message: tr('no certificate in the file') }], notes: [] });
      continue;
    }
    const pem = file.pems[0]!;
    pemOf.set(f.id, pem);
    const e = certEntry(host.name, f.id, f.path, f.role, pem, now, t);
    if (f.serves && e.facts) {
      for (const need of requiredNames(inv, host, f.serves)) {
        if (!coversName(e.facts, need.name)) e.problems.push({ severity: need.severity, kind: 'san', message: tr('SANs do not include {0}: {1}', need.name, need.why) });
      }
    }
    if (f.id === 'kubelet-client' && e.facts) {
      const w = rotationWindow(e.facts.notBefore, e.facts.notAfter);
      if (raw.rotateCertificates === false) e.problems.push({ severity: 'warning', kind: 'rotation-off', message: tr('rotateCertificates is false in /var/lib/kubelet/config.yaml: the kubelet will not renew it, and the node drops out when it expires') });
      else e.notes.push(tr('renewed by the kubelet (rotateCertificates) between {0} and {1} (70–90 % of its life); issued {2}', w.from.slice(0, 10), w.to.slice(0, 10), e.facts.notBefore.slice(0, 10)));
    }
    if (f.id === 'kubelet.conf') {
      // The certificate is in the file itself: the kubelet's rotation never reaches it (kubeadm#1317).
      e.fix = 'kubelet-conf';
      e.problems.push({
        severity: e.expiry === 'error' || e.expiry === 'expired' ? 'error' : 'warning',
        kind: 'embedded-client-certificate',
        message: e.facts
          ? tr('embeds its client certificate (client-certificate-data): the kubelet renews {0} but keeps using this one, and the node drops out when it expires ({1}) (kubeadm#1317). Fix: kubeadm-workbench certs fix-kubelet-conf --host {2} (drains the node, points kubelet.conf at the rotated file, restarts the kubelet)', KUBELET_CLIENT_CURRENT, e.facts.notAfter.slice(0, 10), host.name)
          : tr('embeds its client certificate (client-certificate-data): the kubelet renews {0} but keeps using this one, and the node drops out when it expires (kubeadm#1317). Fix: kubeadm-workbench certs fix-kubelet-conf --host {1} (drains the node, points kubelet.conf at the rotated file, restarts the kubelet)', KUBELET_CLIENT_CURRENT, host.name),
      });
    }
    if (f.id === 'kubelet-serving' && e.facts?.selfSigned) e.notes.push(tr('self-signed by the kubelet; the API server does not verify it unless --kubelet-certificate-authority is set'));
    entries.push(e);
  }
  for (const e of entries) {
    const ca = ISSUER[e.id];
    const leaf = pemOf.get(e.id);
    const caPem = ca && pemOf.get(ca);
    if (leaf && caPem && !signedBy(leaf, caPem)) e.problems.push({ severity: 'error', kind: 'not-signed', message: tr("not signed by this node's {0}.crt: its clients will reject it", ca) });
  }
  return { host: host.name, address: host.address, controlPlane, entries, ...(raw.rotateCertificates !== undefined ? { kubeletRotates: raw.rotateCertificates } : {}) };
}

/** Entries sorted by days left (unreadable ones first, they need a look most). */
export function byDaysLeft(entries: readonly CertEntry[]): CertEntry[] {
  return [...entries].sort((a, b) => (a.daysLeft ?? -Infinity) - (b.daysLeft ?? -Infinity) || a.id.localeCompare(b.id));
}
