/**
 * `kubeadm-workbench drift --inventory FILE [--json]`: the cluster's configuration compared three ways, read-only —
 * the workspace's kubeadm configuration (kubeadm-config.yaml beside the inventory, else the generated one) against
 * the kubeadm-config, kubelet-config and kube-proxy ConfigMaps, and those against every node's static pod manifests
 * and /var/lib/kubelet/config.yaml. Each difference names the node and the field (and the workspace file's line).
 * Exit 0 in agreement, 1 on any difference or a node not read, 2 on usage.
 */
import { dirname } from 'node:path';
import { hostsWith } from '../core/inventory/types';
import { describeError } from '../core/live/errors';
import { readDrift, renderDrift } from '../engine/drift';
import type { FlagSpec } from './args';
import { EXIT_FAILED, EXIT_OK } from './io';
import { SSH_FLAGS } from './sshFlags';
import { defineVerb, usageText, type ListedVerbs } from './verb';
import { verbPreflight } from './verbPreflight';
import { t } from '../core/l10n';

const FLAGS: FlagSpec = { inventory: 'string', ...SSH_FLAGS, 'ask-become-pass': 'boolean', json: 'boolean' };

const USAGE = (): string => usageText(['kubeadm-workbench drift --inventory FILE [--json] [--ssh-config F] [--known-hosts F] [--accept-new-host-key=SHA256:...] [--ask-become-pass]']);

export const runDriftVerb = defineVerb({
  words: 'drift', flags: FLAGS, usage: USAGE, needs: { inventory: 'strict', ssh: {} },
  run: async ({ inventory, inventoryPath, flags, io, prompter, stdin, ssh, become, askBecomePassword }) => {
    // The ConfigMaps are read through the first control-plane node that answers; the nodes not read are said apart.
    if (!(await verbPreflight({ inventory, flags, io, prompter, stdin, ssh }, { operation: 'drift', hosts: hostsWith(inventory, 'control-plane'), atLeastOne: true })).ok) return EXIT_FAILED;
    await askBecomePassword();
    let r;
    try {
      r = await readDrift({ inventory, inventoryDir: dirname(inventoryPath), readFile: io.readFile, ssh: ssh(), become });
    } catch (e) {
      io.stderr(`drift: ${describeError(e)}\n`);
      return EXIT_FAILED;
    }
    if (flags.json) io.stdout(JSON.stringify({ workspace: r.workspace, findings: r.findings, unread: r.unread }, null, 2) + '\n');
    else io.stdout(renderDrift(r));
    return r.findings.length || r.unread.length ? EXIT_FAILED : EXIT_OK;
  },
});

/** What `kubeadm-workbench --help` lists of this file (ListedVerbs, ./verb.ts; npm run gen:tables copies it into main.ts). */
export const verbs = {
  drift: { summary: () => `drift --inventory F [--json]   ${t("the configuration three ways: the workspace's kubeadm config vs the kubeadm-config, kubelet-config and kube-proxy ConfigMaps vs every node's manifests and kubelet config; each difference with its node and field; exit 1 on any")}`, run: runDriftVerb },
} satisfies ListedVerbs;
