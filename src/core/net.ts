/** IPv4 arithmetic for the checks that compare addresses and subnets (no DNS, no sockets). */
export interface Cidr {
  base: number;
  bits: number;
}

export function ipv4ToInt(address: string): number | undefined {
  const parts = address.split('.');
  if (parts.length !== 4) return undefined;
  let value = 0;
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part)) return undefined;
    const n = Number(part);
    if (n > 255) return undefined;
    value = value * 256 + n;
  }
  return value;
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
