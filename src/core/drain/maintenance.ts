/**
 * The drain's optional maintenance command (`drain NODE --then CMD`): the administrator's own shell text, run
 * on the node's inventory host over SSH after the drain. It is data from the user, so it never reaches the
 * remote shell as spliced text: `sh -c ${command}` passes it as ONE quoted argument (the `sh` template), and
 * through `sudo -n` when the login user is not root. What is sent is exactly what the plan shows.
 */
import type { HostSpec, Inventory } from '../inventory/types';
import { sshFor } from '../inventory/types';
import { hostForNode } from '../live/controlPlane';
import { sh, sudo, type RemoteCommand } from '../ssh/command';
import { RemoteCommandError, SshConnectError, type SshTransport } from '../ssh/transport';
import { looksLikeReboot, type Maintenance } from './drainNode';
import { t } from '../l10n';

/**
 * The remote command for the user's maintenance text: `sh -c '<text>'`; for a non-root login through sudo —
 * `sudo -S` with the password on stdin when one is given, else `sudo -n` (fails clearly instead of prompting).
 */
export function maintenanceCommand(userCommand: string, asRoot: boolean, sudoPassword?: string): RemoteCommand {
  if (!userCommand.trim()) throw new Error(t('the maintenance command is empty'));
  const cmd = sh`sh -c ${userCommand}`;
  return asRoot ? cmd : sudo(cmd, sudoPassword ? { password: sudoPassword } : {});
}

/** The inventory host a node runs on, or an error naming the node and the inventory's hosts. */
export function maintenanceHost(inventory: Inventory, nodeName: string): HostSpec {
  const host = hostForNode(inventory, nodeName);
  if (!host) throw new Error(t('node {0} is not a host of the inventory (hosts: {1}); the maintenance command needs to know where to run', nodeName, inventory.hosts.map((h) => h.name).join(', ')));
  return host;
}

export interface SshMaintenanceOptions {
  /** Limit for the command; 0 = none. */
  timeoutMs: number;
  /** The login user per host (the SSH pool's, which reads ~/.ssh/config too); default the inventory's. */
  loginUser?: (host: string) => string;
  /** sudo's password for a non-root login (goes to sudo's stdin, redacted). */
  sudoPassword?: string | undefined;
}

/**
 * A Maintenance over any SshTransport. A connection that drops before the exit status arrives — or a command
 * killed by a signal while the machine shuts down — counts as "the machine went down" when a reboot was
 * expected; otherwise as a failure naming the host and the command.
 */
export function sshMaintenance(transport: SshTransport, inventory: Inventory, nodeName: string, userCommand: string, opts: SshMaintenanceOptions): Maintenance {
  const host = maintenanceHost(inventory, nodeName);
  const user = opts.loginUser ? opts.loginUser(host.name) : sshFor(inventory, host).user;
  const command = maintenanceCommand(userCommand, user === 'root', opts.sudoPassword);
  const expectReboot = looksLikeReboot(userCommand);
  return {
    host: host.name,
    display: command.display,
    expectReboot,
    secrets: command.secrets,
    async run({ signal, onOutput }) {
      try {
        await transport.exec(host.name, command, { signal, ...(opts.timeoutMs > 0 ? { timeoutMs: opts.timeoutMs } : {}), onStdout: (t) => onOutput('stdout', t), onStderr: (t) => onOutput('stderr', t) });
        return { disconnected: false };
      } catch (e) {
        const lost = e instanceof SshConnectError && e.kind === 'network' && /connection lost while running/.test(e.message);
        const killed = e instanceof RemoteCommandError && e.result.signal !== null;
        if (lost || (killed && expectReboot)) return { disconnected: true };
        throw e;
      }
    },
  };
}
