/**
 * Hosts that answer every command with exit 0 and remember what they were asked: for the tests of plans whose
 * commands only need to have been sent (the snapshot timers; what the units do on a node is the lab tier's).
 */
import type { RemoteCommand } from '../../../src/core/ssh/command';
import type { ExecResult, SshTransport } from '../../../src/core/ssh/transport';

export class AcceptingHosts implements SshTransport {
  /** `host: command text`, in order. */
  readonly log: string[] = [];

  async exec(host: string, cmd: RemoteCommand): Promise<ExecResult> {
    this.log.push(`${host}: ${cmd.text}`);
    return { code: 0, signal: null, stdout: cmd.text.includes('machine-id=') ? `machine-id=${host}\n` : '', stderr: '' };
  }

  async close(): Promise<void> {}

  loginUser(): string {
    return 'root';
  }

  refusedKey(): undefined {
    return undefined;
  }

  acceptKey(): void {}
}
