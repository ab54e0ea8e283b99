/**
 * `kubeadm-workbench certs renew --inventory FILE [--host NAME]... [--kubeconfig F] [--yes] [--plan]`:
 * `kubeadm certs renew all` on one control-plane node at a time, each node's static pods restarted
 * through the container runtime with a health gate after each, the served certificate checked to be the
 * renewed one before the next node, the etcd quorum guard before each node, and the renewed admin.conf
 * merged into --kubeconfig at the end. The plan is printed first; a failed or killed run resumes at its
 * step (--fresh starts over); Ctrl-C cancels the remote command. Exit 0 done, 1 refused or failed, 2 usage.
 */
import { resolve } from 'node:path';
import { servedCertificate } from '../adapters/tls/servedCertificate';
import { summarize } from '../core/certs/report';
import { describeError } from '../core/live/errors';
import { renderPlan } from '../core/plan/types';
import { prepareRenew } from '../engine/renew';
import { UsageError, type FlagSpec } from './args';
import { openPlanVerb, parseVerbFlags, PLAN_VERB_FLAGS } from './verbFlags';
import { runApproved } from './bringUp';
import { EXIT_FAILED, EXIT_OK, type CliIo } from './io';

const FLAGS: FlagSpec = { ...PLAN_VERB_FLAGS, host: 'list', kubeconfig: 'string' };

const USAGE =
  'usage: kubeadm-workbench certs renew --inventory FILE [--host NAME]... [--kubeconfig F] [--plan] [--yes] [--fresh]\n' +
  '                                     [--ssh-config F] [--known-hosts F] [--accept-new-host-key=SHA256:...] [--ask-become-pass] [--json]\n';

export async function runCertsRenew(argv: string[], io: CliIo, stdin: NodeJS.ReadableStream = process.stdin): Promise<number> {
  const flags = parseVerbFlags(argv, FLAGS, USAGE, io, (f) => {
    if (!f.inventory) throw new UsageError('--inventory is required');
  });
  if (typeof flags === 'number') return flags;
  const session = await openPlanVerb(flags, io);
  if (typeof session === 'number') return session;
  const { inventory, inventoryPath, pool } = session;
  const deps = {
    inventory,
    ssh: pool,
    become: session.become,
    served: (a: string, p: number) => servedCertificate(a, p),
    ...(flags.kubeconfig ? { kubeconfig: resolve(flags.kubeconfig as string) } : {}),
    say: (line: string) => io.stdout(`   ${line}\n`),
  };
  let prep;
  try {
    prep = await prepareRenew(deps, (flags.host as string[] | undefined) ?? []);
  } catch (e) {
    await pool.close();
    io.stderr(`kubeadm-workbench certs renew: ${describeError(e)}\n`);
    return EXIT_FAILED;
  }
  const s = summarize(prep.before);
  io.stdout(`before: ${s.certificates} certificate(s) on ${prep.hosts.join(', ')}; the soonest expires in ${s.minDaysLeft ?? '—'} day(s)\n`);
  if (prep.refusals.length) {
    await pool.close();
    io.stderr(`renewal refused; nothing was done:\n${prep.refusals.map((r) => `  - ${r}`).join('\n')}\n`);
    return EXIT_FAILED;
  }
  if (flags.plan) {
    io.stdout(renderPlan(prep.plan));
    await pool.close();
    return EXIT_OK;
  }
  // Per node: from its guard to its controllers back (what `renew per node` measures).
  const perNode: Record<string, { startedAt: number; seconds?: number }> = {};
  const code = await runApproved({ inventory, inventoryPath, flags, argv }, io, prep.plan, 'certs-renew', stdin, {
    pool,
    password: session.setPassword,
    onEvent: (e) => {
      if (e.type === 'step-start' && e.step.id.endsWith('/guard')) perNode[e.step.host] = { startedAt: Date.now() };
      if (e.type === 'step-end' && e.step.id.endsWith('/controllers') && e.state === 'done' && perNode[e.step.host]) perNode[e.step.host]!.seconds = (Date.now() - perNode[e.step.host]!.startedAt) / 1000;
    },
  });
  const timings = Object.entries(perNode).map(([h, t]) => ({ host: h, seconds: t.seconds }));
  if (flags.json) io.stdout(JSON.stringify({ ok: code === EXIT_OK, perNode: timings }) + '\n');
  else for (const t of timings) io.stdout(`renewed ${t.host}${t.seconds !== undefined ? ` in ${t.seconds.toFixed(1)} s` : ' (not finished)'}\n`);
  return code;
}
