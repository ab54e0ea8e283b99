/**
 * Reads the inventory a verb acts on. When it cannot — the file is unreadable, or (strict) the
 * inventory has errors — it prints why, each error at its file:line:col, and answers the exit code.
 * Verbs that change hosts are strict; read-only ones (status) accept an inventory with errors as long
 * as it could be read into a model.
 */
import { t } from '../core/l10n';
import { parseInventory } from '../core/inventory/parse';
import type { Inventory } from '../core/inventory/types';
import { EXIT_USAGE, INVENTORY_READ, formatFinding, type CliIo } from './io';
import { shownPath } from '../core/text/terminal';
import { errorMessage } from '../core/errors';

export async function loadInventoryFile(path: string, io: CliIo, strict = true): Promise<Inventory | number> {
  let text: string;
  try {
    text = await io.readFile(path, INVENTORY_READ);
  } catch (e) {
    io.stderr(`${t('cannot read {0}: {1}', shownPath(path), errorMessage(e))}\n`);
    return EXIT_USAGE;
  }
  const { inventory, findings } = parseInventory(text);
  const errors = findings.filter((f) => f.severity === 'error');
  if (inventory && (!strict || !errors.length)) return inventory;
  for (const f of errors) io.stderr(`${formatFinding(path, f)}\n`);
  io.stderr(`${t('{0}: not a valid inventory (run check-inventory); nothing was done.', shownPath(path))}\n`);
  return EXIT_USAGE;
}
