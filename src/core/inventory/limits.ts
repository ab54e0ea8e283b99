/**
 * The inventory's size limit and the result for a file refused unread, apart from the parser and its YAML library:
 * the editor's inventory reader and the command line's file reads need these two and nothing of the parser (the
 * editor parses in the lint worker; `--help` parses nothing), so importing them loads no parser. ./parse.ts re-exports them.
 */
import { ZERO_RANGE } from '../findings';
import type { InventoryParseResult } from './parse';

/**
 * Larger than any real inventory (a thousand hosts take ~100 KB) and small enough that parsing stays
 * well under a second: the YAML parser needs about 2 µs and 150 bytes of memory per input byte.
 */
export const MAX_INVENTORY_BYTES = 256 * 1024;

/** The result for an inventory file refused unread (a FIFO, a device, too many bytes): one finding at its first line. */
export function unreadInventory(reason: string, tooLarge: boolean): InventoryParseResult {
  return { findings: [{ rule: tooLarge ? 'inventory/too-large' : 'inventory/not-a-file', severity: 'error', message: `inventory.yaml ${reason}`, range: ZERO_RANGE }], locations: { hosts: new Map(), fields: new Map() } };
}
