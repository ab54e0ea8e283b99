/**
 * The one rule for the sudo password, for every operation and both front-ends: when a host the operation
 * touches is reached as a user other than root, the workflow asks once, before anything runs there, with
 * the same words. Empty means "sudo needs no password there" (sudo -n). How the question is answered is the
 * front-end's: a password box in the editor, a no-echo prompt on a terminal (see cli/terminalUi.ts for when
 * the command line answers "none" without asking).
 */
import type { Ui } from './ui';

/** `host → user` for the hosts reached as a user other than root; a host whose user cannot be told is left to its first command. */
export function nonRootHosts(hosts: Iterable<string>, loginUser: (host: string) => string): Map<string, string> {
  const out = new Map<string, string>();
  for (const host of hosts) {
    let user: string;
    try {
      user = loginUser(host);
    } catch {
      continue; // a configuration error: the first command on that host reports it
    }
    if (user !== 'root') out.set(host, user);
  }
  return out;
}

/** The password (undefined: none, sudo -n) or `cancelled` when the user backed out. */
export async function askSudoPassword(ui: Ui, sudoHosts: Map<string, string>): Promise<{ password: string | undefined } | 'cancelled'> {
  if (!sudoHosts.size) return { password: undefined };
  const users = [...new Set(sudoHosts.values())].join(', ');
  const hosts = [...sudoHosts.keys()];
  const answer = await ui.secret({
    kind: 'sudo-password',
    hosts: sudoHosts,
    title: `sudo password for ${users}`,
    prompt: `${hosts.length === 1 ? hosts[0] : `${hosts.length} hosts (${hosts.slice(0, 3).join(', ')}${hosts.length > 3 ? ', …' : ''})`} ${hosts.length === 1 ? 'is' : 'are'} reached as ${users}: every step runs through sudo. Leave empty when sudo needs no password there.`,
  });
  if (answer === undefined) return 'cancelled';
  return { password: answer === '' ? undefined : answer };
}
