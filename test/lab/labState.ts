/**
 * The lab tier's saved cluster states (lab/lib/snapshot.sh), as test/lab/run.sh uses them: a file declares the state it
 * starts from; when the cluster running then is not that state's (the file before failed, or took the lab over), the
 * state is restored here and the tier waits until the restored cluster is healthy — the same `status --ssh` judgement
 * the files' own waits use — before the file runs.
 *
 *   node --import tsx test/lab/labState.ts restore NAME     restore NAME, wait healthy, print the times
 *   node --import tsx test/lab/labState.ts save NAME        save the running cluster as NAME
 */
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { waitHealthy } from './clusterHealth';
import { labEnv } from './labEditor';
import { tempDir } from '../tempDir';

const LAB = join(resolve(__dirname, '../..'), 'lab/lab.sh');
/** A restored cluster boots as after a power cut of every node: kubelets, static pods, etcd's quorum, then HAProxy's checks. */
export const RESTORED_HEALTHY_WITHIN_MS = 5 * 60_000;

function lab(args: string[]): number {
  const t0 = Date.now();
  const r = spawnSync('bash', [LAB, ...args], { stdio: 'inherit', timeout: 20 * 60_000 });
  if (r.status !== 0) throw new Error(`lab ${args.join(' ')} failed (exit ${r.status ?? r.signal})`);
  return (Date.now() - t0) / 1000;
}

export async function restoreState(name: string): Promise<{ restoreSeconds: number; healthySeconds: number }> {
  const restoreSeconds = lab(['snapshot', 'restore', name]);
  const healthySeconds = await waitHealthy(labEnv(), tempDir('kw-state-home-'), RESTORED_HEALTHY_WITHIN_MS);
  console.log(`state ${name}: restored in ${restoreSeconds.toFixed(1)} s, healthy ${healthySeconds.toFixed(1)} s later`);
  return { restoreSeconds, healthySeconds };
}

export function saveState(name: string): number {
  return lab(['snapshot', 'save', name]);
}

if (require.main === module) {
  const [verb, name] = process.argv.slice(2);
  const run = async () => {
    if (!name || !/^[a-z0-9][a-z0-9.-]*$/.test(name)) throw new Error('usage: labState.ts restore|save NAME');
    if (verb === 'restore') await restoreState(name);
    else if (verb === 'save') saveState(name);
    else throw new Error('usage: labState.ts restore|save NAME');
  };
  run().catch((e: Error) => {
    console.error(e.message);
    process.exit(1);
  });
}
