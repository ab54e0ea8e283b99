/**
 * What the API servers actually serve, against the files on disk. kube-apiserver reads apiserver.crt once
 * at start: after `kubeadm certs renew` the file is new but the old certificate is served until the static
 * pod restarts — "renewed on disk but not restarted", the state that still expires on the old date.
 */
import { hostsWithRole, splitEndpoint, type Inventory } from '../inventory/types';
import { expiryLevel, type CertProblem, type CertThresholds, type ExpiryLevel, type HostCerts } from './assess';
import { coversName, daysLeft, type CertFacts } from './x509';
import { t as tr } from '../l10n';

/** One TLS handshake's outcome (the adapter fills it; the certificate is only read, never trusted). */
export interface ServedProbe {
  /** An inventory host name, or `endpoint` for the controlPlaneEndpoint (the VIP). */
  target: string;
  address: string;
  port: number;
  facts?: CertFacts;
  error?: string;
}

export interface ServedCheck extends ServedProbe {
  daysLeft?: number;
  expiry?: ExpiryLevel;
  /** The control-plane host whose apiserver.crt on disk is the served one. */
  matchesHost?: string;
  problems: CertProblem[];
}

/** Where to handshake: the endpoint and every control-plane node's 6443. */
export function servedTargets(inv: Inventory): { target: string; address: string; port: number }[] {
  const out: { target: string; address: string; port: number }[] = [];
  const ep = splitEndpoint(inv.cluster.controlPlaneEndpoint);
  if (ep) out.push({ target: 'endpoint', address: ep.host, port: ep.port });
  for (const h of hostsWithRole(inv, 'control-plane')) out.push({ target: h.name, address: h.address, port: 6443 });
  return out;
}

export function assessServed(probes: readonly ServedProbe[], hosts: readonly HostCerts[], now: number, t: CertThresholds): ServedCheck[] {
  const onDisk = new Map<string, string>(); // fingerprint → host
  for (const h of hosts) {
    const a = h.entries.find((e) => e.id === 'apiserver');
    if (a?.facts) onDisk.set(a.facts.fingerprint, h.host);
  }
  return probes.map((p) => {
    const check: ServedCheck = { ...p, problems: [] };
    if (!p.facts) {
      check.problems.push({ severity: 'warning', kind: 'no-handshake', message: tr('no TLS handshake with {0}:{1}: {2}', p.address, p.port, p.error ?? tr('no certificate')) });
      return check;
    }
    check.daysLeft = daysLeft(p.facts.notAfter, now);
    check.expiry = expiryLevel(check.daysLeft, t);
    if (check.expiry !== 'ok') {
      // English until src/core/live/certProblems.ts matches the kind instead of these words
      check.problems.push({ severity: check.expiry === 'warning' ? 'warning' : 'error', kind: 'served-expiry', message: check.expiry === 'expired' ? tr('the served certificate has expired ({0})', p.facts.notAfter) : tr('the served certificate expires in {0} day(s) ({1})', check.daysLeft, p.facts.notAfter) });
    }
    if (!coversName(p.facts, p.address)) check.problems.push({ severity: 'error', kind: 'served-san', message: tr('the served certificate does not cover {0}: clients dialing it fail with "x509: certificate is valid for …"', p.address) });
    const match = onDisk.get(p.facts.fingerprint);
    if (match) check.matchesHost = match;
    const self = hosts.find((h) => h.host === p.target);
    if (self) {
      const disk = self.entries.find((e) => e.id === 'apiserver')?.facts;
      if (disk && disk.fingerprint !== p.facts.fingerprint) {
        check.problems.push({
          severity: 'warning',
          kind: 'served-not-on-disk',
          message: tr('serves a different certificate than apiserver.crt on disk (served until {0}, on disk until {1}): renewed on disk but kube-apiserver not restarted', p.facts.notAfter, disk.notAfter),
        });
      }
    } else if (p.target === 'endpoint' && !match && onDisk.size) {
      check.problems.push({ severity: 'warning', kind: 'served-unknown', message: tr("the endpoint serves a certificate that is no control-plane node's apiserver.crt on disk (a stale API server behind the balancer, or another cluster)") });
    }
    return check;
  });
}
