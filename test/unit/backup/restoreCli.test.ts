/**
 * The CLI's `restore` runs the restore workflow the editor's "Restore from this backup…" runs: its refusal reads the
 * same, word for word, and comes before any host is asked anything (a snapshot of another cluster). The healthy-quorum
 * refusal and the typed name on a terminal are the workflow's test (test/unit/workflows/restoreWorkflow.test.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { main } from '../../../src/cli/main';
import { memoryIo } from '../cli/memoryIo';
import { backupFolder } from './manifests';
import { tempDir } from '../../tempDir';

const INVENTORY = join(__dirname, '../../../examples/labs-k8s/inventory.yaml');

test('restore from a snapshot of another cluster: the workflow\'s refusal on stderr, exit 1, no host asked', async () => {
  const snapshot = backupFolder({ cluster: 'other', pages: 3 });
  const dir = tempDir('kw-restore-cli-');
  for (const extra of [[], ['--force', '--yes'], ['--plan']]) {
    const io = memoryIo();
    // Every host of the example behind a closed port on loopback: were one asked, the refusal would differ.
    const sshConfig = join(dir, 'ssh_config');
    writeFileSync(sshConfig, 'Host *\n  HostName 127.0.0.1\n  Port 1\n');
    const code = await main(['restore', '--inventory', INVENTORY, '--from', snapshot, '--ssh-config', sshConfig, ...extra], io);
    assert.equal(code, 1, io.err);
    assert.match(io.err, /^Restore of labs-k8s refused; nothing was done: \S+manifest\.json: the backup is of cluster "other", the inventory is "labs-k8s"$/m);
    assert.doesNotMatch(io.out, /Run \d+ steps|members:/);
  }
});
