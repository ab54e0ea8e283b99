/**
 * `kubeadm-workbench certs renew --inventory FILE [--host NAME]... [--kubeconfig F] [--yes] [--plan]`:
 * `kubeadm certs renew all` on one control-plane node at a time, each node's static pods restarted
 * through the container runtime with a health gate after each, the served certificate checked to be the
 * renewed one before the next node, the etcd quorum guard before each node, and the renewed admin.conf
 * merged into --kubeconfig at the end. The plan is printed first; a failed or killed run resumes at its
 * step (--fresh starts over); Ctrl-C cancels the remote command. Exit 0 done, 1 refused or failed, 2 usage.
 * The reading, refusal and run are the renewal workflow's (engine/workflows/renewWorkflow.ts), the editor's too.
 */
import { resolve } from 'node:path';
import { servedCertificate } from '../adapters/tls/servedCertificate';
import { renewWorkflow } from '../engine/workflows/renewWorkflow';
import { UsageError, type FlagSpec } from './args';
import { openPlanVerb, parseVerbFlags, PLAN_VERB_FLAGS } from './verbFlags';
import { hostsWith, terminalPlanRun } from './bringUp';
import { Prompter } from './secretPrompt';
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
  const prompter = new Prompter(stdin);
  const { ui, run, preflight } = terminalPlanRun({ inventory, inventoryPath, flags, argv }, io, prompter, stdin, pool, 'certs renew');
  try {
    // The renewal takes each node out of HAProxy on every balancer: those answer too.
    if (!flags.plan && !(await preflight('Renew Certificates', hostsWith(inventory, 'control-plane', 'loadbalancer')))) return EXIT_FAILED;
    const outcome = await renewWorkflow(ui, {
      deps: { inventory, ssh: pool, served: (a, p) => servedCertificate(a, p), ...(flags.kubeconfig ? { kubeconfig: resolve(flags.kubeconfig as string) } : {}) },
      loginUser: (h) => pool.loginUser(h), hosts: (flags.host as string[] | undefined) ?? [], planOnly: Boolean(flags.plan), run,
    });
    if (outcome.kind === 'planned') return EXIT_OK;
    if (!('perNode' in outcome)) return EXIT_FAILED;
    const ok = outcome.kind === 'ran' && outcome.result.ok;
    if (flags.json) io.stdout(JSON.stringify({ ok, perNode: outcome.perNode }) + '\n');
    else for (const t of outcome.perNode) io.stdout(`renewed ${t.host}${t.seconds !== undefined ? ` in ${t.seconds.toFixed(1)} s` : ' (not finished)'}\n`);
    return ok ? EXIT_OK : EXIT_FAILED;
  } finally {
    prompter.close();
    await pool.close();
  }
}
