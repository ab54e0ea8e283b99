/**
 * What a verb loads before it runs, from the build's module graph (esbuild's metafile of scripts/bundles.mjs's CLI
 * config, not written): the verb's own file and every file it imports statically. defineVerb (src/cli/verb.ts) loads
 * its SSH side (verbSsh.ts: the pool, sudo, the plan run) and the cluster adapter only for a verb that uses them, so
 * the start-up-critical verbs — lint, check-inventory, generate (issue 38, `npm run bench:startup`) — load no SSH or
 * Kubernetes code; a verb that reaches hosts statically (ssh-check) shows that the check sees such code.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { BuildOptions, Metafile } from 'esbuild';
import { bundlesModule } from '../../package/runtimeFiles';

const ROOT = join(__dirname, '../../..');
/** The SSH and cluster code: the adapters, the CLI's pool and plan-run setup, the libraries under them. */
const REACHES_OUT = /^src\/(adapters\/(ssh|kube)\/|cli\/(verbSsh|adapters|planRun|sshFlags)\.ts)|^node_modules\/(ssh2|@kubernetes)\//;

let metafile: Promise<Metafile> | undefined;
async function graph(): Promise<{ meta: Metafile; closure: (verbFile: string) => string[] }> {
  const { bundleConfigs, staticClosure } = await bundlesModule(ROOT);
  metafile ??= (async () => {
    const esbuild = await import('esbuild');
    const config = bundleConfigs({ production: true, sourcemaps: false }).find((c) => !Array.isArray(c.entryPoints) && 'cli' in c.entryPoints);
    assert.ok(config?.splitting, 'scripts/bundles.mjs builds the CLI as a split bundle');
    return (await esbuild.build({ ...(config as BuildOptions), write: false, logLevel: 'error' })).metafile!;
  })();
  const meta = await metafile;
  return {
    meta,
    // the modules of the verb's file (the import() main.ts names) and of every output it imports statically
    closure: (verbFile) => {
      const entry = Object.keys(meta.outputs).find((o) => meta.outputs[o]!.entryPoint === verbFile);
      assert.ok(entry, `${verbFile} is a file of its own in the build`);
      return staticClosure(meta, entry).flatMap((o) => Object.keys(meta.outputs[o]!.inputs));
    },
  };
}

for (const verb of ['lint', 'checkInventory', 'generate', 'import']) {
  test(`${verb}: declared with defineVerb, and loads no SSH or Kubernetes code before it runs`, async () => {
    const modules = (await graph()).closure(`src/cli/${verb}.ts`);
    assert.ok(modules.includes('src/cli/verb.ts'), 'the verb is declared with defineVerb');
    assert.deepEqual(modules.filter((m) => REACHES_OUT.test(m)), []);
  });
}

test('the check sees SSH code where a verb imports it: ssh-check loads the SSH adapter up front; drift only when it runs', async () => {
  const { closure } = await graph();
  assert.ok(closure('src/cli/sshCheck.ts').some((m) => m.startsWith('src/adapters/ssh/')), 'ssh-check imports the SSH adapter statically');
  // drift declares needs.ssh: the pool arrives through defineVerb's import() of verbSsh.ts, not with drift's own file
  assert.deepEqual(closure('src/cli/drift.ts').filter((m) => /^src\/cli\/(verbSsh|adapters)\.ts$/.test(m)), []);
});
