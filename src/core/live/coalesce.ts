/**
 * Coalesces change notifications: keys marked dirty are delivered together, at most once per
 * `intervalMs` (default 500 ms, so ≤ 2 refreshes per second), each key once per delivery.
 */
import { realClock, type Clock } from './watch';

export class Coalescer<K> {
  private dirty = new Set<K>();
  private timer: unknown;
  private lastFlush = -Infinity;

  constructor(
    private readonly deliver: (keys: Set<K>) => void,
    private readonly intervalMs = 500,
    private readonly clock: Clock = realClock,
  ) {}

  mark(key: K): void {
    this.dirty.add(key);
    if (this.timer !== undefined) return;
    const wait = Math.max(0, this.lastFlush + this.intervalMs - this.clock.now());
    this.timer = this.clock.setTimeout(() => this.flush(), wait);
  }

  flush(): void {
    this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.dirty.size) return;
    const keys = this.dirty;
    this.dirty = new Set();
    this.lastFlush = this.clock.now();
    this.deliver(keys);
  }

  dispose(): void {
    this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    this.dirty.clear();
  }
}
