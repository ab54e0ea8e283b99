/** IPv4 arithmetic for the checks that compare addresses and subnets (no DNS, no sockets). */
import { t } from './l10n';

export interface Cidr {
  base: number;
  bits: number;
}

export function ipv4ToInt(address: string): number | undefined {
  // four dot-separated groups of 1–3 digits, each ≤ 255; read in one pass (the linters call this per line)
  let value = 0;
  let part = 0;
  let digits = 0;
  let groups = 0;
  for (let i = 0; i <= address.length; i++) {
    const c = i < address.length ? address.charCodeAt(i) : 46;
    if (c === 46) {
      if (digits === 0 || part > 255 || ++groups > 4) return undefined;
      value = value * 256 + part;
      part = 0;
      digits = 0;
    } else if (c >= 48 && c <= 57 && digits < 3) {
      part = part * 10 + (c - 48);
      digits++;
    } else return undefined;
  }
  return groups === 4 ? value : undefined;
}

export function intToIpv4(value: number): string {
  return [24, 16, 8, 0].map((s) => Math.floor(value / 2 ** s) % 256).join('.');
}

export function isIPv4(address: string): boolean {
  return ipv4ToInt(address) !== undefined;
}

export function parseCidr(text: string): Cidr | undefined {
  const m = /^([\d.]+)\/(\d{1,2})$/.exec(text.trim());
  if (!m) return undefined;
  const ip = ipv4ToInt(m[1]!);
  const bits = Number(m[2]);
  if (ip === undefined || bits > 32) return undefined;
  const size = 2 ** (32 - bits);
  return { base: ip - (ip % size), bits };
}

export function cidrContains(cidr: Cidr, address: string): boolean {
  const ip = ipv4ToInt(address);
  if (ip === undefined) return false;
  return ip >= cidr.base && ip < cidr.base + 2 ** (32 - cidr.bits);
}

export function cidrsOverlap(a: Cidr, b: Cidr): boolean {
  const aEnd = a.base + 2 ** (32 - a.bits);
  const bEnd = b.base + 2 ** (32 - b.bits);
  return a.base < bEnd && b.base < aEnd;
}

/**
 * Why an IPv4 address can be no host's own (undefined when it can): the ranges the kernel, ARP and routing treat
 * specially. Loopback (127/8) is not among them: the tests run hosts on it.
 */
export function specialIPv4(address: string): string | undefined {
  const ip = ipv4ToInt(address);
  if (ip === undefined) return undefined;
  const first = Math.floor(ip / 2 ** 24);
  if (first === 0) return t('is in 0.0.0.0/8 ("this network"): 0.0.0.0 means any address, never one host');
  if (ip === 2 ** 32 - 1) return t('is the limited broadcast address: every host on the link receives it');
  if (address === '224.0.0.18') return t("is VRRP's own multicast group (224.0.0.18): Keepalived sends its adverts there");
  if (first >= 224 && first <= 239) return t('is a multicast address (224.0.0.0/4): a group, not a host');
  if (first >= 240) return t('is reserved (240.0.0.0/4): Linux does not route it');
  if (first === 169 && Math.floor(ip / 2 ** 16) % 256 === 254) return t('is link-local (169.254.0.0/16): it is not routed off its link and changes with it');
  return undefined;
}

/** The first and last address of the subnet (its network and broadcast addresses). */
export function cidrEnds(cidr: Cidr): { network: string; broadcast: string } {
  return { network: intToIpv4(cidr.base), broadcast: intToIpv4(cidr.base + 2 ** (32 - cidr.bits) - 1) };
}
