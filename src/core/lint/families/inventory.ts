/** inventory.yaml as a lintable file (../../../engine/lintModules.ts). */
import { inventoryLinter } from '../inventoryLinter';
import type { KindFamily } from './family';

export const FAMILY: KindFamily = { linters: [inventoryLinter], facts: {} };
