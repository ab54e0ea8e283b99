/**
 * The type of every inventory field: a check that answers why a value is refused, or undefined when the
 * target tool accepts it. Each pattern is the narrowest one the consumer of the value accepts — the Linux
 * kernel for interface names, Kubernetes for node names and labels, getaddrinfo for addresses (which reads
 * `010` as octal, so only canonical dotted quads pass) — because what the inventory says ends up in files and
 * commands that run as root on every node. A value that passes here is safe to place in any generated
 * file through that file's own writer, and in any remote path or command built from it.
 */
import { ipv4ToInt, parseCidr, specialIPv4 } from '../net';
import { t } from '../l10n';

export type FieldCheck = (value: string) => string | undefined;

const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

/** A dotted quad exactly as getaddrinfo, ssh, HAProxy and the kernel read it: 0–255, no leading zeros, four parts. */
export const canonicalIPv4: FieldCheck = (v) => {
  if (isIPv6Like(v)) return t('IPv6 is not supported: the load balancer, etcd peer URLs and generated files are IPv4-only; use an IPv4 address');
  if (!/^\d{1,3}(\.\d{1,3}){3}$/.test(v) || ipv4ToInt(v) === undefined) return t('is not an IPv4 address like 10.3.60.51');
  if (v.split('.').some((p) => p.length > 1 && p.startsWith('0'))) return t('has a leading zero, which ssh and HAProxy read as octal (another machine): write it without leading zeros');
  return undefined;
};

/** A host's own address: canonical, and not one of the ranges no host can hold (specialIPv4; loopback passes). */
export const nodeAddress: FieldCheck = (v) => canonicalIPv4(v) ?? specialIPv4(v);

export function isIPv6Like(v: string): boolean {
  return /^\[?[0-9a-f]*:[0-9a-f:.%]*\]?$/i.test(v) && v.split(':').length > 2;
}

/** One DNS label (RFC 1123): what Kubernetes accepts as a cluster name or a label name part. */
export const dnsLabel: FieldCheck = (v) => {
  if (v.length > 63) return t('is {0} characters long; at most 63 are allowed', v.length);
  if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(v)) return t("must be lowercase letters, digits and '-', starting and ending with a letter or digit");
  return undefined;
};

/** A DNS-1123 subdomain: a Kubernetes Node name (also HAProxy's server name and Keepalived's router_id). */
export const dnsSubdomain: FieldCheck = (v) => {
  if (v.length > 253) return t('is {0} characters long; a node name has at most 253', v.length);
  const bad = v.split('.').map(dnsLabel).find((x) => x);
  return bad ? t("must be dot-separated parts that are lowercase letters, digits and '-' (each at most 63 characters)") : undefined;
};

/** A host part of an address: a canonical IPv4 address or a DNS name. */
export const hostName: FieldCheck = (v) => {
  if (/^[\d.]+$/.test(v)) return canonicalIPv4(v);
  if (isIPv6Like(v) || v.startsWith('[')) return canonicalIPv4(v);
  if (v.length > 253 || !/^[A-Za-z0-9]([-A-Za-z0-9]*[A-Za-z0-9])?(\.[A-Za-z0-9]([-A-Za-z0-9]*[A-Za-z0-9])?)*$/.test(v) || v.split('.').some((l) => l.length > 63)) {
    return t('is not a host name or IPv4 address');
  }
  return undefined;
};

/** A TCP port written as a plain decimal number, 1–65535. */
export function portProblem(p: string): string | undefined {
  return /^[1-9]\d{0,4}$/.test(p) && Number(p) <= 65535 ? undefined : t('port {0} is not a TCP port (1–65535)', p);
}

/** `host:port` where host is an IPv4 address or a DNS name. */
export const hostPort: FieldCheck = (v) => {
  if (isIPv6Like(v.replace(/:\d+$/, '')) || v.startsWith('[')) return t('IPv6 is not supported: use an IPv4 address and port like 10.3.60.100:6443');
  const m = /^([^:]+):([^:]+)$/.exec(v);
  if (!m) return t('must be host:port, e.g. 10.3.60.100:6443');
  return hostName(m[1]!) ?? portProblem(m[2]!);
};

/** A registry as containerd and kubeadm name it: `host[:port]` (also the folder name under certs.d). */
export const registryHost: FieldCheck = (v) => {
  const m = /^([^:/]+)(?::([^:/]+))?$/.exec(v);
  if (!m) return t('must be a registry host name with an optional :port, e.g. registry.example.com:5000');
  return hostName(m[1]!) ?? (m[2] !== undefined ? portProblem(m[2]) : undefined);
};

const PATH_COMPONENT = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$/;

/** kubeadm's imageRepository: `host[:port][/path...]` with the OCI reference grammar's path parts. */
export const imageRepository: FieldCheck = (v) => {
  const [host, ...path] = v.split('/');
  const bad = registryHost(host ?? '');
  if (bad) return bad;
  if (path.some((p) => !PATH_COMPONENT.test(p))) return t('has a path part that is not lowercase letters, digits and single separators (. _ -)');
  return v.length > 255 ? t('is longer than 255 characters') : undefined;
};

/** An http(s) URL with nothing a config writer or a shell must escape: host, optional port, plain path. */
export function urlProblem(v: string, httpsOnly: boolean): string | undefined {
  const m = /^(https?):\/\/([^/:?#]+)(?::([^/?#]+))?(\/[A-Za-z0-9._~!$&'()*+,;=:@%/-]*)?$/.exec(v);
  if (!m) return t('is not a plain {0} URL (scheme://host[:port]/path, no spaces, quotes, query or fragment)', httpsOnly ? 'https' : 'http(s)');
  if (httpsOnly && m[1] !== 'https') return t('must be an https URL');
  if (/[$'()*;!&]/.test(m[4] ?? '')) return t("has a character in its path ($ ' ( ) * ; ! &) that is not needed in a package or mirror URL");
  if (v.length > 2048) return t('is longer than 2048 characters');
  return hostName(m[2]!) ?? (m[3] !== undefined ? portProblem(m[3]) : undefined);
}

/** A registry mirror: `host[:port]` or an http(s) URL (containerd's hosts.toml `[host."…"]`). */
export const mirrorEndpoint: FieldCheck = (v) => (/^[a-z]+:\/\//i.test(v) ? urlProblem(v, false) : registryHost(v));

export const httpsUrl: FieldCheck = (v) => urlProblem(v, true);

/** A key or manifest URL: https, or http for an air-gapped mirror on the local network (warned: see inventory/plain-http). */
export const downloadUrl: FieldCheck = (v) => urlProblem(v, false);

/** A full Kubernetes version `1.minor.patch`: kubelet, kubeadm and kubectl are pinned to it. */
export const kubernetesVersion: FieldCheck = (v) =>
  /^v?1\.(0|[1-9]\d{0,2})\.(0|[1-9]\d{0,3})$/.test(v) ? undefined : t('is not a full Kubernetes version like 1.30.14');

/** An IPv4 CIDR written canonically, with the host bits zero (what kubeadm and the controller manager accept). */
export function cidrProblem(v: string, minBits: number, maxBits: number): string | undefined {
  const m = /^([^/]+)\/(\d{1,2})$/.exec(v);
  if (!m) return isIPv6Like(v.split('/')[0] ?? '') ? t('IPv6 is not supported: use an IPv4 CIDR') : t('is not an IPv4 CIDR like 10.244.0.0/16');
  const ip = canonicalIPv4(m[1]!);
  if (ip) return `address ${ip}`;
  const bits = Number(m[2]);
  if (String(bits) !== m[2] || bits < minBits || bits > maxBits) return t('prefix /{0} is outside /{1}–/{2}', m[2], minBits, maxBits);
  const cidr = parseCidr(v)!;
  if (cidr.base !== ipv4ToInt(m[1]!)) return t('has host bits set: write the network address of the subnet');
  return undefined;
}

/** A Linux network interface name (the kernel's dev_valid_name, narrowed to what `ip` prints unambiguously). */
export const interfaceName: FieldCheck = (v) => {
  if (v.length > 15) return t('is longer than 15 characters, the kernel limit for interface names');
  if (v === '.' || v === '..' || !/^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(v)) return t("is not an interface name (letters, digits, '_', '.', '-')");
  return undefined;
};

/** A login name as useradd accepts it. */
export const userName: FieldCheck = (v) => (/^[a-z_][a-z0-9_-]{0,31}$/.test(v) ? undefined : t('is not a Unix user name (lowercase letters, digits, _ and -, at most 32)'));

/** OpenSSH ProxyJump: `[user@]host[:port]` hops separated by commas, or an inventory host's name. */
export const proxyJump: FieldCheck = (v) => {
  for (const hop of v.split(',')) {
    const m = /^(?:([^@]+)@)?([^@:]+)(?::([^:]+))?$/.exec(hop);
    if (!m) return t('hop "{0}" is not [user@]host[:port]', hop);
    const bad = (m[1] !== undefined ? userName(m[1]) : undefined) ?? hostName(m[2]!) ?? (m[3] !== undefined ? portProblem(m[3]) : undefined);
    if (bad) return `hop "${hop}" ${bad}`;
  }
  return undefined;
};

/** A path on this machine that ssh reads (an identity file): no control characters, a sane length. */
export const localPathText: FieldCheck = (v) => (CONTROL.test(v) ? t('contains a control character') : v.length > 1024 ? t('is longer than 1024 characters') : undefined);

/** A file inside the workspace: relative, no `..`, no control characters (confined again by realpath when read). */
export const workspaceRelativePath: FieldCheck = (v) => {
  if (CONTROL.test(v)) return t('contains a control character');
  if (v.startsWith('/') || v.startsWith('~') || /^[A-Za-z]:/.test(v) || v.startsWith('\\')) return t('must be a path relative to the inventory folder, not an absolute one');
  if (v.split(/[\\/]/).some((p) => p === '..')) return t("must stay inside the inventory folder (no '..')");
  return v.length > 1024 ? t('is longer than 1024 characters') : undefined;
};

/** A CNI manifest: an https URL, or a file inside the workspace. */
export const manifestRef: FieldCheck = (v) => (/^[a-z]+:/i.test(v) ? downloadUrl(v) : workspaceRelativePath(v));

/** A kubeadm preflight check name (SystemVerification, Swap, Port-6443, FileAvailable--etc-…, all). */
export const preflightCheck: FieldCheck = (v) =>
  /^[A-Za-z][A-Za-z0-9._-]{0,127}$/.test(v) ? undefined : t('is not a kubeadm preflight check name like SystemVerification or Port-6443');

/** A Kubernetes label key: `[prefix/]name` with a DNS-subdomain prefix and a 63-character name. */
export const labelKey: FieldCheck = (v) => {
  const parts = v.split('/');
  if (parts.length > 2) return t("has more than one '/'");
  const name = parts.pop()!;
  const prefix = parts[0];
  if (prefix !== undefined && (prefix === '' || dnsSubdomain(prefix))) return t('has a prefix that is not a DNS subdomain');
  return labelValue(name) ?? (name === '' ? t('has an empty name') : undefined);
};

export const labelValue: FieldCheck = (v) => {
  if (v.length > 63) return t('is {0} characters long; at most 63 are allowed', v.length);
  return v === '' || /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/.test(v) ? undefined : t("must be letters, digits, '-', '_' and '.', starting and ending with a letter or digit");
};
