import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { ViewIds } from '../../../src/editor/commandIds';
import { localisedManifest } from '../l10n/manifestText';

// the welcome texts as VS Code shows them in English (package.json names them by %key% of package.nls.json)
const pkg = localisedManifest(join(__dirname, '../../..'));
const LIVE = [ViewIds.controlPlane, ViewIds.leases, ViewIds.etcdMembers];

test('with no kubeconfig each live view welcomes with Select kubeconfig file…, Bring Up Cluster… and Open Settings', () => {
  for (const view of LIVE) {
    const missing = pkg.contributes.viewsWelcome.filter((w: { view: string; when?: string }) => w.view === view && /kubeadm\.kubeconfigMissing/.test(w.when ?? '') && !/!kubeadm\.kubeconfigMissing/.test(w.when ?? ''));
    assert.equal(missing.length, 1, view);
    const text: string = missing[0].contents;
    assert.match(text, /\[Select kubeconfig file…\]\(command:kubeadm\.selectKubeconfigFile\)/);
    assert.match(text, /\[Bring Up Cluster…\]\(command:kubeadm\.bringUpCluster\)/);
    assert.match(text, /\[Open Settings\]\(command:kubeadm\.openKubeconfigSetting\)/);
    assert.ok(!/`/.test(text), 'welcome text is shown verbatim: no Markdown backticks');
  }
});

test('Inventory comes first and tallest; the live views start collapsed (VS Code keeps what the user changes)', () => {
  const views = pkg.contributes.views.kubeadm as { id: string; visibility?: string; initialSize?: number }[];
  assert.equal(views[0]!.id, ViewIds.inventory);
  assert.notEqual(views[0]!.visibility, 'collapsed');
  for (const v of views.slice(1)) {
    assert.equal(v.visibility, 'collapsed', v.id);
    assert.ok((v.initialSize ?? 1) < (views[0]!.initialSize ?? 1), v.id);
  }
});

test('Drain, Cordon and Uncordon appear on Inventory host rows only while a cluster is connected', () => {
  const items = pkg.contributes.menus['view/item/context'] as { command: string; when: string }[];
  const onHosts = items.filter((m) => /^kubeadm\.(drain|cordon|uncordon)Node$/.test(m.command) && m.when.includes('view == kubeadm.inventory'));
  assert.equal(onHosts.length, 3);
  for (const m of onHosts) assert.match(m.when, /&& kubeadm\.clusterConnected$/, m.command);
});
