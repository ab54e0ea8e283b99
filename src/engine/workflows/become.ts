/**
 * The one rule for the sudo password, for every operation and both front-ends: when a host the operation
 * touches is reached as a user other than root, the workflow asks once, before anything runs there, with
 * the same words. Empty means "sudo needs no password there" (sudo -n). How the question is answered is the
 * front-end's: a password box in the editor, a no-echo prompt on a terminal (see cli/terminalUi.ts for when
 * the command line answers "none" without asking).
 */
import { t } from '../../core/l10n';
import { sh, sudo } from '../../core/ssh/command';
import { describeSudoFailure } from '../../core/ssh/failures';
import { ANY_EXIT_CODE, type SshTransport } from '../../core/ssh/transport';
import { errorMessage } from '../../core/errors';
import type { Ui } from './ui';

/** Tries a sudo password; the reason it was refused (hosts named), or undefined when every host took it. */
export type SudoPasswordCheck = (password: string) => Promise<string | undefined>;

/**
 * The password tried on each host before anything runs: `sudo -S -k true`, the password only on sudo's stdin. A wrong
 * one is said at once (and asked again) instead of failing the run's first step.
 */
export function sudoPasswordCheck(ssh: SshTransport, sudoHosts: ReadonlyMap<string, string>): SudoPasswordCheck {
  return async (password) => {
    const refused = await Promise.all(
      [...sudoHosts].map(async ([host, user]) => {
        try {
          const r = await ssh.exec(host, sudo(sh`true`, { password }), { okCodes: [...ANY_EXIT_CODE], timeoutMs: 20_000 });
          const f = describeSudoFailure({ user, host, code: r.code, stderr: r.stderr, withPassword: true });
          return f ? `${host}: ${f.cause} — ${f.fix}` : undefined;
        } catch (e) {
          return t('{0}: sudo could not be tried ({1})', host, errorMessage(e));
        }
      }),
    );
    const bad = refused.filter((r): r is string => r !== undefined);
    return bad.length ? t('The sudo password did not work: {0}', bad.join('; ')) : undefined;
  };
}

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

/**
 * The password (undefined: none, sudo -n) or `cancelled` when the user backed out. With `check`, a password the hosts
 * refuse is said and asked again (three tries, like sudo).
 */
export async function askSudoPassword(ui: Ui, sudoHosts: Map<string, string>, check?: SudoPasswordCheck): Promise<{ password: string | undefined } | 'cancelled'> {
  if (!sudoHosts.size) return { password: undefined };
  const users = [...new Set(sudoHosts.values())].join(', ');
  const hosts = [...sudoHosts.keys()];
  for (let attempt = 1; attempt <= 3; attempt++) {
    const answer = await ui.secret({
      kind: 'sudo-password',
      hosts: sudoHosts,
      title: t('sudo password for {0}', users),
      prompt: hosts.length === 1
        ? t('{0} is reached as {1}: every step runs through sudo. Leave empty when sudo needs no password there.', hosts[0], users)
        : t('{0} hosts ({1}) are reached as {2}: every step runs through sudo. Leave empty when sudo needs no password there.', hosts.length, `${hosts.slice(0, 3).join(', ')}${hosts.length > 3 ? ', …' : ''}`, users),
    });
    if (answer === undefined) return 'cancelled';
    if (answer === '' || !check) return { password: answer === '' ? undefined : answer };
    const refused = await check(answer);
    if (!refused) return { password: answer };
    await ui.message('error', refused);
  }
  return 'cancelled';
}
