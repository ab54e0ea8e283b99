/**
 * The SSH failure taxonomy: every way connecting, logging in or becoming root can fail, from what ssh2, the socket
 * and sudo said, turned into one cause a person can act on (plain words, no library message) and the exact fix (the
 * command to run, the setting to change, the file that is missing). One function for connections
 * (`describeSshFailure`), one for sudo (`describeSudoFailure`); the pool, the preflight and every message use them.
 *
 * Whether trying again can help is part of the answer: a refused or reset handshake before the server showed its
 * host key may be sshd's MaxStartups (backoff), a refused port may be a listener that is starting (one quick retry),
 * a server that took the connection but did not greet in time may be busy (once); a host key, a login, a name that
 * does not resolve, a missing route and a host that does not even complete TCP fail the same way every time and are
 * not retried.
 */
import { t } from '../l10n';
import type { HandshakeStage } from './connectPolicy';

export type SshFailureKind =
  | 'dns'
  | 'refused'
  | 'timeout'
  | 'no-route'
  | 'banner-timeout'
  | 'closed'
  | 'host-key-unknown'
  | 'host-key-changed'
  | 'host-key-revoked'
  | 'host-key-error'
  | 'no-usable-key'
  | 'encrypted-key'
  | 'key-not-accepted'
  | 'password-only'
  | 'agent'
  | 'jump-forward'
  | 'restricted'
  | 'config'
  | 'sudo-password'
  | 'sudo-wrong-password'
  | 'sudo-denied'
  | 'sudo-missing'
  | 'other';

/** SshConnectError's kind: the family of a failure. */
export type SshFailureGroup = 'network' | 'host-key' | 'auth' | 'config' | 'restricted' | 'sudo';

/** How a retry may help: `backoff` (several, spaced), `once` (one more try), `no`. */
export type RetryAdvice = 'backoff' | 'once' | 'no';

export interface SshFailure {
  kind: SshFailureKind;
  group: SshFailureGroup;
  /** What happened, in plain words, without the host's name (the caller prefixes it). */
  cause: string;
  /** The next step: a command to run, a setting to change, a file to make. */
  fix: string;
  /** The shell command of the fix alone, when there is one to copy. */
  command?: string;
  retry: RetryAdvice;
  /** For a ProxyJump chain: the hop that failed, `hop 1 of 2 (bastion)`. */
  hop?: string;
  /** For an authentication failure: the cause without "authentication failed for user@host: " (the preflight's keys check). */
  reason?: string;
}

/** One key source considered for a login, and how it stood. */
export interface KeyOffer {
  /** A key file's path, or `agent` (with the socket in `socket`). */
  source: string;
  state: 'missing' | 'unreadable' | 'not-a-key' | 'public-only' | 'encrypted' | 'passphrase-refused' | 'loaded' | 'agent' | 'agent-unavailable';
  socket?: string;
  /** It was offered to the server (and, when the login failed, refused). */
  offered: boolean;
}

/** What is known about a failed handshake: where, how far it got, what the socket and ssh2 said. */
export interface HandshakeFacts {
  /** Where the hop connects: its address (HostName) and port, and the login user. */
  hostname: string;
  port: number;
  user: string;
  stage: HandshakeStage;
  /** Our own time limit fired. */
  timedOut?: boolean;
  timeoutMs?: number;
  /** The TCP connection was established (ssh2's `connect`): a timeout after it is a silent server, not a dead host. */
  tcpUp?: boolean;
  /** What ssh2 or the socket said. */
  error?: { message?: string; code?: string; level?: string };
  /** For a refused host key. */
  hostKey?: { status: 'unknown' | 'changed' | 'revoked' | 'error'; keyType?: string; fingerprint?: string; file?: string; line?: number; name?: string; note?: string };
  /** The keys considered for the login, in the order they were tried. */
  keys?: readonly KeyOffer[];
  /** The methods the server still accepted after the last refusal (`publickey`, `password`…). */
  methodsLeft?: readonly string[];
  /** What the ssh-agent said when it could not be used. */
  agentError?: string;
  /** Connecting through jump hosts: this hop's place in the chain. */
  hop?: { index: number; of: number; alias: string };
  /** The previous hop (a jump host) could not open the tunnel to this one: what it said. */
  forwardError?: { via: string; message: string };
  /** The workspace is not trusted, or the SSH configuration could not be read. */
  restricted?: boolean;
  configError?: string;
}

/** `ssh -p PORT` style: the port only when it is not 22. */
function hostPort(hostname: string, port: number): string {
  return port === 22 ? hostname : `${hostname}:${port}`;
}

function knownHostsName(name: string, port: number): string {
  return port === 22 ? name : `[${name}]:${port}`;
}

/** The public host key file that holds this type on a Debian host (what to compare on its console). */
export function hostKeyFile(keyType: string | undefined): string {
  const short = (keyType ?? 'ssh-ed25519').replace(/^ssh-/, '').replace(/^ecdsa-sha2-nistp\d+$/, 'ecdsa').replace(/-cert-v01@openssh\.com$/, '');
  return `/etc/ssh/ssh_host_${short}_key.pub`;
}

/** `ssh-copy-id -i KEY.pub [-p PORT] USER@HOST`. */
export function copyIdCommand(keyFile: string, user: string, hostname: string, port: number): string {
  return `ssh-copy-id -i ${keyFile}.pub${port === 22 ? '' : ` -p ${port}`} ${user}@${hostname}`;
}

const NETWORK_CODES: Record<string, SshFailureKind> = {
  ECONNREFUSED: 'refused',
  ETIMEDOUT: 'timeout',
  EHOSTUNREACH: 'no-route',
  ENETUNREACH: 'no-route',
  EHOSTDOWN: 'no-route',
  ENOTFOUND: 'dns',
  EAI_AGAIN: 'dns',
  EAI_NONAME: 'dns',
  EAI_FAIL: 'dns',
  ECONNRESET: 'closed',
  EPIPE: 'closed',
  ECONNABORTED: 'closed',
};

function keyList(keys: readonly KeyOffer[]): string {
  const words: Record<KeyOffer['state'], (source: string) => string> = {
    missing: (k) => t('{0} does not exist', k),
    unreadable: (k) => t('{0} cannot be read', k),
    'not-a-key': (k) => t('{0} is not a private key', k),
    'public-only': (k) => t('{0} is a public key, not the private one', k),
    encrypted: (k) => t('{0} is passphrase-protected (no passphrase was given)', k),
    'passphrase-refused': (k) => t('{0} is passphrase-protected and the passphrase was wrong', k),
    loaded: (k) => t('{0} was offered', k),
    agent: (k) => t('{0} was asked', k),
    'agent-unavailable': (k) => t('{0} does not answer', k),
  };
  return keys
    .map((k) => {
      if (k.source !== 'agent') return words[k.state](k.source);
      const agent = k.socket ? t('the ssh-agent ({0})', k.socket) : t('the ssh-agent');
      return k.state === 'agent' && k.offered ? t('{0} offered its keys', agent) : words[k.state](agent);
    })
    .join('; ');
}

/** The failure of one handshake (one hop), as a cause and a fix; `hop` says where in a ProxyJump chain it failed. */
export function describeSshFailure(f: HandshakeFacts): SshFailure {
  const inner = describeHop(f);
  if (!f.hop || f.hop.of <= 1) return inner;
  return { ...inner, hop: t('hop {0} of {1} ({2})', f.hop.index, f.hop.of, f.hop.alias) };
}

const SEE_LOG = (): string => t('see the Kubeadm Workbench log for the details');

function describeHop(f: HandshakeFacts): SshFailure {
  const where = hostPort(f.hostname, f.port);
  if (f.restricted) return { kind: 'restricted', group: 'restricted', cause: t('not connecting: the workspace is not trusted'), fix: t('trust the workspace (Manage Workspace Trust) — SSH runs commands as root on the hosts'), retry: 'no' };
  if (f.configError !== undefined) return { kind: 'config', group: 'config', cause: t('the SSH settings cannot be used: {0}', f.configError), fix: t('correct the ssh: settings in inventory.yaml or the SSH config file named'), retry: 'no' };
  if (f.forwardError) {
    const command = `ssh ${f.forwardError.via} nc -vz ${f.hostname} ${f.port}`;
    return {
      kind: 'jump-forward', group: 'network', retry: 'no', command,
      cause: t('the jump host {0} could not open a connection to {1} ({2})', f.forwardError.via, where, f.forwardError.message.replace(/^\(SSH\) Channel open failure: /, '').toLowerCase()),
      fix: t('check that {0} is up and reachable from {1} ({2}) and that its sshd allows forwarding (AllowTcpForwarding yes)', where, f.forwardError.via, command),
    };
  }
  if (f.hostKey) return describeHostKey(f);
  if (f.stage === 'auth' && !f.timedOut && f.error?.level === 'client-authentication') return describeAuth(f, where);
  const code = f.error?.code;
  const kind: SshFailureKind = f.timedOut ? (f.tcpUp ? 'banner-timeout' : 'timeout') : (code && NETWORK_CODES[code]) || (/Connection lost before handshake|closed during the handshake/i.test(f.error?.message ?? '') || f.error === undefined ? 'closed' : 'other');
  const secs = f.timeoutMs ? t('{0} s', Math.round(f.timeoutMs / 100) / 10) : t('the time limit');
  switch (kind) {
    case 'dns':
      return {
        kind, group: 'network', retry: code === 'EAI_AGAIN' ? 'once' : 'no', command: `getent hosts ${f.hostname}`,
        cause: code === 'EAI_AGAIN' ? t('the name {0} does not resolve (the name server did not answer)', f.hostname) : t('the name {0} does not resolve', f.hostname),
        fix: t('correct the host\'s address in inventory.yaml (or HostName in your SSH config); `getent hosts {0}` shows what this machine resolves', f.hostname),
      };
    case 'refused':
      return {
        kind, group: 'network', retry: 'once', command: `nc -vz ${f.hostname} ${f.port}`,
        cause: t('nothing listens on {0} port {1}: the connection was refused', f.hostname, f.port),
        fix: t('start sshd on the host (systemctl start ssh) or set the port it listens on (ssh: { port: … } in inventory.yaml)'),
      };
    case 'timeout':
      // Not even TCP within the limit (a busy host still completes TCP in the kernel): another try costs the limit again.
      return {
        kind, group: 'network', retry: 'no', command: `nc -vz -w 5 ${f.hostname} ${f.port}`,
        cause: t('{0} did not answer within {1}: the host is down, the address is wrong, or a firewall drops the packets', where, secs),
        fix: t('check that the host is up and that this machine reaches it (nc -vz -w 5 {0} {1}); correct its address in inventory.yaml if it moved', f.hostname, f.port),
      };
    case 'banner-timeout':
      return {
        kind, group: 'network', retry: 'once',
        cause: t('{0} accepted the connection but no SSH server greeted within {1}: sshd is overloaded or another service listens on that port', where, secs),
        fix: t('check sshd on the host (systemctl status ssh) and the port in inventory.yaml'),
      };
    case 'no-route':
      return {
        kind, group: 'network', retry: 'no', command: `ip route get ${f.hostname}`,
        cause: code === 'ENETUNREACH'
          ? t('there is no route to {0} from this machine (network unreachable): the host is down or on a network this machine cannot reach', f.hostname)
          : t('there is no route to {0} from this machine (host unreachable): the host is down or on a network this machine cannot reach', f.hostname),
        fix: t('check the host\'s address in inventory.yaml and this machine\'s network (ip route get {0})', f.hostname),
      };
    case 'closed':
      return {
        kind, group: 'network', retry: f.stage === 'connect' ? 'backoff' : 'no',
        cause: f.stage === 'connect'
          ? t('{0} closed the connection before the SSH handshake: sshd turned it away (too many connections at once, MaxStartups, or a rule like AllowUsers) or the service on that port is not SSH', where)
          : t('{0} closed the connection during the SSH handshake', where),
        fix: t('read sshd\'s log on the host (journalctl -u ssh) for why it closed the connection'),
      };
    default:
      return {
        kind: 'other', group: 'network', retry: 'no',
        cause: t('connecting to {0} failed: {1}', where, f.error?.message ?? t('no reason given')),
        fix: SEE_LOG(),
      };
  }
}

function describeHostKey(f: HandshakeFacts): SshFailure {
  const k = f.hostKey!;
  const key = `${k.keyType ?? 'key'} ${k.fingerprint ?? ''}`.trim();
  const check = `ssh-keygen -lf ${hostKeyFile(k.keyType)}`;
  const name = k.name ?? f.hostname;
  // Where known_hosts looks it up (a HostKeyAlias, else the address), as ssh names it.
  const where = hostPort(name, f.port);
  const at = k.file ? `${k.file}${k.line ? `:${k.line}` : ''}` : 'known_hosts';
  switch (k.status) {
    case 'unknown':
      return {
        kind: 'host-key-unknown', group: 'host-key', retry: 'no', command: check,
        cause: k.note ? t('host key {0} of {1} is unknown (in no known_hosts file) and was not accepted ({2})', key, where, k.note) : t('host key {0} of {1} is unknown (in no known_hosts file) and was not accepted', key, where),
        fix: t('compare it with the key on the host\'s console ({0}), then accept it in the host-key review (command line: --accept-new-host-key={1})', check, k.fingerprint ?? 'SHA256:…'),
      };
    case 'changed': {
      const file = k.file ?? '~/.ssh/known_hosts';
      const command = `ssh-keygen -R '${knownHostsName(name, f.port)}' -f ${file}`;
      return {
        kind: 'host-key-changed', group: 'host-key', retry: 'no', command,
        cause: t('host key CHANGED for {0} — the server presented {1}, but {2} records a different {3} key. Possible man-in-the-middle attack, or the host was reinstalled; connection refused', where, key, at, k.keyType ?? '').replace(/ +/g, ' '),
        fix: t('read the key on the host\'s console ({0}); only when it is the same, remove the old line ({1}) and run again', check, command),
      };
    }
    case 'revoked':
      return {
        kind: 'host-key-revoked', group: 'host-key', retry: 'no',
        cause: t('host key {0} of {1} is revoked ({2}); connection refused', key, where, at),
        fix: t('give the host new host keys (ssh-keygen -A on it, after removing the revoked ones) and check the new key on its console'),
      };
    default:
      return {
        kind: 'host-key-error', group: 'host-key', retry: 'no',
        cause: f.error?.message ? t('the host key of {0} could not be checked: {1}', where, f.error.message) : t('the host key of {0} could not be checked', where),
        fix: t('check the known_hosts files (~/.ssh/known_hosts and the one in kubeadmWorkbench.knownHostsFile) for damaged lines'),
      };
  }
}

/** An authentication failure: the cause names the login; `reason`, the same without it, is what the preflight's keys column says. */
function authFailure(login: string, reason: string, rest: Omit<SshFailure, 'group' | 'retry' | 'cause' | 'reason'>): SshFailure {
  return { ...rest, group: 'auth', retry: 'no', cause: t('authentication failed for {0}: {1}', login, reason), reason };
}

function describeAuth(f: HandshakeFacts, where: string): SshFailure {
  const keys = f.keys ?? [];
  const offered = keys.filter((k) => k.offered);
  const files = keys.filter((k) => k.source !== 'agent');
  const firstFile = files[0]?.source ?? '~/.ssh/id_ed25519';
  const login = `${f.user}@${where}`;
  if (f.methodsLeft && f.methodsLeft.length && !f.methodsLeft.includes('publickey')) {
    const command = copyIdCommand(firstFile, f.user, f.hostname, f.port);
    return authFailure(login, t('the server accepts no key login there (it offers {0}); Kubeadm Workbench logs in with keys only', f.methodsLeft.join(', ')), {
      kind: 'password-only', command,
      fix: t('allow key logins there (PubkeyAuthentication yes in its sshd_config) and install your key ({0})', command),
    });
  }
  if (offered.length) {
    const fileOffered = offered.find((k) => k.source !== 'agent')?.source ?? firstFile;
    const command = copyIdCommand(fileOffered, f.user, f.hostname, f.port);
    const sources = offered.map((k) => (k.source === 'agent' ? t('the ssh-agent\'s keys') : k.source)).join(', ');
    return authFailure(login, offered.length > 1 ? t('the server did not accept the keys offered ({0})', sources) : t('the server did not accept the key offered ({0})', sources), {
      kind: 'key-not-accepted', command,
      fix: t('install the public key for {0} on the host ({1}, or append {2}.pub to ~{0}/.ssh/authorized_keys there)', f.user, command, fileOffered),
    });
  }
  const encrypted = files.find((k) => k.state === 'encrypted' || k.state === 'passphrase-refused');
  if (encrypted) {
    const command = `ssh-add ${encrypted.source}`;
    return authFailure(login, t('no key could be offered — {0}', keyList(keys)), {
      kind: 'encrypted-key', command,
      fix: t('load the key into an ssh-agent (eval "$(ssh-agent)"; {0}) — the editor also asks for the passphrase when it connects', command),
    });
  }
  const agent = keys.find((k) => k.source === 'agent' && k.state === 'agent-unavailable');
  if (agent && files.every((k) => k.state === 'missing')) {
    const named = files.map((k) => k.source).join(', ');
    const silent = agent.socket ? t('the ssh-agent at {0} does not answer', agent.socket) : t('the ssh-agent does not answer');
    const said = f.agentError ? t('{0} ({1})', silent, f.agentError.toLowerCase()) : silent;
    return authFailure(login, files.length === 1 ? t('no key could be offered — {0} and {1} does not exist', said, named) : t('no key could be offered — {0} and {1} do not exist', said, named), {
      kind: 'agent',
      fix: t('start an agent and add your key (eval "$(ssh-agent)"; ssh-add {0}), or name the key file as ssh.identityFile in inventory.yaml', firstFile),
    });
  }
  const command = `ssh-keygen -t ed25519 -f ${firstFile} && ${copyIdCommand(firstFile, f.user, f.hostname, f.port)}`;
  const found = keys.length ? keyList(keys) : t('no identity file is named and no ssh-agent runs');
  return authFailure(login, keys.some((k) => k.source === 'agent') ? t('no key to log in with — {0}', found) : t('no key to log in with — {0} (no ssh-agent: SSH_AUTH_SOCK is not set)', found), {
    kind: 'no-usable-key', command,
    fix: t('point ssh.identityFile in inventory.yaml at the key you log in with, or make one and install it ({0})', command),
  });
}

/** What sudo said (`sudo -n true`, or `sudo -S` with a password) on a host reached as `user`. */
export interface SudoFacts {
  user: string;
  host: string;
  code: number | null;
  stderr: string;
  /** A password was sent on sudo's stdin. */
  withPassword: boolean;
}

/** The failure of becoming root with sudo, or undefined when sudo worked. sudo's own words are read in English (LC_ALL=C). */
export function describeSudoFailure(s: SudoFacts): SshFailure | undefined {
  if (s.code === 0) return undefined;
  const err = s.stderr.trim();
  const sudoers = `${s.user} ALL=(ALL) NOPASSWD: ALL`;
  if (s.code === 127 || /sudo: (command )?not found|No such file or directory/.test(err)) {
    return { kind: 'sudo-missing', group: 'sudo', retry: 'no', command: 'apt-get install sudo', cause: t('{0} is not root there and sudo is not installed', s.user), fix: t('install sudo on the host (as root: apt-get install sudo) and allow {0} to use it, or log in as root (ssh: { user: root })', s.user) };
  }
  if (/is not in the sudoers file|is not allowed to (run|execute)|may not run sudo/.test(err)) {
    return { kind: 'sudo-denied', group: 'sudo', retry: 'no', cause: t('{0} may not use sudo there', s.user), fix: t('allow it in /etc/sudoers.d on the host (visudo -f /etc/sudoers.d/{0}: {1}), or log in as root', s.user, sudoers) };
  }
  if (s.withPassword && /incorrect password|Sorry, try again|authentication failure/i.test(err)) {
    return { kind: 'sudo-wrong-password', group: 'sudo', retry: 'no', cause: t('sudo did not accept the password for {0}', s.user), fix: t('enter {0}\'s password on that host (run the operation again)', s.user) };
  }
  if (/a (terminal|password) is required|no tty present|askpass/i.test(err)) {
    return {
      kind: 'sudo-password', group: 'sudo', retry: 'no',
      cause: t('sudo asks {0} for a password there', s.user),
      fix: t('enter the sudo password when the operation asks (command line: --ask-become-pass), or allow it without one (/etc/sudoers.d/{0}: {1})', s.user, sudoers),
    };
  }
  const exit = s.code ?? t('by a signal');
  return { kind: 'other', group: 'sudo', retry: 'no', cause: err ? t('sudo failed for {0} (exit {1}: {2})', s.user, exit, err.split('\n').pop()!.slice(0, 200)) : t('sudo failed for {0} (exit {1})', s.user, exit), fix: SEE_LOG() };
}

/** True for the failures a resume cannot fix: the host is not reachable, not ours to log in to, or not the one on record. */
export function isConnectionFailure(kind: SshFailureKind | undefined): boolean {
  return kind !== undefined && kind !== 'other' && !kind.startsWith('sudo-');
}
