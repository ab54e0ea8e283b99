/**
 * What HAProxy on a balancer says about one backend server, read through its admin socket
 * (`show stat`, CSV) or — on a balancer with neither socat nor perl to talk to the socket — from
 * the journal's "Server <backend>/<server> is DOWN" lines.
 */

export interface ServerState {
  /** `UP`, `DOWN`, `UP 1/3` (failing, not yet DOWN), `DOWN 1/2` (recovering), `MAINT`, `no check`… */
  status: string;
  /** The last check's result, e.g. `L4TOUT` (connect timed out), `L4CON` (refused/unreachable), `L4OK`. */
  check?: string;
  /** Seconds since the last status change, as HAProxy counts them. */
  lastChangeSeconds?: number;
}

/** Whether a status string means the server is out of rotation. */
export function isDown(status: string): boolean {
  return /^(DOWN|MAINT|NOLB)/.test(status);
}

export function isUp(status: string): boolean {
  return /^UP/.test(status);
}

/**
 * `show stat` CSV: a `# pxname,svname,...` header naming the columns, then one row per proxy and
 * server. Columns are found by name (their order changed between HAProxy versions).
 */
export function parseShowStat(csv: string, backend: string, server: string): ServerState | undefined {
  const lines = csv.split('\n');
  const header = lines.find((l) => l.startsWith('# '));
  if (!header) return undefined;
  const cols = header.slice(2).split(',');
  const at = (name: string) => cols.indexOf(name);
  const [px, sv, st, chk, lc] = [at('pxname'), at('svname'), at('status'), at('check_status'), at('lastchg')];
  if (px < 0 || sv < 0 || st < 0) return undefined;
  for (const l of lines) {
    if (!l || l.startsWith('#')) continue;
    const f = l.split(',');
    if (f[px] !== backend || f[sv] !== server) continue;
    const out: ServerState = { status: f[st] ?? '' };
    if (chk >= 0 && f[chk]) out.check = f[chk]!.replace(/^\* ?/, '');
    if (lc >= 0 && f[lc] && /^\d+$/.test(f[lc]!)) out.lastChangeSeconds = Number(f[lc]);
    return out;
  }
  return undefined;
}

/**
 * The journal fallback: the last "Server B/S is UP|DOWN" line for this server decides; no line means
 * no change since the drill began (the caller's baseline, UP).
 */
export function parseJournalState(text: string, backend: string, server: string): ServerState | undefined {
  let state: ServerState | undefined;
  const needle = `Server ${backend}/${server} is `;
  for (const line of text.split('\n')) {
    const i = line.indexOf(needle);
    if (i < 0) continue;
    const rest = line.slice(i + needle.length);
    const m = /^(UP|DOWN)/.exec(rest);
    if (!m) continue;
    const reason = /reason: ([^,]+)/.exec(rest)?.[1];
    state = { status: m[1]!, ...(reason ? { check: reason.trim() } : {}) };
  }
  return state;
}
