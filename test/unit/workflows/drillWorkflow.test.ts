/**
 * The failure drill as the user meets it, front-end aside: the questions, refusals and cancel of the one workflow the
 * editor's "Run Failure Drill…" and the CLI's `drill` both run, answered by a scripted Ui. The engine's reading and
 * running of the drill are replaced here by a plan and a report built by the core from a fixed cluster snapshot; the
 * real path runs in VS Code against a kube-apiserver (test/vscode/suite/drill.test.ts) and on the lab (test/lab/drill.test.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildDrillPlan, type DrillRequest, type DrillSnapshot } from '../../../src/core/drill/plan';
import { DrillObserver } from '../../../src/core/drill/observer';
import { buildDrillReport } from '../../../src/core/drill/report';
import { parseInventory } from '../../../src/core/inventory/parse';
import type { Node } from '../../../src/core/live/types';
import type { DrillApi, DrillDeps } from '../../../src/engine/drill';
import { drillWorkflow, type DrillWorkflowInput } from '../../../src/engine/workflows/drillWorkflow';
import { ScriptedUi } from './scriptedUi';

const inventory = parseInventory(readFileSync(join(__dirname, '../../../examples/labs-k8s/inventory.yaml'), 'utf8')).inventory!;
const node = (name: string, ready = 'True'): Node => ({ metadata: { name }, status: { conditions: [{ type: 'Ready', status: ready }] } });
const snapshot = (notReady: string[] = []): DrillSnapshot => ({
  apiServer: 'https://10.3.60.100:6443',
  nodes: ['m01', 'm02', 'm03', 'w01', 'w02'].map((n) => node(`labs-k8s-${n}`, notReady.includes(n) ? 'Unknown' : 'True')),
  leaderLeases: [], kubeVersion: 'v1.34.12', componentArgs: {}, balancers: [], pods: [], replicaSets: [], targetCheck: { ok: true, detail: '' },
});
const request: DrillRequest = { host: 'labs-k8s-w01', kind: 'stop', evictionWaitSeconds: 0 };
const api: DrillApi = { server: 'https://10.3.60.100:6443', get: async () => assert.fail('the engine is replaced') };

interface Seen { prepared: number; ran: number; deps?: DrillDeps }

/** The engine over a fixed snapshot: `run` waits for the cancel when `untilCancelled`, and says the password on the run output. */
function input(seen: Seen, opts: { notReady?: string[]; prepareError?: string; untilCancelled?: boolean; loginUser?: (h: string) => string } = {}): DrillWorkflowInput {
  return {
    inventory, ssh: { exec: async () => assert.fail('no SSH here'), close: async () => undefined }, api, probe: api, request,
    loginUser: opts.loginUser ?? (() => 'root'),
    engine: {
      prepare: async (deps, req) => {
        seen.prepared++;
        seen.deps = deps;
        if (opts.prepareError) throw new Error(opts.prepareError);
        return { plan: buildDrillPlan(inventory, req, snapshot(opts.notReady), deps.become), snapshot: snapshot(opts.notReady) };
      },
      run: async (deps, plan, o) => {
        seen.ran++;
        deps.output.message(`fault: ${plan.fault?.command.display}; sudo gets ${deps.become('labs-k8s-w01')?.password ?? 'nothing'}`);
        if (opts.untilCancelled) await new Promise<void>((resolve) => o?.signal?.addEventListener('abort', () => resolve()));
        const observer = new DrillObserver({ role: 'worker', targetNode: plan.target.node ?? plan.target.host, balancers: [], leases: [], evictable: [], replicaSets: [], waitForEvictions: false } as unknown as ConstructorParameters<typeof DrillObserver>[0]);
        return buildDrillReport(plan, observer.timeline(), { startedAt: '2026-01-01T00:00:00Z', faultSeconds: 1, observedSeconds: 5, restore: { ok: true, seconds: 2, attempted: true }, recoverySeconds: 3, cancelled: Boolean(opts.untilCancelled), probeErrors: {} });
      },
    },
  };
}

test('the plan opens, then the question: what fails, and that the node comes back even on a cancel; no means nothing runs', async () => {
  const seen: Seen = { prepared: 0, ran: 0 };
  const ui = new ScriptedUi({ confirm: () => undefined });
  assert.equal((await drillWorkflow(ui, input(seen))).kind, 'not-confirmed');
  assert.match(ui.documents.get('failure-drill-labs-k8s-w01-plan.md')!, /^# Failure drill: stop labs-k8s-w01 \(worker\)/);
  assert.deepEqual(ui.confirms.map((c) => [c.message, c.actions]), [['Stop Kubernetes on labs-k8s-w01 and measure how labs-k8s copes?', ['Run Drill']]]);
  assert.match(ui.confirms[0]!.detail!, /^Fault: over SSH: systemctl stop kubelet/);
  assert.match(ui.confirms[0]!.detail!, /Restored afterwards \(start containerd and kubelet on labs-k8s-w01\) — also when the drill fails or you cancel\./);
  assert.equal(ui.transcript.indexOf('show: failure-drill-labs-k8s-w01-plan.md') < ui.transcript.indexOf(`confirm: ${ui.confirms[0]!.message}`), true, 'the plan is open before the question');
  assert.equal(seen.ran, 0);
  assert.equal(ui.secrets.length, 0, 'every host reached as root: no sudo question');
});

test('a node the guard refuses: the plan says why, a modal repeats it, nothing is asked or run', async () => {
  const seen: Seen = { prepared: 0, ran: 0 };
  const ui = new ScriptedUi({ confirm: (r) => r.actions[0] });
  const out = await drillWorkflow(ui, input(seen, { notReady: ['w01'] }));
  assert.equal(out.kind, 'refused');
  assert.match(ui.messages('error')[0]!, /^Failure drill on labs-k8s-w01 refused: labs-k8s-w01 is NotReady already.* Nothing was done\.$/);
  assert.ok(ui.transcript.some((t) => t.startsWith('error (modal): Failure drill on labs-k8s-w01 refused')));
  assert.equal(ui.confirms.length, 0);
  assert.equal(seen.ran, 0);
});

test('--plan: the plan and no question', async () => {
  const seen: Seen = { prepared: 0, ran: 0 };
  const ui = new ScriptedUi({ confirm: (r) => r.actions[0] });
  assert.equal((await drillWorkflow(ui, { ...input(seen), planOnly: true })).kind, 'planned');
  assert.ok(ui.documents.has('failure-drill-labs-k8s-w01-plan.md'));
  assert.equal(ui.confirms.length, 0);
  assert.equal(seen.ran, 0);
});

test('a cluster that cannot be read: one message naming the node and the cause', async () => {
  const seen: Seen = { prepared: 0, ran: 0 };
  const ui = new ScriptedUi({ confirm: (r) => r.actions[0] });
  const out = await drillWorkflow(ui, input(seen, { prepareError: 'connect ECONNREFUSED 10.3.60.100:6443' }));
  assert.equal(out.kind, 'failed-to-plan');
  assert.deepEqual(ui.messages('error'), ['Cannot plan the drill on labs-k8s-w01: connect ECONNREFUSED 10.3.60.100:6443']);
});

test('hosts reached as another user: the sudo password is asked once, before anything is read; it reaches sudo and never the narration', async () => {
  const users = (h: string) => (h === 'labs-k8s-balancer' ? 'root' : 'debian');
  const seen: Seen = { prepared: 0, ran: 0 };
  const back = new ScriptedUi({ secret: () => undefined });
  assert.equal((await drillWorkflow(back, input(seen, { loginUser: users }))).kind, 'cancelled');
  assert.equal(seen.prepared, 0, 'backing out of the password reads nothing');
  assert.deepEqual(back.secrets.map((s) => [s.title, [...s.hosts.keys()].length]), [['sudo password for debian', 5]]);
  assert.match(back.secrets[0]!.prompt, /^5 hosts \(labs-k8s-m01, labs-k8s-m02, labs-k8s-m03, …\) are reached as debian: every step runs through sudo\./);

  const ui = new ScriptedUi({ secret: () => 's3cret pw', confirm: (r) => r.actions[0] });
  const out = await drillWorkflow(ui, input(seen, { loginUser: users }));
  assert.equal(out.kind, 'ran');
  assert.deepEqual(seen.deps?.become('labs-k8s-w01'), { password: 's3cret pw' });
  assert.equal(seen.deps?.become('labs-k8s-balancer'), undefined);
  const lines = ui.runs[0]!.lines.join('\n');
  assert.match(lines, /sudo gets \*\*\*/, lines);
  assert.ok(!lines.includes('s3cret pw'), lines);

  const empty = new ScriptedUi({ secret: () => '', confirm: () => undefined });
  await drillWorkflow(empty, input(seen, { loginUser: users }));
  assert.deepEqual(seen.deps?.become('labs-k8s-w01'), {}, 'empty: sudo -n');
});

test('a cancel stops the observation, says the node is restored first, and ends with the report and a warning', async () => {
  const seen: Seen = { prepared: 0, ran: 0 };
  const ui = new ScriptedUi({ confirm: (r) => r.actions[0], cancelWhen: () => seen.ran > 0 });
  const out = await drillWorkflow(ui, input(seen, { untilCancelled: true }));
  assert.ok(out.kind === 'ran' && out.report.run.cancelled);
  assert.ok(ui.transcript.includes('cancel: Failure drill on labs-k8s-w01'));
  assert.ok(ui.runs[0]!.lines.includes('cancelling: the observation stops; labs-k8s-w01 is restored first…'), ui.runs[0]!.lines.join('\n'));
  assert.deepEqual(ui.runs[0]!.finished?.ok, false);
  assert.match(ui.documents.get('failure-drill-labs-k8s-w01-report.md')!, /— CANCELLED/);
  assert.deepEqual(ui.messages('warning'), ['Failure drill on labs-k8s-w01: cancelled — see the report.']);
});
