/**
 * The editor's HostKeyPrompt: modal dialogs.
 * - Unknown key: the host, port, key type and SHA256 fingerprint, with "Accept once" and "Accept and remember"
 *   (Cancel rejects). "Remember" appends a hashed line to the extension's own known_hosts.
 * - Changed key: a modal error explaining the risk (man-in-the-middle or a reinstalled host) and how to remove the
 *   old key after verifying the new one — with no button that proceeds.
 * - Revoked key: a modal error; no way to proceed.
 */
import * as vscode from 'vscode';
import type { HostKeyDetails, HostKeyPrompt, UnknownKeyAnswer } from '../core/ssh/hostKeyPolicy';

export const ACCEPT_ONCE = 'Accept once';
export const ACCEPT_REMEMBER = 'Accept and remember';

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
    const detail = [
      `${d.alias} (${where}) presented a host key that is not in any known_hosts file.`,
      '',
      `${keyType} ${fingerprint}`,
      '',
      `Compare it with the key on the host (e.g. on its console: ssh-keygen -lf ${hostKeyFileHint(keyType)}) before accepting.`,
      ...(d.note ? ['', d.note] : []),
      '',
      `"Accept and remember" adds it (hashed) to ${this.ownKnownHostsFile}.`,
    ].join('\n');
    const choice = await vscode.window.showWarningMessage(`Unknown host key for ${d.alias}`, { modal: true, detail }, ACCEPT_ONCE, ACCEPT_REMEMBER);
    if (choice === ACCEPT_ONCE) return 'once';
    if (choice === ACCEPT_REMEMBER) return 'remember';
    return 'reject';
  }

  async changed(host: string, port: number, keyType: string, fingerprint: string, d: HostKeyDetails): Promise<void> {
    const where = port === 22 ? host : `${host}:${port}`;
    const file = d.file ?? '~/.ssh/known_hosts';
    const detail = [
      `${d.alias} (${where}) presented ${keyType} ${fingerprint}, but ${file}${d.line ? ` line ${d.line}` : ''} records a different ${keyType} key for it.`,
      '',
      'Someone could be intercepting the connection (a man-in-the-middle attack), or the host was reinstalled or its keys regenerated. Kubeadm Workbench will not connect to it.',
      '',
      'If you have verified on the host itself that the new key is right, remove the old entry and connect again:',
      `  ssh-keygen -R '${knownHostsName(host, port)}' -f ${file}`,
    ].join('\n');
    await vscode.window.showErrorMessage(`Host key of ${d.alias} has CHANGED — connection refused`, { modal: true, detail });
  }

  async revoked(host: string, port: number, keyType: string, fingerprint: string, d: HostKeyDetails): Promise<void> {
    const where = port === 22 ? host : `${host}:${port}`;
    const detail = `${d.alias} (${where}) presented ${keyType} ${fingerprint}, which is marked @revoked${d.file ? ` in ${d.file}${d.line ? ` line ${d.line}` : ''}` : ''}. A revoked key is never accepted.`;
    await vscode.window.showErrorMessage(`Host key of ${d.alias} is REVOKED — connection refused`, { modal: true, detail });
  }
}
