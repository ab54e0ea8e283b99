/**
 * Runs steps on this machine with /bin/sh — the `local` host of a plan (kubectl-like steps that
 * talk to the API from the workstation) and the runner's own tests. Same contract as the SSH
 * executor: cancel kills the whole process group.
 */
import { spawn } from 'node:child_process';
import { dirname } from 'node:path';
import type { RemoteCommand } from '../../core/ssh/command';
import type { ExecIo, ExecResult, StepExecutor } from '../../core/plan/runner';
import type { UploadFile } from '../../core/plan/types';
import { ensureRealFolder, replaceFile } from '../fs/safeFile';

export class LocalExecutor implements StepExecutor {
  exec(_host: string, command: RemoteCommand, io: ExecIo): Promise<ExecResult> {
    return new Promise((resolve, reject) => {
      const child = spawn('/bin/sh', ['-c', command.text], { detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
      const kill = (): void => {
        try {
          process.kill(-child.pid!, 'SIGTERM');
        } catch {
          // already gone
        }
      };
      const timer = io.timeoutMs ? setTimeout(kill, io.timeoutMs) : undefined;
      io.signal?.addEventListener('abort', kill, { once: true });
      child.stdout.setEncoding('utf8').on('data', (t: string) => io.onStdout?.(t));
      child.stderr.setEncoding('utf8').on('data', (t: string) => io.onStderr?.(t));
      if (command.stdinPrefix) child.stdin.write(command.stdinPrefix);
      child.stdin.end();
      child.on('error', reject);
      child.on('close', (code, signal) => {
        clearTimeout(timer);
        io.signal?.removeEventListener('abort', kill);
        resolve(signal ? { code, signal } : { code });
      });
    });
  }

  async upload(_host: string, file: UploadFile): Promise<void> {
    await ensureRealFolder(dirname(file.path), { mode: 0o755, recursive: true });
    await replaceFile(file.path, file.content, { mode: file.mode });
  }
}
