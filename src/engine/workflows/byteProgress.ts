/**
 * Progress of bytes on the Ui's progress bar (Ui.progress increments): the snapshot hashed before a restore, and the
 * snapshot sent to every member at once under one bar. The bar advances with every chunk; a message (the one line a
 * terminal prints) at most every two seconds and at the end, with the rate.
 */
import { t } from '../../core/l10n';
import type { ProgressReport, Ui } from './ui';

const MiB = 1024 * 1024;
const MESSAGE_EVERY_MS = 2000;

const amount = (bytes: number): string => (bytes >= 1024 * MiB ? `${(bytes / (1024 * MiB)).toFixed(2)} GiB` : `${(bytes / MiB).toFixed(0)} MiB`);

/** Bytes of one whole on a bar the caller owns. */
export class ByteProgress {
  private shown = 0;
  private lastMessage = 0;
  private readonly started = Date.now();

  constructor(
    private readonly report: ProgressReport,
    private readonly what: string,
  ) {}

  update(done: number, total: number): void {
    if (total <= 0) return;
    const percent = (100 * done) / total;
    const now = Date.now();
    const last = done >= total;
    const message = last || now - this.lastMessage >= MESSAGE_EVERY_MS ? `   ${this.what}: ${amount(done)} of ${amount(total)} (${percent.toFixed(0)} %, ${(done / MiB / Math.max(0.001, (now - this.started) / 1000)).toFixed(0)} MiB/s)` : undefined;
    const increment = percent - this.shown;
    // Tiny increments wait for the next report: the bar gets the same total in fewer updates.
    if (!message && increment < 0.5) return;
    if (message) this.lastMessage = now;
    this.shown = percent;
    this.report(message, increment);
  }
}

/** The snapshot to every member: one bar over all of them, opened at the first bytes and closed when all arrived. */
export class SendProgress {
  private readonly sent = new Map<string, number>();
  private members = 0;
  private size = 0;
  private bar: ByteProgress | undefined;
  private close: (() => void) | undefined;
  private opening = false;
  private ended = false;

  constructor(
    private readonly ui: Ui,
    private readonly cluster: string,
  ) {}

  expect(members: number, size: number): void {
    this.members = members;
    this.size = size;
  }

  update(host: string, bytes: number): void {
    this.sent.set(host, bytes);
    if (!this.opening) {
      this.opening = true;
      void this.ui.progress({ title: t('Sending snapshot.db ({0}) to {1} members of {2}…', amount(this.size), this.members, this.cluster), narrate: true }, (report) => {
        this.bar = new ByteProgress(report, t('snapshot.db to {0} members', this.members));
        return new Promise<void>((resolve) => (this.ended ? resolve() : (this.close = resolve)));
      });
    }
    const total = this.size * this.members;
    const done = [...this.sent.values()].reduce((a, b) => a + b, 0);
    this.bar?.update(done, total);
    if (done >= total) this.end();
  }

  /** Closes the bar (all sent, or the run ended without it). */
  end(): void {
    this.ended = true;
    this.close?.();
    this.close = undefined;
  }
}
