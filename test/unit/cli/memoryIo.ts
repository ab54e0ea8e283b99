/** The CLI's io for tests: stdout and stderr kept in memory, files read and written on disk. */
import { promises as fs } from 'node:fs';
import type { CliIo } from '../../../src/cli/io';

export function memoryIo(): CliIo & { out: string; err: string } {
  const io = {
    out: '',
    err: '',
    stdout: (t: string) => void (io.out += t),
    stderr: (t: string) => void (io.err += t),
    readFile: (p: string) => fs.readFile(p, 'utf8'),
    writeFile: (p: string, t: string) => fs.writeFile(p, t, 'utf8'),
  };
  return io;
}
