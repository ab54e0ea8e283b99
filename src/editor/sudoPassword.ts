/**
 * The sudo password for a run on hosts logged into as a user other than root. Asked once per run in a
 * password box and kept in memory for that run only: it goes to sudo's stdin and is redacted from the
 * run terminal and log. Empty means "sudo needs no password here" (sudo -n); Escape cancels the run.
 */
import * as vscode from 'vscode';

export async function askSudoPassword(sudoHosts: Map<string, string>): Promise<{ password: string | undefined } | undefined> {
  if (!sudoHosts.size) return { password: undefined };
  const users = [...new Set(sudoHosts.values())].join(', ');
  const hosts = [...sudoHosts.keys()];
  const answer = await vscode.window.showInputBox({
    title: `sudo password for ${users}`,
    prompt: `${hosts.length === 1 ? hosts[0] : `${hosts.length} hosts (${hosts.slice(0, 3).join(', ')}${hosts.length > 3 ? ', …' : ''})`} ${hosts.length === 1 ? 'is' : 'are'} reached as ${users}: every step runs through sudo. Leave empty when sudo needs no password there.`,
    password: true,
    ignoreFocusOut: true,
  });
  if (answer === undefined) return undefined;
  return { password: answer === '' ? undefined : answer };
}
