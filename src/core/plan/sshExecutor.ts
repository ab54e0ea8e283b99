/**
 * The runner's executor over SSH: commands through the transport, files written with `cat` from
 * stdin to a temp file, chmod, then rename — atomic on the host, no SFTP subsystem needed, and the
 * content never appears on a command line.
 */
import { dirname } from 'node:path';
import { sh } from '../ssh/command';
import { ANY_EXIT_CODE, RemoteCommandCancelled, type SshTransport } from '../ssh/transport';
import type { RemoteCommand } from '../ssh/command';
import type { ExecIo, ExecResult, StepExecutor } from './runner';
import type { UploadFile } from './types';


export class SshExecutor implements StepExecutor {
  constructor(private readonly transport: SshTransport) {}

  async exec(host: string, command: RemoteCommand, io: ExecIo): Promise<ExecResult> {
    try {
      const result = await this.transport.exec(host, command, {
        okCodes: [...ANY_EXIT_CODE],
        ...(io.onStdout ? { onStdout: io.onStdout } : {}),
        ...(io.onStderr ? { onStderr: io.onStderr } : {}),
        ...(io.signal ? { signal: io.signal } : {}),
        ...(io.timeoutMs ? { timeoutMs: io.timeoutMs } : {}),
      });
      return result.signal ? { code: result.code, signal: result.signal } : { code: result.code };
    } catch (e) {
      if (e instanceof RemoteCommandCancelled) return { code: null, signal: 'TERM' };
      throw e;
    }
  }

  async upload(host: string, file: UploadFile, signal?: AbortSignal): Promise<void> {
    const tmp = `${file.path}.kubeadm-workbench.tmp`;
    const mode = file.mode.toString(8).padStart(4, '0');
    const command = sh`umask 077 && mkdir -p ${dirname(file.path)} && cat > ${tmp} && chmod ${mode} ${tmp} && mv -f ${tmp} ${file.path}`;
    await this.transport.exec(host, command, { stdin: file.content, ...(signal ? { signal } : {}) });
  }
}
