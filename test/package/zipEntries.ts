/**
 * The entries of a .vsix (a zip), read from its central directory: name and uncompressed size. Enough for vsce's
 * output (no zip64, no multi-disk), without a zip dependency or the `unzip` tool.
 */
import { readFileSync } from 'node:fs';

export interface ZipEntry {
  name: string;
  size: number;
}

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;

export function zipEntries(file: string): ZipEntry[] {
  const buf = readFileSync(file);
  // The end-of-central-directory record: 22 bytes plus a comment of up to 65535 bytes, at the very end.
  let eocd = -1;
  for (let i = buf.length - 22; i >= Math.max(0, buf.length - 22 - 0xffff); i--) {
    if (buf.readUInt32LE(i) === EOCD) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new Error(`${file} is not a zip file (no end-of-central-directory record)`);
  const count = buf.readUInt16LE(eocd + 10);
  let at = buf.readUInt32LE(eocd + 16);
  const entries: ZipEntry[] = [];
  for (let n = 0; n < count; n++) {
    if (buf.readUInt32LE(at) !== CENTRAL) throw new Error(`${file}: central directory entry ${n} is damaged`);
    const size = buf.readUInt32LE(at + 24);
    const nameLength = buf.readUInt16LE(at + 28);
    const extraLength = buf.readUInt16LE(at + 30);
    const commentLength = buf.readUInt16LE(at + 32);
    entries.push({ name: buf.toString('utf8', at + 46, at + 46 + nameLength), size });
    at += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}
