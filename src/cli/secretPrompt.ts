/**
 * Questions a verb asks on its terminal: a confirmation, a secret. One reader per verb, so lines piped
 * in by a script (`printf '%s\ny\n' "$PW" | kubeadm-workbench up --ask-become-pass`) are consumed in order
 * and none is lost between two questions. Secrets are read without echo on a terminal, and never from an
 * argument or the environment, which other users of the machine can read.
 */
import { Writable } from 'node:stream';
import { createInterface, type Interface } from 'node:readline';
import { escapeControls } from '../core/text/terminal';

export class Prompter {
  private rl: Interface | undefined;
  private lines: AsyncIterator<string> | undefined;
  private muted = false;

  constructor(
    private readonly stdin: NodeJS.ReadableStream & { isTTY?: boolean } = process.stdin,
    private readonly stderr: NodeJS.WritableStream = process.stderr,
  ) {}

  /** The next line, or '' at the end of input. */
  async ask(prompt: string): Promise<string> {
    return (await this.read(prompt, false)) ?? '';
  }

  /**
   * The next line, not echoed on a terminal; undefined at the end of input: nobody answered, which is not the empty
   * answer ("none") — a script that piped one wrong password must not go on with none when it is asked again.
   */
  askSecret(prompt: string): Promise<string | undefined> {
    return this.read(prompt, true);
  }

  close(): void {
    this.rl?.close();
    this.rl = undefined;
  }

  private async read(prompt: string, secret: boolean): Promise<string | undefined> {
    const tty = Boolean(this.stdin.isTTY);
    if (!this.rl) {
      const output = new Writable({
        write: (chunk: Buffer, _enc, cb) => {
          if (!this.muted) this.stderr.write(chunk);
          cb();
        },
      });
      this.rl = createInterface({ input: this.stdin, output, terminal: tty });
      this.lines = this.rl[Symbol.asyncIterator]();
    }
    this.stderr.write(escapeControls(prompt)); // a host name or fingerprint in it never drives the terminal
    this.muted = secret && tty;
    try {
      const next = await this.lines!.next();
      return next.done ? undefined : next.value;
    } finally {
      if (this.muted) this.stderr.write('\n');
      this.muted = false;
    }
  }
}
