/**
 * `kubeadm-workbench certs fix-kubelet-conf --inventory FILE --host NAME [--plan] [--yes] [--fresh]`: a kubelet.conf
 * that embeds its client certificate (kubeadm#1317, reported by `certs`) pointed at the rotated
 * kubelet-client-current.pem, the node drained first and uncordoned after its kubelet is Ready again. Exit 0 fixed or
 * nothing to fix, 1 refused or failed, 2 usage. The workflow is the Certificates view's "Fix kubelet.conf…" too.
 */
import { kubeletConfWorkflow } from '../engine/workflows/kubeletConfWorkflow';
import { UsageError, type FlagSpec } from './args';
import { EXIT_FAILED, EXIT_OK } from './io';
import { defineVerb, usageText } from './verb';
import { t } from '../core/l10n';
import { PLAN_VERB_FLAGS } from './verbFlags';

const FLAGS: FlagSpec = { ...PLAN_VERB_FLAGS, host: 'string' };
const USAGE = (): string => usageText(['kubeadm-workbench certs fix-kubelet-conf --inventory FILE --host NAME [--plan] [--yes] [--fresh] [--ssh-config F] [--known-hosts F] [--ask-become-pass]']);

export const runCertsFixKubeletConf = defineVerb({
  words: 'certs fix-kubelet-conf', flags: FLAGS, usage: USAGE, needs: { inventory: 'strict', ssh: {} },
  validate: (f) => {
    if (!f.host) throw new UsageError(t('--host NAME is required: the node whose kubelet.conf embeds its certificate'));
  },
  run: async ({ inventory, flags, ssh, planRun }) => {
    const { ui, run } = planRun();
    const pool = ssh();
    const outcome = await kubeletConfWorkflow(ui, { deps: { inventory, ssh: pool }, loginUser: (h) => pool.loginUser(h), node: flags.host as string, planOnly: Boolean(flags.plan), run });
    return outcome.kind === 'nothing' || outcome.kind === 'planned' || (outcome.kind === 'ran' && outcome.result.ok) ? EXIT_OK : EXIT_FAILED;
  },
});
