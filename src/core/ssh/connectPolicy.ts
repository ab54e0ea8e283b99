/**
 * How the SSH pool opens many connections at once without tripping the servers' (or the network's) limits.
 *
 * - Pacing: at most `maxHandshakesPerServer` handshakes (TCP + key exchange + auth) are in flight to one server
 *   (address and port) at a time, because an OpenSSH server drops unauthenticated connections past its
 *   `MaxStartups` (Debian: 10:30:100) — that limit is per server, so hundreds of hosts, each with its own sshd,
 *   may all shake hands at once. `maxHandshakes` bounds them all together (our own CPU: a client that starts 500
 *   key exchanges at once on a small machine makes every one slow enough to time out), and new ones start at
 *   most every `minStartGapMs`. Commands on connections already open are not paced.
 * - Retry, as the failure taxonomy (failures.ts) advises: a handshake that the server closed or reset before it
 *   showed its host key is tried again after an exponential backoff with jitter (what sshd's random early drop
 *   asks for); a refused port once more (a listener that is starting), a server that took the connection but did not
 *   greet in time once more (a host, or our own machine, too busy). A name that does not resolve, a host with no
 *   route and one that does not even complete TCP within the limit fail at once: another try costs the wait again. Nothing after the host key is retried: a refused
 *   or changed host key and a failed login would fail the same way again, and retrying a host key mismatch would
 *   only hammer a host that may be an impostor.
 * - Congestion: a handshake that timed out or was refused halves how many may be in flight together (not below
 *   4); each one that succeeds lets one more in again, up to `maxHandshakes` — so a fan-out that finds the
 *   servers or our CPU saturated backs off instead of timing out every handshake it started.
 */
import type { RetryAdvice } from './failures';

export interface ConnectPolicy {
  /** Handshakes in flight at once (all hosts together). */
  maxHandshakes: number;
  /** Handshakes in flight at once to one server (below sshd's MaxStartups start, 10 by default). */
  maxHandshakesPerServer: number;
  /** Least time between two handshake starts. */
  minStartGapMs: number;
  /** Attempts in all for one connection whose handshake is refused or reset (1: no retry). */
  attempts: number;
  /** First backoff; doubled per attempt up to `maxBackoffMs`, each one jittered to 50–100 %. */
  baseBackoffMs: number;
  maxBackoffMs: number;
}

export const DEFAULT_CONNECT_POLICY: ConnectPolicy = {
  maxHandshakes: 64,
  maxHandshakesPerServer: 8,
  minStartGapMs: 2,
  attempts: 6,
  baseBackoffMs: 250,
  maxBackoffMs: 4000,
};

/** Where a handshake stopped: `connect` (TCP, banner, key exchange: before the server's host key), then `host-key`, then `auth`. */
export type HandshakeStage = 'connect' | 'host-key' | 'auth' | 'ready';

export interface HandshakeFailure {
  stage: HandshakeStage;
  /** The taxonomy's word on retrying (core/ssh/failures.ts); it decides when given. */
  retry?: RetryAdvice;
  /** SshConnectError's kind. */
  kind: 'auth' | 'host-key' | 'network' | 'config' | 'restricted';
  /** The system error code (ECONNREFUSED, ECONNRESET…) when there is one. */
  code?: string;
  timedOut: boolean;
}

const RETRYABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ECONNABORTED', 'EHOSTUNREACH', 'ETIMEDOUT']);

/**
 * True for a handshake the server refused or dropped before the host key was checked (sshd past MaxStartups
 * closes the connection right after accepting it; a listener not yet up refuses it), and for the first attempt
 * (`attempt` 1) that timed out. A host key or login problem and a configuration error are never retried.
 */
export function isRetryableHandshake(f: HandshakeFailure, attempt = 1): boolean {
  if (f.kind !== 'network') return false;
  if (f.retry === 'no') return false;
  if (f.retry === 'once') return attempt < 2;
  if (f.retry === 'backoff') return true;
  if (f.timedOut) return attempt < 2;
  if (f.stage !== 'connect') return false;
  return f.code === undefined || RETRYABLE_CODES.has(f.code);
}

/** The wait before attempt `attempt + 1` (attempt counts from 1); `random` in [0, 1). */
export function backoffMs(policy: ConnectPolicy, attempt: number, random: number): number {
  const full = Math.min(policy.maxBackoffMs, policy.baseBackoffMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(full * (0.5 + random / 2));
}

/**
 * Hands out handshake starts: at most `maxHandshakes` at once, at most `maxHandshakesPerServer` at once to one
 * server, at least `minStartGapMs` apart, first come first served among those whose server has room. `now` and
 * `sleep` are injectable so the policy is testable without a clock.
 */
export class HandshakePacer {
  private inFlight = 0;
  /** How many may be in flight now: `maxHandshakes`, halved by congestion, grown back by successes. */
  private window: number;
  private readonly perServer = new Map<string, number>();
  private lastStart = -Infinity;
  private readonly waiters: { server: string; go: () => void }[] = [];
  private pumping = false;
  /** The most handshakes that were in flight at once (for the bench's report). */
  peak = 0;

  constructor(
    private readonly policy: Pick<ConnectPolicy, 'maxHandshakes' | 'minStartGapMs'> & Partial<Pick<ConnectPolicy, 'maxHandshakesPerServer'>>,
    private readonly now: () => number = () => Date.now(),
    private readonly sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
  ) {
    this.window = Math.max(1, policy.maxHandshakes);
  }

  get active(): number {
    return this.inFlight;
  }

  get waiting(): number {
    return this.waiters.length;
  }

  /** How many handshakes may be in flight together now. */
  get limit(): number {
    return Math.floor(this.window);
  }

  /** A handshake timed out or was refused: fewer together from now on (half, not below 4). */
  congested(): void {
    this.window = Math.max(Math.min(4, this.policy.maxHandshakes), Math.floor(this.window / 2));
  }

  /** A handshake succeeded: one more may be in flight, up to `maxHandshakes`. */
  eased(): void {
    this.window = Math.min(Math.max(1, this.policy.maxHandshakes), this.window + 1);
    void this.pump();
  }

  /** Handshakes in flight to `server` now. */
  activeFor(server: string): number {
    return this.perServer.get(server) ?? 0;
  }

  /**
   * Resolves when a handshake to `server` ("address:port"; one shared key when omitted) may start; call the
   * returned function when it ends (either way).
   */
  async start(server = ''): Promise<() => void> {
    await new Promise<void>((go) => {
      this.waiters.push({ server, go });
      void this.pump();
    });
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.inFlight--;
      const n = (this.perServer.get(server) ?? 1) - 1;
      if (n > 0) this.perServer.set(server, n);
      else this.perServer.delete(server);
      void this.pump();
    };
  }

  private roomFor(server: string): boolean {
    return this.activeFor(server) < Math.max(1, this.policy.maxHandshakesPerServer ?? Infinity);
  }

  private async pump(): Promise<void> {
    if (this.pumping) return;
    this.pumping = true;
    try {
      while (this.inFlight < this.limit) {
        if (!this.waiters.some((w) => this.roomFor(w.server))) break;
        const gap = this.lastStart + this.policy.minStartGapMs - this.now();
        if (gap > 0) await this.sleep(gap);
        // The first in line whose server has room (looked up again: the sleep let others end and arrive).
        const i = this.waiters.findIndex((w) => this.roomFor(w.server));
        if (i < 0) break;
        const [next] = this.waiters.splice(i, 1);
        this.inFlight++;
        this.perServer.set(next!.server, this.activeFor(next!.server) + 1);
        this.peak = Math.max(this.peak, this.inFlight);
        this.lastStart = this.now();
        next!.go();
      }
    } finally {
      this.pumping = false;
    }
  }
}
