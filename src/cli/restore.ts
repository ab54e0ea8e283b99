/**
 * `kubeadm-workbench restore --inventory FILE --from SNAPSHOT [--force] [--yes] [--plan]`: disaster recovery
 * of etcd from a snapshot (a `backup` folder's snapshot.db; its manifest.json beside it names the members).
 * Refused while etcd still has a healthy quorum unless --force (and then the cluster's name must be typed,
 * unless --yes). Stops the API servers and etcd everywhere, restores the same snapshot on every member
 * (own --name and peer URL, the full --initial-cluster, a fresh token) into a new data dir with the old one
 * kept aside, brings etcd back, checks the members, brings the API servers back and waits for every Node
 * Ready. Prints the RTO: restore start → the API answering through the endpoint. Exit 0 done, 1 refused
 * or failed, 2 usage.
 */
import { resolve } from 'node:path';
import { describeError } from '../core/live/errors';
import { renderPlan } from '../core/plan/types';
import { prepareRestore } from '../engine/restore';
import { UsageError, type FlagSpec } from './args';
import { openPlanVerb, parseVerbFlags, PLAN_VERB_FLAGS } from './verbFlags';
import { runApproved } from './bringUp';
import { EXIT_FAILED, EXIT_OK, type CliIo } from './io';
import { Prompter } from './secretPrompt';

const FLAGS: FlagSpec = { ...PLAN_VERB_FLAGS, from: 'string', force: 'boolean' };

const USAGE =
  'usage: kubeadm-workbench restore --inventory FILE --from SNAPSHOT [--force] [--plan] [--yes] [--fresh]\n' +
  '                                 [--ssh-config F] [--known-hosts F] [--accept-new-host-key=SHA256:...] [--ask-become-pass] [--json]\n';

export async function runRestoreVerb(argv: string[], io: CliIo, stdin: NodeJS.ReadableStream = process.stdin): Promise<number> {
  const flags = parseVerbFlags(argv, FLAGS, USAGE, io, (f) => {
    if (!f.inventory) throw new UsageError('--inventory is required');
    if (!f.from) throw new UsageError('--from is required (a snapshot.db written by `backup`)');
  });
  if (typeof flags === 'number') return flags;
  const session = await openPlanVerb(flags, io);
  if (typeof session === 'number') return session;
  const { inventory, inventoryPath, pool, become } = session;
  let prep;
  try {
    prep = await prepareRestore({ inventory, ssh: pool, become, say: (l) => io.stdout(`   ${l}\n`) }, resolve(flags.from as string), Boolean(flags.force));
  } catch (e) {
    await pool.close();
    io.stderr(`kubeadm-workbench restore: ${describeError(e)}\n`);
    return EXIT_FAILED;
  }
  for (const w of prep.warnings) io.stdout(`! ${w}\n`);
  io.stdout(`members: ${prep.members.map((m) => `${m.name}=${m.peerURL} on ${m.host}`).join(', ')}\n`);
  if (prep.refusals.length) {
    await pool.close();
    io.stderr(`restore refused; nothing was done:\n${prep.refusals.map((r) => `  - ${r}`).join('\n')}\n`);
    return EXIT_FAILED;
  }
  if (flags.plan) {
    io.stdout(renderPlan(prep.plan));
    await pool.close();
    return EXIT_OK;
  }
  if (prep.quorumHealthy && !flags.yes) {
    const prompter = new Prompter(stdin);
    try {
      const typed = await prompter.ask(`etcd is healthy and every write since the snapshot will be lost. Type the cluster's name (${inventory.cluster.name}) to restore anyway: `);
      if (typed.trim() !== inventory.cluster.name) {
        await pool.close();
        io.stderr('not confirmed; nothing was done.\n');
        return EXIT_FAILED;
      }
    } finally {
      prompter.close();
    }
  }
  let started = 0;
  let rtoSeconds: number | undefined;
  let apiBack = 0;
  const code = await runApproved({ inventory, inventoryPath, flags, argv }, io, prep.plan, 'restore', stdin, {
    pool,
    password: session.setPassword,
    onEvent: (e) => {
      if (e.type === 'step-start' && !started) started = Date.now();
      if (e.type === 'step-end' && e.step.id.endsWith('/apiserver') && e.state === 'done' && ++apiBack === prep.members.length) rtoSeconds = (Date.now() - started) / 1000;
    },
  });
  const total = started ? (Date.now() - started) / 1000 : undefined;
  if (flags.json) io.stdout(JSON.stringify({ ok: code === EXIT_OK, rtoSeconds, totalSeconds: total }) + '\n');
  else if (rtoSeconds !== undefined) io.stdout(`RTO: ${rtoSeconds.toFixed(1)} s from the restore's start to the API answering through the endpoint; ${total?.toFixed(1)} s to every Node Ready\n`);
  return code;
}
