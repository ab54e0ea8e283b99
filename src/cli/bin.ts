/**
 * The `kubeadm-workbench` program (dist/cli.js): runs main() on the process's arguments. Kept apart from main.ts so
 * that tests import main() without running it, and small: each verb's code loads when that verb runs.
 */
import { errorMessage } from '../core/errors';
import { escapeControls } from '../core/text/terminal';
import { enableCompileCache } from './compileCache';
import { main } from './main';

// `kubeadm-workbench lint ... | head` closes the pipe early: that is the reader's choice, not an error.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw e;
  });
}
// The compile cache first (Node >= 22.1: a few file-system calls; older Node: none), then the verb's code loads.
void enableCompileCache().then(() => main(process.argv.slice(2))).then(
  (code) => (process.exitCode = code),
  (e: unknown) => {
    process.stderr.write(escapeControls(`kubeadm-workbench: ${errorMessage(e)}\n`));
    process.exitCode = 1;
  },
);
