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
import type { FlagSpec } from './args';
import { EXIT_FAILED, EXIT_OK } from './io';
import { hostsWith } from '../core/inventory/types';
import { defineVerb, usageText } from './verb';
import { t } from '../core/l10n';
import { PLAN_VERB_FLAGS } from './verbFlags';

const FLAGS: FlagSpec = { ...PLAN_VERB_FLAGS, host: 'list', kubeconfig: 'string' };

const USAGE = (): string =>
  usageText([
    'kubeadm-workbench certs renew --inventory FILE [--host NAME]... [--kubeconfig F] [--plan] [--yes] [--fresh]',
    '                                     [--ssh-config F] [--known-hosts F] [--accept-new-host-key=SHA256:...] [--ask-become-pass] [--json]',
  ]);

export const runCertsRenew = defineVerb({
  words: 'certs renew', flags: FLAGS, usage: USAGE, needs: { inventory: 'strict', ssh: {} },
  run: async ({ inventory, flags, io, ssh, planRun }) => {
    const { ui, run, preflight } = planRun();
    const pool = ssh();
    // The renewal takes each node out of HAProxy on every balancer: those answer too.
    if (!flags.plan && !(await preflight(t('Renew Certificates'), hostsWith(inventory, 'control-plane', 'loadbalancer')))) return EXIT_FAILED;
    const outcome = await renewWorkflow(ui, {
      deps: { inventory, ssh: pool, served: (a, p) => servedCertificate(a, p), ...(flags.kubeconfig ? { kubeconfig: resolve(flags.kubeconfig as string) } : {}) },
      loginUser: (h) => pool.loginUser(h), hosts: (flags.host as string[] | undefined) ?? [], planOnly: Boolean(flags.plan), run,
    });
    if (outcome.kind === 'planned') return EXIT_OK;
    if (!('perNode' in outcome)) return EXIT_FAILED;
    const ok = outcome.kind === 'ran' && outcome.result.ok;
    if (flags.json) io.stdout(JSON.stringify({ ok, perNode: outcome.perNode }) + '\n');
    else for (const n of outcome.perNode) io.stdout(`${n.seconds !== undefined ? t('renewed {0} in {1} s', n.host, n.seconds.toFixed(1)) : t('renewed {0} (not finished)', n.host)}\n`);
    return ok ? EXIT_OK : EXIT_FAILED;
  },
});
