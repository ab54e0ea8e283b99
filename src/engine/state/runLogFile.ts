/**
 * A run's log file beside its ledger (`runs/<run id>.log`, 0600): one formatted line per RunLine, with timestamps.
 * A new run creates it (O_EXCL: a file or link already at the name is refused, never written through); a resumed run
 * — whose ledger passed as this user's — appends to its own log, which must be a regular file of this user with one
 * link (a planted link there stops the run before anything runs).
 */
import type { WriteStream } from 'node:fs';
import { formatRunLine, type RunSink } from '../../core/ssh/runLog';
import { dirname } from 'node:path';
import { appendStream, createNewStream, ensureRealFolder } from '../../adapters/fs/safeFile';

export class RunLogFile {
  private constructor(
    readonly path: string,
    private readonly stream: WriteStream,
  ) {}

  /** `resume`: continue the log of the run being resumed (created when it is missing). */
  static async open(path: string, resume: boolean): Promise<RunLogFile> {
    await ensureRealFolder(dirname(path), { mode: 0o700, mine: true }); // runs/ itself must not be a link out
    return new RunLogFile(path, resume ? await appendStream(path, 0o600) : await createNewStream(path, 0o600));
  }

  readonly sink: RunSink = (line) => {
    this.stream.write(`${formatRunLine(line, { timestamps: true, markStderr: true })}\n`);
  };

  close(): Promise<void> {
    return new Promise((resolve) => this.stream.end(() => resolve()));
  }
}
