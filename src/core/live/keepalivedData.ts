/**
 * Keepalived's own account of its VRRP state, read the way an admin does: `kill -s $(keepalived --signum=DATA)
 * $(cat /run/keepalived.pid)` makes keepalived (2.2.7 on Debian 12 as on 2.0 and later) write /tmp/keepalived.data —
 * per VRRP instance its state, base and effective priority, the master it hears, the master-down timer, the tracked
 * scripts with their weights; per vrrp_script its interval, fall, rise and GOOD/BAD status — and `--signum=STATS`
 * writes /tmp/keepalived.stats (adverts received and sent, authentication errors).
 *
 * keepalived writes them into $TMPDIR when its environment sets one, else /tmp.
 *
 * The dump holds the VRRP password and each script's command line: the command keeps only the lines read here, on the
 * host, so neither ever leaves it.
 */
import { sh, type RemoteCommand } from '../ssh/command';
import { t } from '../l10n';

/** The dump's lines this module reads (everything else, the password first, stays on the host). */
export const DATA_LINES =
  '^------<|^ VRRP (Instance|Script) = |^   (State|Master router|Master priority|Last transition|Master down timer|Interface|Virtual Router ID|Priority|Effective priority|Total priority|Advert interval|Preempt|Preempt delay|Interval|Timeout|Weight|Rise|Fall|Status) = |^   Tracked scripts|^     [^ ]+ weight -?[0-9]+$|^     [0-9a-f.:]+(/[0-9]+)? ';
export const STATS_LINES = '^VRRP Instance: |^  (Advertisements|Authentication Errors|Became master|Released master)|^    (Received|Sent|Invalid Type|Type Mismatch|Failure): ';

/**
 * The DATA and STATS dumps of the running keepalived, each after a `### keepalived-data` / `### keepalived-stats`
 * marker; nothing after a marker when keepalived does not run or does not write the file within 2 s. The dump is
 * asynchronous and not atomic (keepalived truncates the file, then writes it): the fresh one is newer than a marker
 * file made before the signal, and complete once its size stays the same for 50 ms.
 */
export function keepalivedDumpCommand(): RemoteCommand {
  return sh`echo '### keepalived-data'; p=$(cat /run/keepalived.pid 2>/dev/null); if [ -n "$p" ] && kill -0 "$p" 2>/dev/null && command -v keepalived >/dev/null 2>&1; then d=$(tr '\\0' '\\n' </proc/$p/environ 2>/dev/null | sed -n 's/^TMPDIR=//p'); d=\${d:-/tmp}; m=$(mktemp "$d/kw-dump.XXXXXX"); for kind in DATA STATS; do f=$d/keepalived.$(echo $kind | tr A-Z a-z); if [ $kind = STATS ]; then echo '### keepalived-stats'; fi; kill -s "$(keepalived --signum=$kind)" "$p" 2>/dev/null || continue; i=0; while [ $i -lt 40 ] && ! [ "$f" -nt "$m" ]; do sleep 0.05; i=$((i+1)); done; a=-1; b=$(wc -c <"$f" 2>/dev/null || echo 0); while [ $i -lt 40 ] && { [ "$a" != "$b" ] || [ "$b" = 0 ]; }; do sleep 0.05; a=$b; b=$(wc -c <"$f" 2>/dev/null || echo 0); i=$((i+1)); done; if [ "$f" -nt "$m" ]; then if [ $kind = DATA ]; then grep -E ${DATA_LINES} "$f"; else grep -E ${STATS_LINES} "$f"; fi; fi; done; rm -f "$m"; else echo '### keepalived-stats'; fi`;
}

/** The two parts of the dump command's output. */
export function splitDump(text: string): { data: string; stats: string } {
  const [, rest = ''] = text.split('### keepalived-data\n');
  const [data = '', stats = ''] = rest.split('### keepalived-stats\n');
  return { data, stats };
}

export type KeepalivedState = 'MASTER' | 'BACKUP' | 'FAULT' | 'INIT' | 'STOP' | 'DELETED';

export interface TrackedScript {
  name: string;
  /** The weight this instance gives the script (its own or the script's). */
  weight: number;
  /** GOOD, BAD, INIT…; undefined when the script section was not in the dump. */
  status: string | undefined;
  intervalSeconds: number | undefined;
  fall: number | undefined;
  rise: number | undefined;
}

export interface VrrpInstanceData {
  name: string;
  state: KeepalivedState | string;
  vrid: number | undefined;
  interface: string | undefined;
  priority: number | undefined;
  effectivePriority: number | undefined;
  /** The master this BACKUP hears, and its priority. */
  masterRouter: string | undefined;
  masterPriority: number | undefined;
  /** Epoch seconds of the last state change (the host's clock). */
  lastTransition: number | undefined;
  /** Master_Down_Interval keepalived runs with: 3 × advert_int + (256 − effective priority)/256 s. */
  masterDownMs: number | undefined;
  advertSeconds: number | undefined;
  preempt: boolean | undefined;
  preemptDelaySeconds: number | undefined;
  /** The VIPs with whether keepalived has them set on the interface now. */
  vips: { address: string; set: boolean }[];
  scripts: TrackedScript[];
  stats?: VrrpStats | undefined;
}

export interface VrrpStats {
  advertsReceived: number;
  advertsSent: number;
  /** Invalid type + type mismatch + failure: adverts dropped for their authentication. */
  authErrors: number;
  becameMaster: number;
  releasedMaster: number;
}

const num = (v: string | undefined): number | undefined => {
  const n = v === undefined ? NaN : Number.parseFloat(v);
  return Number.isFinite(n) ? n : undefined;
};

/** The instances of a DATA dump (filtered by the command above); STATS joined by instance name. */
export function parseKeepalivedDump(data: string, stats = ''): VrrpInstanceData[] {
  const instances: VrrpInstanceData[] = [];
  const scripts = new Map<string, { status?: string; interval?: number; fall?: number; rise?: number; weight?: number }>();
  let section = '';
  let inst: VrrpInstanceData | undefined;
  let script: string | undefined;
  let inTracked = false;
  for (const raw of data.split('\n')) {
    const line = raw.replace(/\r$/, '');
    const head = /^------< (.+) >------$/.exec(line);
    if (head) {
      section = head[1]!;
      inst = undefined;
      script = undefined;
      continue;
    }
    const instHead = /^ VRRP Instance = (\S+)/.exec(line);
    if (instHead && section === 'VRRP Topology') {
      inst = { name: instHead[1]!, state: '?', vrid: undefined, interface: undefined, priority: undefined, effectivePriority: undefined, masterRouter: undefined, masterPriority: undefined, lastTransition: undefined, masterDownMs: undefined, advertSeconds: undefined, preempt: undefined, preemptDelaySeconds: undefined, vips: [], scripts: [] };
      instances.push(inst);
      inTracked = false;
      continue;
    }
    const scriptHead = /^ VRRP Script = (\S+)/.exec(line);
    if (scriptHead && section === 'VRRP Scripts') {
      script = scriptHead[1]!;
      scripts.set(script, {});
      continue;
    }
    const kv = /^ {3}([A-Za-z ]+?) = (.*)$/.exec(line);
    if (inst && section === 'VRRP Topology') {
      if (kv) {
        inTracked = false;
        const [, k, v] = kv as unknown as [string, string, string];
        if (k === 'State') inst.state = v.trim();
        else if (k === 'Virtual Router ID') inst.vrid = num(v);
        else if (k === 'Interface') inst.interface = v.trim();
        else if (k === 'Priority') inst.priority = num(v);
        else if (k === 'Effective priority') inst.effectivePriority = num(v);
        else if (k === 'Master router') inst.masterRouter = v.trim();
        else if (k === 'Master priority') inst.masterPriority = num(v);
        else if (k === 'Last transition') inst.lastTransition = num(v);
        else if (k === 'Master down timer') inst.masterDownMs = num(v) === undefined ? undefined : num(v)! / 1000;
        else if (k === 'Advert interval') inst.advertSeconds = /milli/.test(v) ? (num(v) ?? 0) / 1000 : num(v);
        else if (k === 'Preempt') inst.preempt = /enabled/.test(v);
        else if (k === 'Preempt delay') inst.preemptDelaySeconds = num(v);
        continue;
      }
      if (/^ {3}Tracked scripts/.test(line)) {
        inTracked = true;
        continue;
      }
      const tracked = /^ {5}(\S+) weight (-?\d+)$/.exec(line);
      if (tracked && inTracked) {
        inst.scripts.push({ name: tracked[1]!, weight: Number(tracked[2]), status: undefined, intervalSeconds: undefined, fall: undefined, rise: undefined });
        continue;
      }
      const vip = /^ {5}([0-9a-f.:]+)(?:\/\d+)?\s.*?(\sset)?$/.exec(line);
      if (vip) inst.vips.push({ address: vip[1]!, set: !!vip[2] });
      continue;
    }
    if (script && section === 'VRRP Scripts' && kv) {
      const s = scripts.get(script)!;
      const [, k, v] = kv as unknown as [string, string, string];
      if (k === 'Status') s.status = v.trim();
      else if (k === 'Interval') s.interval = num(v);
      else if (k === 'Fall') s.fall = num(v);
      else if (k === 'Rise') s.rise = num(v);
      else if (k === 'Weight') s.weight = num(v);
    }
  }
  for (const i of instances) {
    for (const tracked of i.scripts) {
      const s = scripts.get(tracked.name);
      if (!s) continue;
      tracked.status = s.status;
      tracked.intervalSeconds = s.interval;
      tracked.fall = s.fall;
      tracked.rise = s.rise;
    }
    const st = parseStats(stats).get(i.name);
    if (st) i.stats = st;
  }
  return instances;
}

function parseStats(text: string): Map<string, VrrpStats> {
  const out = new Map<string, VrrpStats>();
  let cur: VrrpStats | undefined;
  let block = '';
  for (const line of text.split('\n')) {
    const head = /^VRRP Instance: (\S+)/.exec(line);
    if (head) {
      cur = { advertsReceived: 0, advertsSent: 0, authErrors: 0, becameMaster: 0, releasedMaster: 0 };
      out.set(head[1]!, cur);
      continue;
    }
    if (!cur) continue;
    const top = /^ {2}([A-Za-z ]+?):\s*(\d+)?\s*$/.exec(line);
    if (top) {
      block = top[1]!;
      if (block === 'Became master') cur.becameMaster = Number(top[2] ?? 0);
      if (block === 'Released master') cur.releasedMaster = Number(top[2] ?? 0);
      continue;
    }
    const sub = /^ {4}([A-Za-z ]+?):\s*(\d+)/.exec(line);
    if (!sub) continue;
    const n = Number(sub[2]);
    if (block === 'Advertisements' && sub[1] === 'Received') cur.advertsReceived = n;
    else if (block === 'Advertisements' && sub[1] === 'Sent') cur.advertsSent = n;
    else if (block === 'Authentication Errors') cur.authErrors += n;
  }
  return out;
}

/**
 * How keepalived got its effective priority: the base plus, per tracked script, its weight when it counts (a negative
 * weight while the script fails, a positive one while it succeeds), e.g. `80 = 100 − 20 (chk_haproxy failing)`.
 */
export function priorityBreakdown(i: VrrpInstanceData): string {
  const base = i.priority ?? 0;
  const parts = i.scripts.flatMap((s) => {
    const failing = s.status === 'BAD';
    if (s.weight < 0 && failing) return [t('− {0} ({1} failing)', -s.weight, s.name)];
    if (s.weight > 0 && !failing && s.status !== undefined) return [t('+ {0} ({1} succeeding)', s.weight, s.name)];
    return [];
  });
  const eff = i.effectivePriority ?? base;
  return parts.length ? `${eff} = ${base} ${parts.join(' ')}` : `${eff}`;
}

/** The scripts keepalived counts as failing now. */
export function failingScripts(i: VrrpInstanceData): TrackedScript[] {
  return i.scripts.filter((s) => s.status === 'BAD');
}
