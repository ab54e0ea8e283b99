/**
 * JSON.parse that keeps integers beyond 2^53 exact: etcdctl prints uint64 member and cluster IDs as
 * bare JSON numbers, which JSON.parse would round. Integer literals of 16+ digits outside strings are
 * turned into strings before parsing; convert them with BigInt (`BigInt(x).toString(16)` for etcd IDs).
 */
export function parseJsonBigSafe(text: string): unknown {
  let out = '';
  let last = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 92 /* \ */) i++;
      else if (ch === 34 /* " */) inString = false;
      continue;
    }
    if (ch === 34) {
      inString = true;
      continue;
    }
    if (ch === 45 /* - */ || (ch >= 48 && ch <= 57)) {
      let j = i + 1;
      while (j < text.length && /[0-9eE.+-]/.test(text[j]!)) j++;
      const token = text.slice(i, j);
      if (/^-?\d{16,}$/.test(token)) {
        out += text.slice(last, i) + `"${token}"`;
        last = j;
      }
      i = j - 1;
    }
  }
  return JSON.parse(out + text.slice(last));
}

/** A uint64 from etcd (number, decimal string or bigint) as lower-case hex like etcdctl's table output. */
export function hexId(x: unknown): string | undefined {
  if (x === undefined || x === null || x === '') return undefined;
  try {
    return BigInt(x as string | number | bigint).toString(16);
  } catch {
    return undefined;
  }
}

/** An int64 field that may be a number (etcdctl) or a decimal string (JSON gateway). */
export function num(x: unknown): number | undefined {
  if (x === undefined || x === null || x === '') return undefined;
  const n = Number(x);
  return Number.isFinite(n) ? n : undefined;
}
