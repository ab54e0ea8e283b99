/**
 * Progress that scales: with a handful of hosts every host's lines are worth reading, with hundreds they are
 * noise. HostProgress keeps each host's state (waiting → running → done or failed) and sums it up in one line
 * that names the slowest running hosts and the failed ones; RunProgress feeds it from the runner's events, one
 * phase at a time. The run terminal, the progress notification and the CLI show that line instead of one
 * line per host above SUMMARISE_ABOVE hosts (the run log keeps every line).
 */
import type { RunLine } from '../ssh/runLog';
import type { RunEvent } from './runner';

/** More hosts than this and the front-ends summarise instead of narrating each host. */
export const SUMMARISE_ABOVE = 12;

export type HostState = 'waiting' | 'running' | 'done' | 'failed';

interface HostEntry {
  state: HostState;
  /** Steps of this host still to end (a host is done when its last step ended). */
  left: number;
  startedAt?: number;
  endedAt?: number;
  doing?: string;
  error?: string;
}

export interface ProgressCounts {
  done: number;
  running: number;
  failed: number;
  waiting: number;
  total: number;
}

export class HostProgress {
  private readonly hosts = new Map<string, HostEntry>();

  constructor(private readonly now: () => number = () => Date.now()) {}

  /** Adds `steps` steps of `host` to wait for (1 for work that is one command per host). */
  expect(host: string, steps = 1): void {
    const e = this.hosts.get(host);
    if (e) {
      e.left += steps;
      if (e.state === 'done') e.state = 'waiting';
    } else this.hosts.set(host, { state: 'waiting', left: steps });
  }

  started(host: string, doing?: string): void {
    const e = this.entry(host);
    if (e.state === 'failed') return;
    e.state = 'running';
    e.startedAt ??= this.now();
    e.doing = doing;
  }

  /** One step of the host ended; the host is done when none is left, and failed at its first failure. */
  ended(host: string, ok: boolean, error?: string): void {
    const e = this.entry(host);
    e.left = Math.max(0, e.left - 1);
    if (e.state === 'failed') return;
    if (!ok) {
      e.state = 'failed';
      e.error = error;
      e.endedAt = this.now();
      return;
    }
    e.state = e.left === 0 ? 'done' : 'waiting';
    if (e.state === 'done') e.endedAt = this.now();
  }

  get size(): number {
    return this.hosts.size;
  }

  counts(): ProgressCounts {
    const c: ProgressCounts = { done: 0, running: 0, failed: 0, waiting: 0, total: this.hosts.size };
    for (const e of this.hosts.values()) c[e.state]++;
    return c;
  }

  /** Running hosts, longest running first. */
  slowest(limit: number): { host: string; ms: number; doing?: string }[] {
    const now = this.now();
    return [...this.hosts]
      .filter(([, e]) => e.state === 'running' && e.startedAt !== undefined)
      .map(([host, e]) => ({ host, ms: now - e.startedAt!, ...(e.doing ? { doing: e.doing } : {}) }))
      .sort((a, b) => b.ms - a.ms || a.host.localeCompare(b.host))
      .slice(0, limit);
  }

  failed(): { host: string; error?: string }[] {
    return [...this.hosts].filter(([, e]) => e.state === 'failed').map(([host, e]) => ({ host, ...(e.error ? { error: e.error } : {}) }));
  }

  /**
   * "37/100 done · 12 running · 1 failed · 50 waiting — slowest: w17 12 s, w03 9 s — failed: w44". At most
   * `names` hosts are named in each list; the rest are counted ("+4 more").
   */
  summary(names = 3): string {
    const c = this.counts();
    const parts = [`${c.done}/${c.total} done`, `${c.running} running`, `${c.failed} failed`, `${c.waiting} waiting`];
    let line = parts.join(' · ');
    const slow = this.slowest(names);
    if (slow.length) line += ` — slowest: ${slow.map((s) => `${s.host} ${Math.round(s.ms / 1000)} s`).join(', ')}`;
    const failed = this.failed();
    if (failed.length) line += ` — failed: ${failed.slice(0, names).map((f) => f.host).join(', ')}${failed.length > names ? ` +${failed.length - names} more` : ''}`;
    return line;
  }

  private entry(host: string): HostEntry {
    let e = this.hosts.get(host);
    if (!e) {
      e = { state: 'waiting', left: 1 };
      this.hosts.set(host, e);
    }
    return e;
  }
}

/**
 * A plan run's progress, phase by phase: a phase that starts when every announced step has ended starts a new
 * HostProgress over its steps' hosts, one that starts beside running phases joins theirs; `line()` is
 * "<phase titles>: <summary>".
 */
export class RunProgress {
  current: HostProgress;
  private titles: string[] = [];
  /** Steps of the announced phases that have not ended yet. */
  private outstanding = 0;

  constructor(private readonly now: () => number = () => Date.now()) {
    this.current = new HostProgress(now);
  }

  /** Feeds one runner event; returns true when the summary changed. */
  onEvent(event: RunEvent): boolean {
    if (event.type === 'phase') {
      // A phase announced while others still have steps to run runs beside them (balancers beside node
      // preparation, worker joins beside control-plane joins): one summary for all of them.
      if (this.outstanding === 0) {
        this.current = new HostProgress(this.now);
        this.titles = [];
      }
      this.outstanding += event.phase.steps.length;
      this.titles.push(event.phase.title);
      for (const s of event.phase.steps) this.current.expect(s.host);
      return true;
    }
    if (event.type === 'step-start') {
      this.current.started(event.step.host, event.step.title);
      return true;
    }
    if (event.type === 'step-end') {
      this.outstanding = Math.max(0, this.outstanding - 1);
      this.current.ended(event.step.host, event.state === 'done' || event.state === 'skipped', event.error);
      return true;
    }
    return false;
  }

  line(names = 3): string {
    return `${this.titles.join(' + ') || 'starting'}: ${this.current.summary(names)}`;
  }
}

/** True when a run over `hosts` hosts should be summarised rather than narrated host by host. */
export function shouldSummarise(hosts: number): boolean {
  return hosts > SUMMARISE_ABOVE;
}

/** The distinct hosts a set of events' phases touch (for shouldSummarise). */
export function hostCount(phases: readonly { steps: readonly { host: string }[] }[]): number {
  return new Set(phases.flatMap((p) => p.steps.map((s) => s.host))).size;
}

/**
 * What a summarised view still shows line by line: run-level lines (phase headers, the end) and every error
 * (a failed step names its host). Per-host narration and command output stay in the run log.
 */
export function keepWhenSummarised(line: RunLine): boolean {
  return line.host === undefined || line.stream === 'error';
}
