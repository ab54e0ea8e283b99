/** IPv4 arithmetic for the checks that compare addresses and subnets (no DNS, no sockets). */
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
