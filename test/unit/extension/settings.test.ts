// The typed settings table (src/editor/settingDefs.ts) against package.json: every contributed setting is read through
// it with the scope and default the manifest declares, and it reads nothing the manifest does not contribute.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { SETTINGS } from '../../../src/editor/settingDefs';

const pkg = JSON.parse(readFileSync(join(__dirname, '../../..', 'package.json'), 'utf8'));
const config = [pkg.contributes.configuration].flat() as { properties: Record<string, { scope?: string; default: unknown; minimum?: number; maximum?: number; enum?: unknown[] }> }[];
const contributed = Object.fromEntries(config.flatMap((c) => Object.entries(c.properties)));
const defs = Object.values(SETTINGS);

test('the settings table and package.json name the same settings', () => {
  assert.deepEqual(defs.map((d) => `kubeadmWorkbench.${d.key}`).sort(), Object.keys(contributed).sort());
});

test('each setting has the scope and default package.json declares', () => {
  for (const d of defs) {
    const p = contributed[`kubeadmWorkbench.${d.key}`]!;
    assert.equal(d.scope, p.scope ?? 'window', d.key);
    assert.deepEqual(d.default, p.default, d.key);
    assert.deepEqual(d.read(p.default), p.default, `${d.key}: its default reads as itself`);
  }
});

test('a setting of the wrong type or out of the declared range reads as its default', () => {
  for (const d of defs) {
    const p = contributed[`kubeadmWorkbench.${d.key}`]!;
    assert.deepEqual(d.read(undefined), d.default, `${d.key}: unset`);
    assert.deepEqual(d.read({ hostile: true }), d.default, `${d.key}: an object`);
    if (typeof p.default === 'number') {
      assert.deepEqual(d.read('12'), d.default, `${d.key}: a string`);
      if (p.maximum !== undefined) assert.deepEqual(d.read(p.maximum + 1), d.default, `${d.key}: above the maximum`);
      if (p.minimum !== undefined) assert.deepEqual(d.read(p.minimum - 1), d.default, `${d.key}: below the minimum`);
      if (p.enum) assert.deepEqual(d.read(99), d.default, `${d.key}: not in the enum`);
    }
  }
});

test('folder settings are the ones whose paths are relative to the inventory folder; kubeconfig is one per window', () => {
  assert.deepEqual(defs.filter((d) => d.per === 'folder').map((d) => d.key).sort(), ['inventoryFile', 'knownHostsFile', 'sshConfigFile']);
  assert.equal(SETTINGS.kubeconfig.per, 'window');
  for (const d of defs) if (d.per === 'folder') assert.ok(d.scope === 'resource' || d.scope === 'machine-overridable', `${d.key} cannot be read per folder`);
});

test('configuration listeners ask affects() with a typed setting name, never a literal id', () => {
  const root = join(__dirname, '../../..');
  const literal: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (p.endsWith('.ts') && !p.endsWith(join('editor', 'settings.ts')) && /affectsConfiguration\(\s*['"`]/.test(readFileSync(p, 'utf8'))) literal.push(relative(root, p));
    }
  };
  walk(join(root, 'src'));
  assert.deepEqual(literal, []);
});
