import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { CommandIds, ViewIds } from '../../../src/editor/commandIds';
import { localisedManifest } from '../l10n/manifestText';

const root = join(__dirname, '../../..');
// titles, names and texts as VS Code shows them in English (package.json names them by %key% of package.nls.json)
const pkg = localisedManifest(root);

test('package.json contributes exactly the commands of CommandIds', () => {
  const contributed = (pkg.contributes.commands as { command: string }[]).map((c) => c.command).sort();
  assert.deepEqual(contributed, Object.values(CommandIds).sort());
});

test('every contributed command has the Kubeadm category and a title', () => {
  for (const c of pkg.contributes.commands) {
    assert.equal(c.category, 'Kubeadm', c.command);
    assert.ok(c.title, c.command);
  }
});

test('menus and welcome links only name commands that exist', () => {
  const ids = new Set<string>([...Object.values(CommandIds), 'workbench.actions.view.problems', 'workbench.trust.manage', 'workbench.action.openWorkspaceSettings']);
  for (const [menu, items] of Object.entries(pkg.contributes.menus as Record<string, { command: string }[]>)) {
    for (const item of items) assert.ok(ids.has(item.command), `${menu}: ${item.command}`);
  }
  for (const w of pkg.contributes.viewsWelcome) {
    for (const m of (w.contents as string).matchAll(/\(command:([\w.]+)(?:\?[^)\s]*)?\)/g)) assert.ok(ids.has(m[1]!), `${w.view}: ${m[1]}`);
  }
});

test('the Kubeadm container has the six views, each with a welcome state', () => {
  assert.deepEqual(pkg.contributes.viewsContainers.activitybar.map((c: { title: string }) => c.title), ['Kubeadm']);
  const views = pkg.contributes.views.kubeadm.map((v: { id: string; name: string }) => `${v.id}:${v.name}`);
  assert.deepEqual(views, [`${ViewIds.inventory}:Inventory`, `${ViewIds.controlPlane}:Control Plane`, `${ViewIds.leases}:Leases`, `${ViewIds.etcdMembers}:etcd Members`, `${ViewIds.certificates}:Certificates`, `${ViewIds.backups}:Backups`]);
  const welcomed = new Set(pkg.contributes.viewsWelcome.map((w: { view: string }) => w.view));
  for (const id of Object.values(ViewIds)) assert.ok(welcomed.has(id), id);
});

test('activation is never "*" and untrusted workspaces are limited with host/path settings restricted', () => {
  assert.ok(!pkg.activationEvents.includes('*'));
  assert.ok(!pkg.activationEvents.includes('onStartupFinished'));
  assert.equal(pkg.capabilities.untrustedWorkspaces.supported, 'limited');
  const restricted = new Set(pkg.capabilities.untrustedWorkspaces.restrictedConfigurations);
  for (const [key, spec] of Object.entries(pkg.contributes.configuration.properties as Record<string, { type: string }>)) {
    if (spec.type === 'string') assert.ok(restricted.has(key), `string setting ${key} can feed a host, path or command: restrict it`);
  }
});

test('the inventory schema is shipped and contributed for YAML editors', () => {
  const entry = pkg.contributes.yamlValidation[0];
  const schema = JSON.parse(readFileSync(join(root, entry.url), 'utf8'));
  assert.deepEqual(schema.required, ['cluster', 'hosts']);
});

test('src/core never imports the editor', () => {
  const walk = (dir: string): string[] => readdirSync(dir, { withFileTypes: true }).flatMap((d) => (d.isDirectory() ? walk(join(dir, d.name)) : d.name.endsWith('.ts') ? [join(dir, d.name)] : []));
  for (const file of walk(join(root, 'src/core'))) {
    assert.doesNotMatch(readFileSync(file, 'utf8'), /from ['"]vscode['"]|require\(['"]vscode['"]\)/, file);
  }
});

test('the walkthrough: each step completes by the command its button runs, which exists, and ships its media', () => {
  const [walkthrough] = pkg.contributes.walkthroughs as { id: string; steps: { id: string; description: string; completionEvents: string[]; media: { markdown: string } }[] }[];
  assert.ok(walkthrough);
  assert.deepEqual(walkthrough.steps.map((s) => s.id), ['trust', 'inventory', 'preflight', 'plan', 'bringUp', 'connect', 'backup', 'certificates']);
  const contributed = new Set<string>((pkg.contributes.commands as { command: string }[]).map((c) => c.command));
  const known = new Set<string>([...contributed, 'workbench.trust.manage']);
  for (const step of walkthrough.steps) {
    const buttons = [...step.description.matchAll(/\(command:([\w.]+)\)/g)].map((m) => m[1]!);
    assert.ok(buttons.length, `${step.id}: a button`);
    for (const b of buttons) {
      assert.ok(known.has(b), `${step.id}: ${b} is no command`);
      assert.ok(step.completionEvents.includes(`onCommand:${b}`), `${step.id}: running ${b} completes the step`);
    }
    assert.ok(existsSync(join(root, step.media.markdown)), step.media.markdown);
    for (const m of readFileSync(join(root, step.media.markdown), 'utf8').matchAll(/!\[[^\]]*\]\(([^)]+)\)/g)) {
      assert.ok(existsSync(join(root, dirname(step.media.markdown), m[1]!)), `${step.media.markdown}: ${m[1]}`);
    }
  }
});
