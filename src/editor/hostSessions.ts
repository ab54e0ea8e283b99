/**
 * SSH for the editor: one pool per run, built from the inventory and the machine's own SSH files
 * (the remote machine's, in a Remote-SSH window), with the modal host-key prompt, passphrases
 * from SecretStorage when the user chose so, the maxParallelHosts setting and workspace trust.
 */
import * as vscode from 'vscode';
import { createInventoryPool } from '../adapters/ssh/fromInventory';
import type { SshPool } from '../adapters/ssh/pool';
import type { Inventory } from '../core/inventory/types';
import { ModalHostKeyPrompt } from './sshHostKeyPrompt';
import { SshPassphrases } from './sshSecrets';
import { isTrusted } from './trust';

export class HostSessions implements vscode.Disposable {
  private readonly passphrases: SshPassphrases;

  constructor(private readonly context: vscode.ExtensionContext) {
    this.passphrases = new SshPassphrases(context.secrets);
  }

  /** The extension's own known_hosts: where "Accept and remember" writes. */
  get ownKnownHostsFile(): string {
    return vscode.Uri.joinPath(this.context.globalStorageUri, 'known_hosts').fsPath;
  }

  open(inventory: Inventory, folder: vscode.Uri | undefined): SshPool {
    const settings = vscode.workspace.getConfiguration('kubeadmWorkbench', folder);
    const path = (key: string): string | undefined => {
      const v = settings.get<string>(key)?.trim();
      if (!v) return undefined;
      return folder && !v.startsWith('/') && !v.startsWith('~') ? vscode.Uri.joinPath(folder, v).fsPath : v;
    };
    const sshConfigFile = path('sshConfigFile');
    const knownHostsFile = path('knownHostsFile');
    return createInventoryPool(inventory, {
      prompt: new ModalHostKeyPrompt(this.ownKnownHostsFile),
      auth: this.passphrases.callbacks(),
      allowConnect: isTrusted,
      maxParallelHosts: settings.get<number>('maxParallelHosts') ?? 10,
      ownKnownHostsFile: this.ownKnownHostsFile,
      ...(sshConfigFile ? { sshConfigFile } : {}),
      ...(knownHostsFile ? { knownHostsFile } : {}),
    }).pool;
  }

  dispose(): void {
    this.passphrases.dispose();
  }
}
