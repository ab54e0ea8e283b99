/** inventory.yaml as a lintable file: the loader's findings are the rules, plus requirements no config file of the workspace meets. */
import { parseInventory } from '../inventory/parse';
import { INVENTORY_RULES } from '../inventory/rules';
import { isInventoryFile } from './kinds';
import { unmetRequirements } from './requirements';
import type { FileLinter } from './types';

export const inventoryLinter: FileLinter = {
  kind: 'inventory',
  rules: INVENTORY_RULES,
  detect: isInventoryFile,
  lint: (file, context) => {
    const parsed = parseInventory(file.text);
    if (!parsed.inventory || !context.siblings?.length || parsed.findings.some((f) => f.severity === 'error')) return parsed.findings;
    return [...parsed.findings, ...unmetRequirements(parsed.inventory, parsed.locations, context.siblings)];
  },
};
