/**
 * A plan for the killed-run test (runner.test.ts): host `a` writes a marker (its check finds it), host `b`
 * then runs a step that announces itself and sleeps until a `go` file exists. Run as a script (`node --import tsx
 * killedRun.ts DIR`) it executes the plan with the real runner, ledger and locks in DIR — the process
 * the test kills with SIGKILL in the middle of `b`'s step.
 */
import { join } from 'node:path';
import { sh } from '../../../src/core/ssh/command';
import { Ledger } from '../../../src/core/plan/ledger';
import { HostLocks } from '../../../src/core/plan/locks';
import { LocalExecutor } from '../../../src/core/plan/localExecutor';
import { runPlan } from '../../../src/core/plan/runner';
import type { Plan } from '../../../src/core/plan/types';

export function killedRunPlan(dir: string): Plan {
  return {
    fingerprint: 'killed-run',
    phases: [
      {
        phase: 'join-control-plane', title: 'Joins', order: 'serial', warnings: [],
        steps: [
          { id: 'join-control-plane/a/first', phase: 'join-control-plane', host: 'a', title: 'First', check: sh`grep -qx first ${join(dir, 'a-runs')}`, run: sh`echo first >> ${join(dir, 'a-runs')}` },
          { id: 'join-control-plane/b/slow', phase: 'join-control-plane', host: 'b', title: 'Slow join', run: sh`echo started >> ${join(dir, 'b-runs')}; while ! test -e ${join(dir, 'go')}; do sleep 0.05; done` },
        ],
      },
    ],
  };
}

if (require.main === module) {
  const dir = process.argv[2]!;
  const plan = killedRunPlan(dir);
  const ledger = Ledger.create(join(dir, 'runs'), 'up', plan.fingerprint);
  void runPlan(plan, { executor: new LocalExecutor(), ledger, locks: new HostLocks(join(dir, 'locks'), ledger.data.runId), maxParallelHosts: 2 });
}
