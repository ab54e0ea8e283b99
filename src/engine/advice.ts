/**
 * What a failed run tells the user besides the error: the step and host, the likely cause read from the
 * error and from what the run knows (hosts rebuilt since it started, the same step failing the same way
 * as last time), and a way out that leads somewhere — never "run it again" when running it again is
 * known to fail the same way.
 */
import type { HostChange } from '../core/plan/hostIdentity';
import type { KnownFailure } from '../core/plan/runner';
import type { Step } from '../core/plan/types';
import { isConnectionFailure, type SshFailure } from '../core/ssh/failures';
import { t } from '../core/l10n';

export interface FailureFacts {
  step: Step;
  error: string;
  cancelled: boolean;
  /** The run was resumed from a ledger (not started fresh). */
  resumed: boolean;
  /** The error this step had in the ledger before this run, when it had failed there. */
  previousError?: string;
  /** Hosts found rebuilt or restarted when the run started. */
  changes: readonly HostChange[];
  /** The first control-plane node (it holds the cluster). */
  firstControlPlane?: string;
  /** The step never reached its host: the SSH taxonomy's answer (core/ssh/failures.ts). */
  connection?: SshFailure;
  /** A failure the program raised and knows by kind (the runner's `known`): matched before any words. */
  known?: KnownFailure;
}

export interface FailureAdvice {
  /** `labs-k8s-m02: Package sources`. */
  where: string;
  cause?: string;
  /** No rule knew the error: the cause only points at the host's own output. */
  unknown?: boolean;
  /** True when the same step failed the same way last time: running it again as is will not help. */
  repeated: boolean;
  /** What to do next, for the CLI (`--fresh`) or the editor ("Start over"), filled in by the front-end. */
  fix?: string;
  /**
   * The run did not reach the host (unreachable, login refused, host key): neither a resume nor a new run can get
   * further until that is fixed — the way on is the preflight, which names the cause and the fix.
   */
  unreachable?: boolean;
}

interface Rule {
  test: RegExp;
  /** The kind that picks this rule whatever the error's language (the words stay for what a host said). */
  known?: KnownFailure;
  /** In the display language, when the advice is made. */
  cause: () => string;
  fix: () => string;
}

const RULES: Rule[] = [
  {
    test: /Unable to locate package|has no installation candidate|Version '[^']*' for '[^']*' was not found|Package '[^']*' has no installation/,
    cause: () => t('apt does not know the package: the host\'s package sources are missing or their lists are stale (a host rebuilt or restored after its sources were set up)'),
    fix: () => t('check cluster.packages in the inventory (the source line, its key, the version it offers); the Package sources step sets the sources up again whenever `apt-cache` on the host does not offer the packages'),
  },
  {
    test: /host key CHANGED/,
    cause: () => t('the host presented another SSH host key than known_hosts records: it was reinstalled, or something is between you and it'),
    fix: () => t('check the new key out of band (on the host\'s console: ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub), replace the host\'s line in known_hosts (a reinstalled host is noticed and its steps run again)'),
  },
  {
    test: /cannot become root/,
    known: 'sudo-refused',
    cause: () => t('sudo refused: a password is needed (none was given), the password was wrong, or the user may not use sudo'),
    fix: () => t('give the sudo password (CLI: --ask-become-pass) or log in as root'),
  },
  {
    test: /x509|certificate signed by unknown authority|Unauthorized|certificate has expired/,
    cause: () => t('the host holds credentials of another cluster (it joined a cluster that has been rebuilt since) or expired ones'),
    fix: () => t('when the host is not part of the working cluster, reset it (`kubeadm reset -f` on it)'),
  },
  {
    test: /not resetting|cannot tell whether|cannot ask the API/,
    cause: () => t('an earlier run left kubeadm files on the host, and the API cannot say whether the host is a working part of the cluster — it is not reset on a guess'),
    fix: () => t('make the API answer through the VIP, or, when the host is not part of the cluster, reset it (`kubeadm reset -f` on it)'),
  },
  {
    test: /is being changed by another run/,
    known: 'host-locked',
    cause: () => t('another run (named above) holds the host: two runs changing one host at once would race each other'),
    fix: () => t('wait for that run to end, or cancel it (a run that died leaves a lock that the next run takes over by itself)'),
  },
  {
    test: /context deadline exceeded|timed out waiting for the condition|the API server .* did not become|wait-control-plane/,
    cause: () => t('the API server or etcd answered too slowly: the host is overloaded (CPU, memory, disk) or the network between the nodes is slow'),
    fix: () => t('give the control-plane hosts the CPU and memory kubeadm needs (2 CPUs, 2 GB) or wait for the load to drop; the step resets what the half-done kubeadm left before it runs again'),
  },
  {
    test: /ECONNREFUSED|ETIMEDOUT|EHOSTUNREACH|ENOTFOUND|timed out while connecting|No route to host|connect timeout/i,
    cause: () => t('the host cannot be reached over SSH'),
    fix: () => t('bring the host up (or fix its address in the inventory)'),
  },
];

export function failureAdvice(f: FailureFacts): FailureAdvice {
  const where = `${f.step.host}: ${f.step.title}`;
  if (f.cancelled) return { where, repeated: false, cause: 'cancelled' };
  if (f.connection && isConnectionFailure(f.connection.kind)) {
    return { where, repeated: false, unreachable: true, cause: t('the run could not reach {0} over SSH: {1}', f.step.host, f.connection.cause), fix: t('run the preflight (it checks every host the same way and names each fix), fix what it names, then run again') };
  }
  // What the host said, not the command (whose text names the very messages the rules look for).
  const said = f.error.slice(Math.max(0, f.error.lastIndexOf('` exited '), f.error.lastIndexOf('` was killed by ')));
  const rule = (f.known && RULES.find((r) => r.known === f.known)) || RULES.find((r) => r.test.test(said));
  const repeated = f.resumed && f.previousError !== undefined && sameFailure(f.previousError, f.error);
  const rebuilt = f.changes.filter((c) => c.rebuilt).map((c) => c.host);
  // No known pattern: the host's own words (the error's last lines, the run log) are the best lead there is.
  let cause = rule?.cause() ?? t('the step failed on {0} for a reason its output gives (the error above; the run log has all of it)', f.step.host);
  let fix = rule?.fix();
  const unknown = !rule;
  // A rebuilt first control-plane node means a new cluster: the hosts that were not rebuilt still hold the old one's files.
  if (f.firstControlPlane && rebuilt.includes(f.firstControlPlane) && !rebuilt.includes(f.step.about ?? f.step.host) && f.step.host !== f.firstControlPlane) {
    const holder = f.step.about ?? f.step.host;
    cause = rule
      ? t('{0} was rebuilt since this run started, so the cluster is a new one; {1} was not, and still holds what it got from the old cluster ({2})', f.firstControlPlane, holder, rule.cause())
      : t('{0} was rebuilt since this run started, so the cluster is a new one; {1} was not, and still holds what it got from the old cluster', f.firstControlPlane, holder);
    fix = t('reset {0} (`kubeadm reset -f` on it)', holder);
    return { where, repeated, cause, fix };
  }
  return { where, repeated, cause, ...(fix ? { fix } : {}), ...(unknown ? { unknown } : {}) };
}

/** Two failures are the same when their messages are, after numbers (times, pids, ports) are ignored. */
function sameFailure(a: string, b: string): boolean {
  const norm = (s: string) => s.replace(/\d+(\.\d+)?/g, '#').trim();
  return norm(a) === norm(b);
}

/** The advice as lines, with the front-end's own way to start over (`--fresh`, or the editor's "Start over"). */
export function adviceLines(a: FailureAdvice, resumeHow: string, startOverHow: string): string[] {
  if (a.cause === 'cancelled') return [t('{0} to resume at {1}, or {2} to start over', resumeHow, a.where, startOverHow)];
  if (a.unreachable) return [t('cause: {0}', a.cause ?? ''), t('a resume would stop at the same place: {0}', a.fix ?? '')];
  const lines: string[] = [];
  if (a.cause) lines.push(t('likely cause: {0}', a.cause));
  if (a.fix) lines.push(t('what to do: {0}', a.fix));
  if (a.repeated) {
    lines.push(t('this step failed the same way in the run this one resumed: running it again as it is will fail again.'));
    lines.push(a.fix
      ? t('way out: do the above, or {0} to start over (a new run that forgets what this one recorded of the hosts; every step still asks its host first)', startOverHow)
      : t('way out: {0} to start over (a new run that forgets what this one recorded of the hosts; every step still asks its host first)', startOverHow));
  } else {
    lines.push(a.fix
      ? t('way out: then {0} to resume at this step (every step asks its host again first), or {1} to start over', resumeHow, startOverHow)
      : t('way out: {0} to resume at this step (every step asks its host again first), or {1} to start over', resumeHow, startOverHow));
  }
  return lines;
}
