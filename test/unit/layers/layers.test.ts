// The layers of src/ go one way: every import of every source file, checked against the table ESLint uses
// (scripts/layers.mjs), so a back-edge fails this tier even where lint is not run.
import { strict as assert } from 'node:assert';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import ts from 'typescript';
// @ts-expect-error -- a plain ES module shared with eslint.config.mjs; its shapes are asserted below
import { LAYERS, layerOf, layerViolation, srcRoot } from '../../../scripts/layers.mjs';

const violation = layerViolation as (file: string, spec: string) => string | undefined;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const p = join(dir, d.name);
    if (d.isDirectory()) return sources(p);
    return d.name.endsWith('.ts') ? [p] : [];
  });
}

/** Every module a file names: imports, export-from, import() and require(), as the compiler sees them. */
function importsOf(file: string): string[] {
  return ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles.map((f) => f.fileName);
}

/** The back-edges of a set of files: "file: why" for each import the table forbids. */
function backEdges(files: string[]): string[] {
  return files.flatMap((file) => importsOf(file).flatMap((spec) => {
    const why = violation(file, spec);
    return why ? [`${relative(srcRoot, file)}: ${why}`] : [];
  }));
}

test('no import in src/ goes against the layer table', () => {
  const files = sources(srcRoot as string);
  assert.ok(files.length > 200, `found only ${files.length} source files under src/`);
  assert.deepEqual(backEdges(files), []);
});

test('every folder of src/ is a layer of the table (a new folder has to be placed)', () => {
  const folders = readdirSync(srcRoot as string, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name);
  for (const f of folders) assert.ok((layerOf as (p: string) => string | undefined)(`${f}/x.ts`), `src/${f}/ is in no layer`);
  const topFiles = readdirSync(srcRoot as string, { withFileTypes: true }).filter((d) => d.isFile()).map((d) => d.name);
  assert.deepEqual(topFiles, ['extension.ts'], 'only the composition root lives at the top of src/');
});

test('back-edges, vscode below the editor and files outside the layers are caught', () => {
  const at = (p: string) => join(srcRoot as string, p);
  assert.match(violation(at('core/findings.ts'), '../editor/commandIds') ?? '', /core must not import editor/);
  assert.match(violation(at('adapters/kube/index.ts'), '../../engine/become') ?? '', /adapters must not import engine/);
  assert.match(violation(at('engine/become.ts'), 'vscode') ?? '', /must not import vscode/);
  assert.match(violation(at('cli/main.ts'), '../editor/commandIds') ?? '', /cli must not import editor/);
  assert.match(violation(at('editor/planRun.ts'), '../commands/context') ?? '', /editor must not import commands/);
  assert.match(violation(at('editor/nodeTarget.ts'), '../views/liveTree') ?? '', /editor must not import views/);
  assert.match(violation(at('views/liveTree.ts'), '../webviews/csp') ?? '', /views must not import webviews/);
  assert.match(violation(at('webviews/protocol/plan.ts'), '../planPanel') ?? '', /webviews\/protocol must not import webviews/);
  assert.match(violation(at('lintRunner.ts'), './core/findings') ?? '', /is in no layer/);
  assert.equal(violation(at('commands/drainNode.ts'), '../views/inventoryView'), undefined);
  assert.equal(violation(at('core/kubeadm/schema.ts'), '../../../schemas/kubeadm-v1beta4.schema.json'), undefined);
  assert.equal(violation(at('adapters/kube/index.ts'), '@kubernetes/client-node'), undefined);
});

test('the table itself goes one way (no layer reaches back to one that reaches it)', () => {
  const table = LAYERS as Record<string, string[]>;
  const reaches = (from: string, to: string, seen = new Set<string>()): boolean =>
    table[from]!.some((l) => l === to || (!seen.has(l) && (seen.add(l), reaches(l, to, seen))));
  for (const layer of Object.keys(table)) assert.ok(!reaches(layer, layer), `${layer} reaches itself`);
});
