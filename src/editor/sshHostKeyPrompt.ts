/**
 * The editor's HostKeyPrompt: modal dialogs.
 * - Unknown key: the host, port, key type and SHA256 fingerprint, with "Accept once" and "Accept and remember"
 *   (Cancel rejects). "Remember" appends a hashed line to the extension's own known_hosts.
 * - Changed key: a modal error explaining the risk (man-in-the-middle or a reinstalled host) and how to remove the
 *   old key after verifying the new one — with no button that proceeds.
 * - Revoked key: a modal error; no way to proceed.
 * Their words are in the display language (vscode.l10n.t); key types, fingerprints, files and commands stay as written.
 */
import * as vscode from 'vscode';
import type { HostKeyDetails, HostKeyPrompt, UnknownKeyAnswer } from '../core/ssh/hostKeyPolicy';


function knownHostsName(host: string, port: number): string {
  return port === 22 ? host : `[${host}]:${port}`;
}

function hostKeyFileHint(keyType: string): string {
  const short = keyType.replace(/^ssh-/, '').replace(/-sha2-nistp\d+$/, '');
  return `/etc/ssh/ssh_host_${short}_key.pub`;
}

export class ModalHostKeyPrompt implements HostKeyPrompt {
  /**
   * @param ownKnownHostsFile shown in the dialog so the user knows where "remember" writes.
   */
  constructor(private readonly ownKnownHostsFile: string) {}

  async unknown(host: string, port: number, keyType: string, fingerprint: string, d: HostKeyDetails): Promise<UnknownKeyAnswer> {
    const where = port === 22 ? host : `${host}:${port}`;
    const acceptOnce = vscode.l10n.t('Accept once');
    const acceptRemember = vscode.l10n.t('Accept and remember');
    const detail = [
      vscode.l10n.t('{0} ({1}) presented a host key that is not in any known_hosts file.', d.alias, where),
      '',
      `${keyType} ${fingerprint}`,
      '',
      vscode.l10n.t('Compare it with the key on the host (e.g. on its console: {0}) before accepting.', `ssh-keygen -lf ${hostKeyFileHint(keyType)}`),
      ...(d.note ? ['', d.note] : []),
      '',
      vscode.l10n.t('"{0}" adds it (hashed) to {1}.', acceptRemember, this.ownKnownHostsFile),
    ].join('\n');
    const choice = await vscode.window.showWarningMessage(vscode.l10n.t('Unknown host key for {0}', d.alias), { modal: true, detail }, acceptOnce, acceptRemember);
    if (choice === acceptOnce) return 'once';
    if (choice === acceptRemember) return 'remember';
    return 'reject';
  }

  async changed(host: string, port: number, keyType: string, fingerprint: string, d: HostKeyDetails): Promise<void> {
    const where = port === 22 ? host : `${host}:${port}`;
    const file = d.file ?? '~/.ssh/known_hosts';
    const recordedAt = d.line ? vscode.l10n.t('{0} line {1}', file, d.line) : file;
    const detail = [
      vscode.l10n.t('{0} ({1}) presented {2}, but {3} records a different {4} key for it.', d.alias, where, `${keyType} ${fingerprint}`, recordedAt, keyType),
      '',
      vscode.l10n.t('Someone could be intercepting the connection (a man-in-the-middle attack), or the host was reinstalled or its keys regenerated. Kubeadm Workbench will not connect to it.'),
      '',
      vscode.l10n.t('If you have verified on the host itself that the new key is right, remove the old entry and connect again:'),
      `  ssh-keygen -R '${knownHostsName(host, port)}' -f ${file}`,
    ].join('\n');
    await vscode.window.showErrorMessage(vscode.l10n.t('Host key of {0} has CHANGED — connection refused', d.alias), { modal: true, detail });
  }

  async revoked(host: string, port: number, keyType: string, fingerprint: string, d: HostKeyDetails): Promise<void> {
    const where = port === 22 ? host : `${host}:${port}`;
    const key = `${keyType} ${fingerprint}`;
    const detail = d.file
      ? vscode.l10n.t('{0} ({1}) presented {2}, which is marked @revoked in {3}. A revoked key is never accepted.', d.alias, where, key, d.line ? vscode.l10n.t('{0} line {1}', d.file, d.line) : d.file)
      : vscode.l10n.t('{0} ({1}) presented {2}, which is marked @revoked. A revoked key is never accepted.', d.alias, where, key);
    await vscode.window.showErrorMessage(vscode.l10n.t('Host key of {0} is REVOKED — connection refused', d.alias), { modal: true, detail });
  }
}
