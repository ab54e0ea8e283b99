/**
 * Key passphrases for the SSH pool (AuthCallbacks): asked once per key file per session with a password input
 * box; kept in VS Code's SecretStorage only when the user ticks "Remember in the OS keychain" (a quick pick
 * item shown after the passphrase worked). A stored passphrase that stops working is forgotten.
 * Passphrases never go to settings, logs or command lines.
 */
import * as vscode from 'vscode';
import type { AuthCallbacks } from '../adapters/ssh/pool';

const KEY_PREFIX = 'kubeadmWorkbench.sshPassphrase:';

export class SshPassphrases implements vscode.Disposable {
  /** Files whose passphrase the user wants kept, decided when asking. */
  private readonly rememberWanted = new Set<string>();
  /** Files whose stored passphrase we already tried in this session. */
  private readonly triedStored = new Set<string>();

  constructor(private readonly secrets: vscode.SecretStorage) {}

  /** Callbacks for SshPool / createInventoryPool. */
  callbacks(agentSocket?: string): AuthCallbacks {
    return {
      passphrase: (file, attempt) => this.ask(file, attempt),
      passphraseAccepted: (file, passphrase) => void this.accepted(file, passphrase),
      passphraseRejected: (file) => void this.rejected(file),
      ...(agentSocket !== undefined ? { agentSocket } : {}),
    };
  }

  private async ask(file: string, attempt: number): Promise<string | undefined> {
    if (attempt === 1 && !this.triedStored.has(file)) {
      this.triedStored.add(file);
      const stored = await this.secrets.get(KEY_PREFIX + file);
      if (stored !== undefined) return stored;
    }
    const pass = await vscode.window.showInputBox({
      title: vscode.l10n.t('Passphrase for {0}', file),
      prompt: attempt > 1 ? vscode.l10n.t('Wrong passphrase — try again (attempt {0} of 3). Tip: ssh-add the key to your agent to avoid this prompt.', attempt) : vscode.l10n.t('The SSH key is encrypted. Tip: ssh-add it to your agent to avoid this prompt.'),
      password: true,
      ignoreFocusOut: true,
    });
    if (pass === undefined) return undefined;
    const remember = await vscode.window.showQuickPick(
      [
        { label: vscode.l10n.t('Use for this session only'), remember: false },
        { label: vscode.l10n.t('Remember in the OS keychain (VS Code SecretStorage)'), remember: true },
      ],
      { title: vscode.l10n.t('Keep the passphrase of {0}?', file), ignoreFocusOut: true },
    );
    if (remember?.remember) this.rememberWanted.add(file);
    else this.rememberWanted.delete(file);
    return pass;
  }

  private async accepted(file: string, passphrase: string): Promise<void> {
    if (this.rememberWanted.has(file)) {
      await this.secrets.store(KEY_PREFIX + file, passphrase);
      this.rememberWanted.delete(file);
    }
  }

  private async rejected(file: string): Promise<void> {
    await this.secrets.delete(KEY_PREFIX + file);
  }

  /** Removes a stored passphrase (e.g. a "Forget SSH key passphrases" command). */
  async forget(file: string): Promise<void> {
    await this.secrets.delete(KEY_PREFIX + file);
  }

  dispose(): void {
    this.rememberWanted.clear();
    this.triedStored.clear();
  }
}
