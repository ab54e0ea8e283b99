/**
 * The runner's executor over SSH: commands through the transport, files written with `cat` from
 * stdin to a temp file, its SHA-256 compared with the content's, chmod, then rename — atomic on the host,
 * in one command, no SFTP subsystem needed, and the content never appears on a command line. A file that
 * arrived different (a truncated stream, a full disk that `cat` did not report) never replaces the target.
 * The digest is computed once per content, so the same file sent to hundreds of hosts is hashed once.
 *
 * Hosts reached as a user other than root run every step through sudo (the phases write under /etc
 * and /root). The password, when one is needed, goes on stdin (`sudo -S`), never on a command line.
 * Uploads then take two commands: the content goes to a private temp file as the login user, and sudo
 * moves it into place — mixing the password line and file content on one stdin would write the
 * password into the file on a host whose sudoers rule needs none.
 */
import { createHash } from 'node:crypto';
import { dirname } from 'node:path';
import { Transform } from 'node:stream';
import { raw, sh, sudo, type Raw, type SudoOptions } from '../ssh/command';
import { ANY_EXIT_CODE, RemoteCommandCancelled, RemoteCommandError, type SshTransport } from '../ssh/transport';
import type { RemoteCommand } from '../ssh/command';
import type { ExecIo, ExecResult, StepExecutor } from './runner';
import type { StreamedFile, UploadFile } from './types';
import { t } from '../l10n';

/** How to become root on a host: undefined = the login user is root already. */
export type BecomeFor = (host: string) => SudoOptions | undefined;

export class SudoRefused extends Error {
  /** What the advice knows this failure by (core/plan/runner.ts), whatever the language of its words. */
  readonly knownFailure = 'sudo-refused';
}

/** Contents uploaded lately, as bytes with their digest: a file fanned out to many hosts is encoded and hashed once. */
const encoded = new Map<string, { bytes: Buffer; sha256: string }>();

function encode(content: string): { bytes: Buffer; sha256: string } {
  let e = encoded.get(content);
  if (e === undefined) {
    const bytes = Buffer.from(content, 'utf8');
    e = { bytes, sha256: createHash('sha256').update(bytes).digest('hex') };
    if (encoded.size >= 8) encoded.delete(encoded.keys().next().value!);
    encoded.set(content, e);
  }
  return e;
}

/** `cat` stdin into `tmp` and check its SHA-256 (read from stdin, so no file name is parsed); a mismatch removes it. */
function receive(tmp: string | Raw, sha256: string): RemoteCommand {
  return sh`cat > ${tmp} && s=$(sha256sum < ${tmp}) && { [ "\${s%% *}" = ${sha256} ] || { rm -f ${tmp}; echo 'the uploaded file arrived different (SHA-256 mismatch)' >&2; exit 1; }; }`;
}

export class SshExecutor implements StepExecutor {
  /**
   * Per host, how sudo was found to work, asked once: a wrong password fails the first step clearly, not
   * every check as "not done"; and a host whose sudo needs no password gets `sudo -n`, never the password
   * line — sudo would not read it, and the command's own stdin (a script, a `drain --then` command) would.
   */
  private readonly sudoChecked = new Map<string, Promise<SudoOptions>>();

  constructor(
    private readonly transport: SshTransport,
    private readonly becomeFor: BecomeFor = () => undefined,
  ) {}

  async exec(host: string, command: RemoteCommand, io: ExecIo): Promise<ExecResult> {
    try {
      const asked = this.becomeFor(host);
      const become = asked && (await this.checkSudo(host, asked, io.signal));
      const result = await this.transport.exec(host, become ? sudo(command, become) : command, {
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
    const mode = file.mode.toString(8).padStart(4, '0');
    const asked = this.becomeFor(host);
    const opts = signal ? { signal } : {};
    if (!asked) {
      const tmp = `${file.path}.kubeadm-workbench.tmp`;
      const { bytes, sha256 } = encode(file.content);
      const command = sh`umask 077 && mkdir -p ${dirname(file.path)} && ${receive(tmp, sha256)} && chmod ${mode} ${tmp} && mv -f ${tmp} ${file.path}`;
      await this.transport.exec(host, command, { stdin: bytes, ...opts });
      return;
    }
    const become = await this.checkSudo(host, asked, signal);
    // mktemp creates the file 0600 for the login user only; it lives until sudo has copied it.
    const { bytes, sha256 } = encode(file.content);
    const staged = await this.transport.exec(host, sh`umask 077 && t=$(mktemp) && printf '%s' "$t" && ${receive(raw('"$t"'), sha256)}`, { stdin: bytes, ...opts });
    const tmp = staged.stdout.trim();
    const target = `${file.path}.kubeadm-workbench.tmp`;
    try {
      await this.transport.exec(host, sudo(sh`umask 077 && mkdir -p ${dirname(file.path)} && cp ${tmp} ${target} && chmod ${mode} ${target} && mv -f ${target} ${file.path}`, become), opts);
    } finally {
      await this.transport.exec(host, sh`rm -f ${tmp}`).catch(() => undefined);
    }
  }

  /**
   * A large file as a stream on the command's stdin, hashed on the host as it is written (one pass: `tee` into the
   * temp file, `sha256sum` of the same bytes), its size and digest compared before the rename. Through sudo the
   * command runs as root directly: checkSudo has found whether this host's sudo reads a password line (then it is
   * sent first and sudo -S takes exactly that line) or needs none (then none is sent) — a staged copy as the login
   * user would double the disk a snapshot of gigabytes takes.
   */
  async uploadStream(host: string, file: StreamedFile, signal?: AbortSignal): Promise<void> {
    const mode = file.mode.toString(8).padStart(4, '0');
    const asked = this.becomeFor(host);
    const become = asked && (await this.checkSudo(host, asked, signal));
    const tmp = `${file.path}.kubeadm-workbench.tmp`;
    const command = sh`umask 077 && mkdir -p ${dirname(file.path)} && s=$(tee ${tmp} | sha256sum) && n=$(stat -c %s ${tmp}) && { [ "$n" = ${String(file.size)} ] && [ "\${s%% *}" = ${file.sha256} ] || { rm -f ${tmp}; echo "the file arrived different: $n of "${String(file.size)}" bytes, sha256 \${s%% *}" >&2; exit 1; }; } && chmod ${mode} ${tmp} && mv -f ${tmp} ${file.path}`;
    const source = await file.open();
    let sent = 0;
    const counted = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        sent += chunk.length;
        file.onProgress?.(host, sent);
        done(null, chunk);
      },
    });
    source.on('error', (e: Error) => counted.destroy(e));
    source.pipe(counted);
    try {
      await this.transport.exec(host, become ? sudo(command, become) : command, { stdin: counted, ...(signal ? { signal } : {}) });
    } finally {
      source.unpipe(counted);
      (source as NodeJS.ReadableStream & { destroy?: () => void }).destroy?.();
    }
  }

  private checkSudo(host: string, become: SudoOptions, signal?: AbortSignal): Promise<SudoOptions> {
    let checked = this.sudoChecked.get(host);
    if (!checked) {
      const opts = signal ? { signal } : {};
      const withPassword = (): Promise<SudoOptions> =>
        this.transport.exec(host, sudo(sh`true`, become), opts).then(
          () => become,
          (e: unknown) => {
            this.sudoChecked.delete(host);
            if (e instanceof RemoteCommandError) {
              const why = become.password === undefined ? t('sudo needs a password here (none was given) or the user may not use sudo') : t('sudo refused the password, or the user may not use sudo');
              throw new SudoRefused(t('{0}: cannot become root: {1} — {2}', host, why, e.message));
            }
            throw e;
          },
        );
      // `sudo -n true` first: when it works, this host's sudo needs no password and none is ever sent.
      const { password: _password, ...withoutPassword } = become;
      checked = become.password === undefined
        ? withPassword()
        : this.transport.exec(host, sudo(sh`true`, withoutPassword), opts).then(
            () => withoutPassword,
            (e: unknown) => {
              if (e instanceof RemoteCommandError) return withPassword();
              this.sudoChecked.delete(host);
              throw e;
            },
          );
      this.sudoChecked.set(host, checked);
    }
    return checked;
  }
}
