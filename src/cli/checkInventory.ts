/** `kubeadm-workbench check-inventory FILE`: validates inventory.yaml like the editor does. */
import { parseInventory } from '../core/inventory/parse';
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE, formatFinding, INVENTORY_READ, type CliIo } from './io';
import { shownPath } from '../core/text/terminal';
import { errorMessage } from '../core/errors';

export async function runCheckInventory(args: string[], io: CliIo): Promise<number> {
  const [file, ...rest] = args;
  if (!file || rest.length) {
    io.stderr('usage: kubeadm-workbench check-inventory FILE\n');
    return EXIT_USAGE;
  }
  let text: string;
  try {
    text = await io.readFile(file, INVENTORY_READ);
  } catch (e) {
    io.stderr(`cannot read ${shownPath(file)}: ${errorMessage(e)}\n`);
    return EXIT_USAGE;
  }
  const { inventory, findings } = parseInventory(text);
  for (const f of findings) io.stdout(formatFinding(file, f) + '\n');
  if (inventory) io.stdout(`${shownPath(file)}: ${inventory.hosts.length} hosts, endpoint ${inventory.cluster.controlPlaneEndpoint}\n`);
  return findings.some((f) => f.severity === 'error') || !inventory ? EXIT_FAILED : EXIT_OK;
}
