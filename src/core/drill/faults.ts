/**
 * The remote commands of the balancer drills and of the network partition, all from the `sh` template.
 *
 * A cut is an nftables table of our own (`inet kubeadm_workbench_drill`) at priority −300, before anything else on the
 * host, so it neither edits nor depends on the host's firewall; deleting the table is the whole heal. Before the table
 * goes in, a systemd timer (`systemd-run --on-active`) that deletes it is started: the host heals itself even when the
 * drill, this machine or the network to it dies mid-drill, and never stays cut. The SSH connection the drill runs over
 * stays open through the cut (the client address and server port of this very session, found in its sshd's
 * environment because sudo drops SSH_CONNECTION), so the heal is one command away and the drill can still read the
 * host; everything else in and out — etcd peers, the balancers' checks, kubelet to the VIP — is dropped.
 */
import { sh, type RemoteCommand } from '../ssh/command';

export const DRILL_TABLE = 'kubeadm_workbench_drill';
const HEAL_UNIT_PREFIX = 'kubeadm-workbench-heal';

/** `client_ip server_port` of the SSH session this shell runs in, from the nearest ancestor that has SSH_CONNECTION. */
const SSH_CLIENT = sh`conn=''; p=$$; while [ -z "$conn" ] && [ "$p" -gt 1 ]; do conn=$(tr '\\0' '\\n' </proc/$p/environ 2>/dev/null | sed -n 's/^SSH_CONNECTION=//p'); p=$(cut -d' ' -f4 /proc/$p/stat 2>/dev/null || echo 1); done; set -- $conn; cip=$1; sport=$4; [ -n "$cip" ] && [ -n "$sport" ] || { echo 'cannot tell which SSH connection to keep open (no SSH_CONNECTION): refusing to cut' >&2; exit 3; }`;

/** Starts the self-heal timer, then loads `rules` (nft syntax, may use $cip and $sport) into the drill's table. */
function cutWith(rules: string, healAfterSeconds: number, what: RemoteCommand): RemoteCommand {
  const seconds = Math.max(30, Math.round(healAfterSeconds));
  return sh`set -e; command -v nft >/dev/null; ${SSH_CLIENT}; nft delete table inet ${DRILL_TABLE} 2>/dev/null || true; unit=${HEAL_UNIT_PREFIX}-$$; if command -v systemd-run >/dev/null 2>&1; then systemd-run --quiet --unit="$unit" --on-active=${`${seconds}s`} --timer-property=AccuracySec=1s nft delete table inet ${DRILL_TABLE}; else (setsid sh -c ${`sleep ${seconds}; nft delete table inet ${DRILL_TABLE}`} >/dev/null 2>&1 &); fi; printf '%s\\n' ${rules} | sed "s/@CIP@/$cip/g; s/@SPORT@/$sport/g" | nft -f -; ${what}; echo "SSH from $cip to port $sport stays open; the host heals itself in ${seconds} s if the drill does not"`;
}

/**
 * Partition: every packet in and out of the host dropped (loopback and this SSH session excepted) while it keeps
 * running — the etcd member is cut from its peers, HAProxy's checks go unanswered, kubelet cannot reach the VIP.
 */
export function partitionCutCommand(healAfterSeconds: number): RemoteCommand {
  const rules = [
    `table inet ${DRILL_TABLE} {`,
    '  chain input { type filter hook input priority -300; policy drop; iif lo accept; ip saddr @CIP@ tcp dport @SPORT@ accept; }',
    '  chain output { type filter hook output priority -300; policy drop; oif lo accept; ip daddr @CIP@ tcp sport @SPORT@ accept; }',
    '}',
  ].join('\n');
  return cutWith(rules, healAfterSeconds, sh`echo "network of $(hostname) cut in both directions"`);
}

/** Split brain: VRRP (IP protocol 112) dropped in and out of this balancer; the other balancers stop hearing it and it them. */
export function vrrpBlockCommand(healAfterSeconds: number): RemoteCommand {
  const rules = [
    `table inet ${DRILL_TABLE} {`,
    '  chain input { type filter hook input priority -300; policy accept; ip protocol 112 drop; }',
    '  chain output { type filter hook output priority -300; policy accept; ip protocol 112 drop; }',
    '}',
  ].join('\n');
  return cutWith(rules, healAfterSeconds, sh`echo "VRRP adverts of $(hostname) blocked in both directions"`);
}

/** The heal: the table goes, and the self-heal timer with it. Idempotent. */
export function healCommand(): RemoteCommand {
  return sh`nft delete table inet ${DRILL_TABLE} 2>/dev/null || true; systemctl stop ${`${HEAL_UNIT_PREFIX}-*.timer`} 2>/dev/null || true; if nft list table inet ${DRILL_TABLE} >/dev/null 2>&1; then echo 'the drill table is still there' >&2; exit 1; fi; echo "$(hostname) healed"`;
}

/** Read-only: nft can load a table here (and the self-heal has systemd-run or setsid). */
export function cutPreflightCommand(): RemoteCommand {
  return sh`command -v nft >/dev/null 2>&1 || { echo 'nft (the nftables package) is not installed' >&2; exit 1; }; nft list tables >/dev/null || exit 1; if nft list table inet ${DRILL_TABLE} >/dev/null 2>&1; then echo 'a drill table is still loaded (an earlier drill did not heal): run the heal first' >&2; exit 1; fi; command -v systemd-run >/dev/null 2>&1 || command -v setsid >/dev/null 2>&1 || { echo 'neither systemd-run nor setsid for the self-heal' >&2; exit 1; }; echo ok`;
}

export function unitCommand(action: 'stop' | 'start', unit: 'keepalived' | 'haproxy'): RemoteCommand {
  return action === 'stop' ? sh`systemctl stop ${`${unit}.service`} && echo ${`${unit} stopped`}` : sh`systemctl start ${`${unit}.service`} && systemctl is-active ${`${unit}.service`}`;
}

/**
 * keepalived.conf as the balancer runs it, without its `auth_pass` lines (removed on the host: the password never
 * leaves it), and the MAC of the VRRP interface; `### mac` between them.
 */
export function keepalivedConfCommand(iface: string): RemoteCommand {
  return sh`sed '/auth_pass/d' /etc/keepalived/keepalived.conf; echo '### mac'; cat ${`/sys/class/net/${iface}/address`} 2>/dev/null || true`;
}

/** Which balancers hold the VIP now, fast: the address list only. */
export function vipHeldCommand(): RemoteCommand {
  return sh`ip -o -4 addr show`;
}

/** A node's neighbour entry for the VIP: the MAC it sends the VIP's packets to (gratuitous ARP updates it). */
export function neighbourCommand(vip: string): RemoteCommand {
  return sh`ip neigh show to ${vip}`;
}

/** `10.3.60.100 dev ens192 lladdr 52:54:00:12:34:56 REACHABLE` → the MAC; undefined when there is none (FAILED, INCOMPLETE). */
export function parseNeighbour(text: string): string | undefined {
  return /\blladdr ([0-9a-f:]{17})\b/i.exec(text)?.[1]?.toLowerCase();
}

/** Whether `ip -o -4 addr show` lists the address. */
export function holdsAddress(text: string, address: string): boolean {
  return text.split('\n').some((l) => new RegExp(`\\sinet ${address.replace(/\./g, '\\.')}/`).test(l));
}
