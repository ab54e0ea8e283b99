/**
 * A plan for the killed-run test (runner.test.ts): host `a` writes a marker (its check finds it), host `b`
 * then runs a step that announces itself and sleeps until a `go` file exists. Run as a script (`node --import tsx
 * killedRun.ts DIR`) it executes the plan with the real runner, ledger and locks in DIR — the process
 * the test kills with SIGKILL in the middle of `b`'s step.
 */
import { join } from 'node:path';
import { sh } from '../../../src/core/ssh/command';
import { createLedger } from '../../../src/engine/state/runLedger';
import { HostLocks } from '../../../src/engine/state/hostLocks';
import { LocalExecutor } from '../../../src/adapters/local/localExecutor';
import { runPlan } from '../../../src/core/plan/runner';
import type { Plan } from '../../../src/core/plan/types';

/**
 * `overlapped`: a worker phase `w` that runs beside the joins (as the bring-up's worker joins beside the
 * control-plane joins) and finishes while `b` is still in its step, then checks that wait for both.
 */
export function killedRunPlan(dir: string, overlapped = false): Plan {
  const worker: Plan['phases'] = overlapped
    ? [{
        phase: 'join-workers', title: 'Worker joins', order: 'parallel', warnings: [], overlaps: ['join-control-plane'],
        steps: [{ id: 'join-workers/w/join', phase: 'join-workers', host: 'w', title: 'Worker join', check: sh`grep -qx joined ${join(dir, 'w-runs')}`, run: sh`echo joined >> ${join(dir, 'w-runs')}` }],
      }, {
        phase: 'verify', title: 'Checks', order: 'serial', warnings: [],
        steps: [{ id: 'verify/a/after', phase: 'verify', host: 'a', title: 'After every join', rerun: 'a gate', run: sh`echo after >> ${join(dir, 'checks')}` }],
      }]
    : [];
  return {
    fingerprint: overlapped ? 'killed-overlapped-run' : 'killed-run',
    phases: [
      {
        phase: 'join-control-plane', title: 'Joins', order: 'serial', warnings: [],
        steps: [
          { id: 'join-control-plane/a/first', phase: 'join-control-plane', host: 'a', title: 'First', check: sh`grep -qx first ${join(dir, 'a-runs')}`, run: sh`echo first >> ${join(dir, 'a-runs')}` },
          { id: 'join-control-plane/b/slow', phase: 'join-control-plane', host: 'b', title: 'Slow join', run: sh`echo started >> ${join(dir, 'b-runs')}; while ! test -e ${join(dir, 'go')}; do sleep 0.05; done` },
        ],
      },
      ...worker,
    ],
  };
}

if (require.main === module) {
  const dir = process.argv[2]!;
  const plan = killedRunPlan(dir, process.argv[3] === 'overlapped');
  const ledger = createLedger(join(dir, 'runs'), 'up', plan.fingerprint);
  void runPlan(plan, { executor: new LocalExecutor(), ledger, locks: new HostLocks(join(dir, 'locks'), ledger.data.runId), maxParallelHosts: 2 });
}
