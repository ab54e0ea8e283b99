/** `kubeadm-workbench check-inventory FILE`: validates inventory.yaml like the editor does. */
import { t } from '../core/l10n';
import { parseInventory } from '../core/inventory/parse';
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE, formatFinding, INVENTORY_READ } from './io';
import { shownPath } from '../core/text/terminal';
import { errorMessage } from '../core/errors';
import { UsageError } from './args';
import { defineVerb, usageText, type ListedVerbs } from './verb';

export const runCheckInventory = defineVerb({
  words: 'check-inventory', flags: {}, positionals: true, needs: {},
  usage: () => usageText(['kubeadm-workbench check-inventory FILE']),
  validate: (_flags, positionals) => {
    // one FILE: a missing or second one prints the usage alone
    if (positionals.length !== 1) throw new UsageError('');
    return positionals[0]!;
  },
  run: async ({ options: file, io }) => {
    let text: string;
    try {
      text = await io.readFile(file, INVENTORY_READ);
    } catch (e) {
      io.stderr(`${t('cannot read {0}: {1}', shownPath(file), errorMessage(e))}\n`);
      return EXIT_USAGE;
    }
    const { inventory, findings } = parseInventory(text);
    for (const f of findings) io.stdout(formatFinding(file, f) + '\n');
    if (inventory) io.stdout(`${t('{0}: {1} hosts, endpoint {2}', shownPath(file), inventory.hosts.length, inventory.cluster.controlPlaneEndpoint)}\n`);
    return findings.some((f) => f.severity === 'error') || !inventory ? EXIT_FAILED : EXIT_OK;
  },
});

/** What `kubeadm-workbench --help` lists of this file (ListedVerbs, ./verb.ts; npm run gen:tables copies it into main.ts). */
export const verbs = {
  'check-inventory': { summary: () => `check-inventory FILE            ${t('validate an inventory.yaml')}`, run: runCheckInventory },
} satisfies ListedVerbs;
