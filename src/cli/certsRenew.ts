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
import { sudoUnlessRoot } from '../engine/become';
import { prepareRenew } from '../engine/renew';
import { parseFlags, UsageError, type FlagSpec } from './args';
import { runApproved } from './engine';
import { loadInventoryFile } from './inventoryFile';
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE, type CliIo } from './io';
import { poolFromFlags, SSH_FLAGS } from './sshFlags';

const FLAGS: FlagSpec = { inventory: 'string', host: 'list', kubeconfig: 'string', ...SSH_FLAGS, 'ask-become-pass': 'boolean', yes: 'boolean', plan: 'boolean', fresh: 'boolean', json: 'boolean' };

const USAGE =
  'usage: kubeadm-workbench certs renew --inventory FILE [--host NAME]... [--kubeconfig F] [--plan] [--yes] [--fresh]\n' +
  '                                     [--ssh-config F] [--known-hosts F] [--accept-new-host-key=SHA256:...] [--ask-become-pass] [--json]\n';

export async function runCertsRenew(argv: string[], io: CliIo, stdin: NodeJS.ReadableStream = process.stdin): Promise<number> {
  let flags: Record<string, string | boolean | string[] | undefined>;
  try {
    const parsed = parseFlags(argv, FLAGS);
    flags = parsed.flags;
    if (parsed.positionals.length) throw new UsageError(`unexpected argument ${parsed.positionals[0]}`);
    if (!flags.inventory) throw new UsageError('--inventory is required');
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    io.stderr(`${e.message}\n${USAGE}`);
    return EXIT_USAGE;
  }
  const inventoryPath = flags.inventory as string;
  const inventory = await loadInventoryFile(inventoryPath, io);
  if (typeof inventory === 'number') return inventory;
  const pool = poolFromFlags(inventory, flags, { report: (line) => io.stderr(`${line}\n`), connectTimeoutMs: 8000 });
  // The sudo password is asked by the run (after the plan); the gates' own commands use it from then on.
  let password: string | undefined;
  const become = sudoUnlessRoot((h) => pool.loginUser(h), undefined);
  const deps = {
    inventory,
    ssh: pool,
    become: (h: string) => (password === undefined ? become(h) : sudoUnlessRoot((x) => pool.loginUser(x), password)(h)),
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
  const code = await runApproved({ inventory, inventoryPath: resolve(inventoryPath), flags }, io, prep.plan, 'certs-renew', stdin, {
    pool,
    password: (p) => (password = p),
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
