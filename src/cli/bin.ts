/**
 * The `kubeadm-workbench` program (dist/cli.js): runs main() on the process's arguments. Kept apart from main.ts so
 * that tests import main() without running it, and small: each verb's code loads when that verb runs.
 */
import { enableCompileCache } from './compileCache';
import { main } from './main';

enableCompileCache();

// `kubeadm-workbench lint ... | head` closes the pipe early: that is the reader's choice, not an error.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw e;
  });
}
main(process.argv.slice(2)).then(
  (code) => (process.exitCode = code),
  (e: unknown) => {
    process.stderr.write(`kubeadm-workbench: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exitCode = 1;
  },
);
