/**
 * A plan run over many hosts as the user sees it: above a dozen hosts the progress notification (the editor) and the
 * terminal (the CLI) summarise by state — done / running / failed / waiting — and name the slowest running host and
 * the failed one, instead of a line per host; errors still print, and the run log keeps every host's lines. The
 * steps are real shell commands run here through the same executor and ledger as over SSH.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { PassThrough, Readable } from 'node:stream';
import { join } from 'node:path';
import { parseInventory } from '../../../src/core/inventory/parse';
import { sh, type RemoteCommand } from '../../../src/core/ssh/command';
import { RemoteCommandError, type ExecOptions, type ExecResult } from '../../../src/core/ssh/transport';
import type { Plan } from '../../../src/core/plan/types';
import { planRunWorkflow, type PlanRunInput } from '../../../src/engine/workflows/planRunWorkflow';
import { TerminalUi } from '../../../src/cli/terminalUi';
import { Prompter } from '../../../src/cli/secretPrompt';
import type { CliIo } from '../../../src/cli/io';
import { ScriptedUi } from './scriptedUi';
import { tempDir } from '../../tempDir';

const inventory = parseInventory(readFileSync(join(__dirname, '../../../examples/labs-k8s/inventory.yaml'), 'utf8')).inventory!;

/** Every host's commands run here in /bin/sh (as root). */
const localHosts = {
  loginUser: () => 'root',
  exec(host: string, command: RemoteCommand, opts: ExecOptions = {}): Promise<ExecResult> {
    return new Promise((resolve, reject) => {
      const child = spawn('/bin/sh', ['-c', command.text]);
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => ((stdout += d), opts.onStdout?.(d.toString())));
      child.stderr.on('data', (d: Buffer) => ((stderr += d), opts.onStderr?.(d.toString())));
      child.stdin.end();
      child.on('close', (code) => {
        const result = { code, signal: null, stdout, stderr };
        if (!(opts.okCodes ?? [0]).includes(code ?? -1)) reject(new RemoteCommandError(host, command, result));
        else resolve(result);
      });
    });
  },
  close: async () => undefined,
};

const HOSTS = Array.from({ length: 20 }, (_, i) => `node-${String(i + 1).padStart(2, '0')}`);
const SLOW = 'node-03';
const FAILING = 'node-07';

/** One parallel phase over 20 hosts: every host says hello; node-07 fails, node-03 takes a second and a half. */
function setup() {
  const dir = tempDir('kw-many-');
  const plan: Plan = {
    fingerprint: 'many-1',
    phases: [{
      phase: 'prepare', title: 'Prepare', order: 'parallel', warnings: [],
      steps: HOSTS.map((h) => ({
        id: `prepare/${h}/hello`, phase: 'prepare' as const, host: h, title: 'Say hello',
        run: h === FAILING ? sh`echo broken-disk >&2; exit 3` : h === SLOW ? sh`sleep 1.5; echo hello from ${h}` : sh`echo hello from ${h}`,
      })),
    }],
  };
  const input: PlanRunInput = {
    inventory, plan, command: 'up', title: 'Bring-up of many', planDocument: 'plan.txt', stateDir: join(dir, 'state'),
    ssh: localHosts as unknown as PlanRunInput['ssh'], maxParallelHosts: HOSTS.length, again: { resume: 'resume', startOver: 'start over' },
  };
  return { input, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

test('editor: over many hosts the progress and the run view summarise by state, naming the slowest and the failed host', async (t) => {
  const s = setup();
  t.after(s.cleanup);
  const ui = new ScriptedUi({ confirm: (r) => r.actions[0] });
  const out = await planRunWorkflow(ui, s.input);
  assert.ok(out.kind === 'ran' && !out.result.ok);
  const shown = ui.progressMessages;
  assert.ok(shown.every((m) => m.startsWith('Prepare: ')), shown.join('\n'));
  assert.ok(!shown.some((m) => /^node-\d+: Say hello$/.test(m)), 'no message per host');
  // While the slow host is the last one running, it is named with its time; the failed host is named from its failure on.
  assert.ok(shown.some((m) => new RegExp(`1 running · 1 failed · 0 waiting — slowest: ${SLOW} \\d+ s — failed: ${FAILING}$`).test(m)), shown.join('\n'));
  assert.match(ui.runs[0]!.status!, new RegExp(`^Prepare: 19/20 done · 0 running · 1 failed · 0 waiting — failed: ${FAILING}$`));
  // The run log keeps every host's lines.
  const log = readFileSync(out.logPath, 'utf8');
  for (const h of HOSTS.filter((x) => x !== FAILING)) assert.match(log, new RegExp(`hello from ${h}`));
});

test('CLI: over many hosts the terminal prints the summary line and the errors, not every host\'s narration', async (t) => {
  const s = setup();
  t.after(s.cleanup);
  const printed = { stdout: '', stderr: '' };
  const io: CliIo = { stdout: (x) => void (printed.stdout += x), stderr: (x) => void (printed.stderr += x), readFile: async () => '', writeFile: async () => undefined };
  const ui = new TerminalUi({ io, prompter: new Prompter(Readable.from(['']), new PassThrough()), yes: true, askBecomePass: false, interactive: false });
  const out = await planRunWorkflow(ui, s.input);
  assert.ok(out.kind === 'ran' && !out.result.ok);
  // The plan (every host's commands) is printed first; the run starts at its phase header.
  const run = printed.stdout.slice(printed.stdout.indexOf('== Prepare'));
  assert.doesNotMatch(run, /hello from/, 'command output of each host stays in the run log');
  assert.doesNotMatch(run, /node-01\b/, 'a host that went well is not narrated');
  assert.match(run, new RegExp(`${FAILING}.*broken-disk`), 'the failed host\'s error is printed');
  assert.match(run, new RegExp(`^\\.\\. Prepare: 19/20 done · 0 running · 1 failed · 0 waiting — failed: ${FAILING}$`, 'm'));
  assert.ok(existsSync(out.logPath));
});
