/**
 * What a certificate says, read from PEM text: subject, issuer, validity, SANs, whether it is a CA and
 * its SHA-256 fingerprint (what "the served certificate is the one on disk" is decided by). Only public
 * certificates pass through here: the remote reader strips private keys before anything leaves a host.
 */
import { X509Certificate } from 'node:crypto';
import { isIP } from 'node:net';
import { errorMessage } from '../errors';

export interface CertFacts {
  subject: string;
  issuer: string;
  /** ISO 8601. */
  notBefore: string;
  notAfter: string;
  serial: string;
  /** `AA:BB:…` (SHA-256 of the DER). */
  fingerprint: string;
  isCA: boolean;
  selfSigned: boolean;
  dnsNames: string[];
  /** Canonical form (IPv6 compressed, lower case). */
  ipAddresses: string[];
}

const PEM_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;

/** Every CERTIFICATE block in `text`, in order (a kubelet-client-current.pem may carry a chain). */
export function pemBlocks(text: string): string[] {
  return text.match(PEM_BLOCK) ?? [];
}

/** `O=a\nCN=b` (Node's form) → `O=a, CN=b`. */
function oneLine(dn: string): string {
  return dn.split('\n').filter(Boolean).join(', ');
}

/** IPv6 in its compressed canonical form; IPv4 unchanged; anything else lower-cased. */
export function canonicalAddress(address: string): string {
  const a = address.trim().replace(/^\[|\]$/g, '');
  if (isIP(a) === 6) {
    try {
      return new URL(`http://[${a}]/`).hostname.replace(/^\[|\]$/g, '');
    } catch {
      return a.toLowerCase();
    }
  }
  return a.toLowerCase();
}

/**
 * Node prints SANs as `DNS:a, IP Address:1.2.3.4, …`; values that themselves contain a comma or quote are
 * printed JSON-quoted. Only DNS and IP entries matter to a TLS client checking a host name.
 */
export function parseSubjectAltName(text: string | undefined): { dnsNames: string[]; ipAddresses: string[] } {
  const dnsNames: string[] = [];
  const ipAddresses: string[] = [];
  if (!text) return { dnsNames, ipAddresses };
  const entry = /(DNS|IP Address|[A-Za-z ]+):("(?:[^"\\]|\\.)*"|[^,]*)(?:,\s*|$)/g;
  for (const m of text.matchAll(entry)) {
    let value = m[2]!.trim();
    if (value.startsWith('"')) {
      try {
        value = JSON.parse(value) as string;
      } catch {
        value = value.slice(1, -1);
      }
    }
    if (m[1] === 'DNS') dnsNames.push(value.toLowerCase());
    else if (m[1] === 'IP Address') ipAddresses.push(canonicalAddress(value));
  }
  return { dnsNames, ipAddresses };
}

export class CertParseError extends Error {}

/** Parses one PEM (or DER) certificate. */
export function parseCertificate(pemOrDer: string | Buffer): CertFacts {
  let c: X509Certificate;
  try {
    c = new X509Certificate(pemOrDer);
  } catch (e) {
    throw new CertParseError(`not a readable X.509 certificate: ${errorMessage(e)}`);
  }
  const san = parseSubjectAltName(c.subjectAltName);
  return {
    subject: oneLine(c.subject),
    issuer: oneLine(c.issuer),
    notBefore: new Date(c.validFrom).toISOString(),
    notAfter: new Date(c.validTo).toISOString(),
    serial: c.serialNumber,
    fingerprint: c.fingerprint256,
    isCA: c.ca,
    selfSigned: c.subject === c.issuer && c.checkIssued(c),
    ...san,
  };
}

const DAY_MS = 86_400_000;

/** Whole days until `notAfter` (negative once expired; 0 on the last day). */
export function daysLeft(notAfter: string, now: number): number {
  return Math.floor((Date.parse(notAfter) - now) / DAY_MS);
}

/**
 * Does the certificate cover `name` the way a TLS client checks it? IP addresses only match IP SANs;
 * DNS names match exactly or through a single left-most `*.` label.
 */
export function coversName(cert: Pick<CertFacts, 'dnsNames' | 'ipAddresses'>, name: string): boolean {
  const n = canonicalAddress(name);
  if (isIP(n)) return cert.ipAddresses.includes(n);
  return cert.dnsNames.some((d) => d === n || (d.startsWith('*.') && n.includes('.') && n.slice(n.indexOf('.')) === d.slice(1)));
}
