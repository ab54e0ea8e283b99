/** Shared generator of hostile shell values for the quoting fuzz tests (local sh/bash and through sshd). */
import { secret, sh, type RemoteCommand } from '../../../src/core/ssh/command';

/** mulberry32: a small seeded PRNG so every run fuzzes the same cases (and a failure is reproducible). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Pieces hostile to shells: quoting, expansion, separators, redirections, option-looking text, unicode. */
export function hostilePieces(canary: string): string[] {
  return [
    "'", '"', '`', '\\', '$', '$(', ')', '${', '}', '$((1+1))', '$HOME', '$0', '$@', '$*', '$?', '!', '!!', '\n', '\r', '\t', ' ', '  ',
    ';', '&', '&&', '|', '||', '<', '>', '>>', '2>&1', '*', '?', '[', ']', '[a-z]', '{a,b}', '~', '~root', '#', '%', '=', '-', '--', '-rf',
    '--token=', '-e', '-n', '\\n', "'\\''", "'\"'\"'", `$(touch ${canary})`, `\`touch ${canary}\``, `'; touch ${canary}; '`,
    `"; touch ${canary}; "`, `\n touch ${canary}\n`, `$(printf x)`, 'é', 'ß', 'Ω', '中文', '😀', '\u202e', '\u200b', '\u00a0', 'ﬁ',
    'labs-k8s-m01', '10.3.60.51', '/etc/kubernetes/pki', 'a b', 'IFS', '\u0001', '\u001b[31m', '\u007f', '%s', '%n', '\\0',
  ];
}

export function hostile(r: () => number, pieces: readonly string[]): string {
  const n = Math.floor(r() * 6);
  let s = '';
  for (let i = 0; i < n; i++) {
    if (r() < 0.75) s += pieces[Math.floor(r() * pieces.length)]!;
    else s += String.fromCodePoint(r() < 0.8 ? 0x20 + Math.floor(r() * 0x5f) : 0xa0 + Math.floor(r() * 0x2ff00));
  }
  // Lone surrogates have no UTF-8 form (quote() refuses them): keep proper text only.
  return Buffer.from(s, 'utf8').toString('utf8');
}

export interface FuzzCase {
  values: string[];
  cmd: RemoteCommand;
}

/** One case: printf every value NUL-terminated; nested cases go through an extra `sh -c` (like sudo does). */
export function makeCase(r: () => number, pieces: readonly string[]): FuzzCase {
  const count = 1 + Math.floor(r() * 4);
  const values = Array.from({ length: count }, () => hostile(r, pieces));
  const kind = r();
  let cmd: RemoteCommand;
  if (kind < 0.5) cmd = sh`printf '%s\\0' ${values}`;
  else if (kind < 0.7) cmd = sh`printf '%s\\0' ${values.map((v) => secret(v))}`;
  else if (kind < 0.9) cmd = sh`sh -c ${sh`printf '%s\\0' ${values}`.text}`;
  else cmd = sh`sh -c ${sh`sh -c ${sh`printf '%s\\0' ${values}`.text}`.text}`;
  return { values, cmd };
}

/** The exact bytes a batch of cases prints when every value arrives as one argument (record separator after each). */
export function expectedOutput(cases: readonly FuzzCase[]): Buffer {
  return Buffer.concat(cases.map((c) => Buffer.from(`${c.values.map((v) => `${v}\0`).join('')}\x1e\n`, 'utf8')));
}

/** The script of a batch: each case's command, then a record separator line. */
export function batchScript(cases: readonly FuzzCase[]): string {
  return cases.map((c) => `${c.cmd.text}\nprintf '\\036\\n'`).join('\n');
}
