/** inventory.yaml as a lintable file: the loader's findings are the rules. */
import { parseInventory } from '../inventory/parse';
import { INVENTORY_RULES } from '../inventory/rules';
import type { FileLinter } from './types';

export const inventoryLinter: FileLinter = {
  kind: 'inventory',
  rules: INVENTORY_RULES,
  detect: (path) => /(^|[\\/])inventory\.ya?ml$/.test(path),
  lint: (file) => parseInventory(file.text).findings,
};
