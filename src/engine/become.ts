/**
 * Root on the hosts: the phases write under /etc and /root and run kubeadm, so a host logged into as
 * another user runs every step through sudo. A password, when the sudoers rule needs one, is asked once
 * per run (CLI: --ask-become-pass; editor: a password box) and only ever travels on sudo's stdin.
 */
import type { BecomeFor } from '../core/plan/sshExecutor';
import type { Plan } from '../core/plan/types';

export type LoginUser = (host: string) => string;

/** Hosts of the plan reached as a user other than root, with that user (`host → user`). */
export function hostsNeedingSudo(plan: Plan, loginUser: LoginUser): Map<string, string> {
  const out = new Map<string, string>();
  for (const host of new Set(plan.phases.flatMap((p) => p.steps.map((s) => s.host)))) {
    let user: string;
    try {
      user = loginUser(host);
    } catch {
      continue; // a configuration error: the run reports it on that host's first step
    }
    if (user !== 'root') out.set(host, user);
  }
  return out;
}

/** sudo for every host not reached as root: `sudo -S` with the password, `sudo -n` without one. */
export function sudoUnlessRoot(loginUser: LoginUser, password?: string): BecomeFor {
  return (host) => {
    let user: string;
    try {
      user = loginUser(host);
    } catch {
      return undefined;
    }
    if (user === 'root') return undefined;
    return password === undefined || password === '' ? {} : { password };
  };
}
