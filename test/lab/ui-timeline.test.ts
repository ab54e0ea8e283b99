/**
 * The `kubectl run` timeline panel in real VS Code on the lab's HA cluster (the installed .vsix, the lab's
 * inventory as the workspace, its admin kubeconfig; the API servers write the audit log because the lab inventory
 * sets cluster.apiServerAuditLog): "Kubeadm: Show kubectl run Timeline…" twice on one worker, the image removed from
 * it first (cold: pulled), then again (warm: already there), each time "Read machine logs" pressed as a user does.
 * What the test reads is what a user sees inside the webview: every hop of the seed's sequence in the steps table
 * with its source written next to it, in causal order there and on the chart, no two texts or bars of the chart on
 * top of each other (the browser's own boxes), text readable on the theme's background, and the panel's "Time of
 * each hop" table, printed for both runs. Screenshots: test-results/ui/timeline-lab-{cold,warm}{,-hops}.png.
 * Runs on the cluster the tier already has (after timeline.test.ts); closing each panel deletes its test pod.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import type { FrameLocator, Page } from 'playwright-core';
import { overlaps, readPanel, type Seen } from './timelinePanelDom';
import { waitHealthy, TAKE_OVER_HEALTHY_MS } from './clusterHealth';
import { labEnv, openLabEditor, runPaletteCommand, type LabEditor } from './labEditor';
import { IMAGE, PULL, SEQUENCE, WORKERS, causalInversions, coldNode, inSubnet, orderedPairs } from './timelineSeed';
import { tempDir } from '../tempDir';

const PRECISION: Record<string, string> = { us: 'µs', ms: 'ms', s: 's' };

function wanted(cold: boolean): typeof SEQUENCE {
  return SEQUENCE.filter(([step]) => cold || !PULL.has(step));
}

/** What is still missing before the run is complete on the panel; empty when every hop is there from its source. */
function missing(seen: Seen, cold: boolean): string[] {
  const out = wanted(cold).filter(([step, source]) => !seen.rows.some((r) => r.step === step && r.source === source)).map(([s, src]) => `${s} (${src})`);
  // The last read of the logs comes after Ready: the audit log and the journal are then both read.
  if (!seen.sources.some((s) => /^✓ .*audit/i.test(s))) out.push('the audit log read');
  return out;
}

function checkPanel(label: string, seen: Seen, cold: boolean, podCidr: string): void {
  const table = seen.rows.map((r) => `${r.time.padStart(18)}  ${r.step.padEnd(18)} ${r.sourceText.padEnd(16)} ${r.label}`).join('\n');
  console.log(`${label} run, as the panel's steps table shows it:\n${table}\n${label} run, time of each hop (the panel's table): ${seen.hops.map(([h, t]) => `${h} ${t}`).join(' · ')}\n${label} run: ${seen.sli}`);
  const want = wanted(cold);
  const row = (step: string, source: string) => seen.rows.findIndex((r) => r.step === step && r.source === source);
  const mark = (step: string, source: string) => seen.marks.find((m) => m.step === step && m.source === source);
  for (const [step, source, precision] of want) {
    const r = seen.rows[row(step, source)];
    assert.ok(r, `${label}: ${step} from ${source} is in the steps table:\n${table}`);
    // The source, as written in the row: "journal, µs".
    const allowed = precision.split('|').map((p) => `${source}, ${PRECISION[p]}`);
    assert.ok(allowed.some((a) => r.sourceText.startsWith(a)), `${label}: ${step}'s source cell says "${r.sourceText}", not ${allowed.join(' or ')}`);
    const m = mark(step, source);
    assert.ok(m, `${label}: ${step} from ${source} is drawn on the chart`);
    assert.match(m.tip, new RegExp(`\\(${source}, (${precision}) precision\\)`), `${label}: ${step}'s tooltip names its source`);
  }
  if (!cold) assert.ok(!seen.rows.some((r) => r.step === 'pulling' && r.source === 'journal'), `${label}: nothing was pulled:\n${table}`);
  // Causal order: in the table (rows) and on the chart (left to right), each hop after those the laws put before it.
  for (const [[a, as], [b, bs]] of orderedPairs(want)) {
    assert.ok(row(a, as) < row(b, bs), `${label}: the table lists ${a} before ${b}:\n${table}`);
    assert.ok(mark(a, as)!.x <= mark(b, bs)!.x + 0.01, `${label}: the chart draws ${a} (x ${mark(a, as)!.x.toFixed(1)}) no later than ${b} (x ${mark(b, bs)!.x.toFixed(1)})`);
  }
  // ... and of every pair of steps the panel draws (the model's own edges, each step's sources in their order): on the
  // chart left to right and in the table top to bottom.
  assert.deepEqual(causalInversions(seen.marks.map((m) => ({ step: m.step, source: m.source, pos: m.x, label: m.tip.split('\n')[0] ?? m.step }))).filter((l) => !l.includes('listed after')), [], `${label}: the chart's causal order`);
  assert.deepEqual(causalInversions(seen.rows.map((r, i) => ({ step: r.step, source: r.source, pos: i, label: r.label }))), [], `${label}: the table's causal order`);
  for (const s of seen.sources) assert.doesNotMatch(s, /^✗ .*(audit|journal|CNI)/i, `${label}: a machine log was not read`);
  const ip = /CNI ADD: IP (\d+\.\d+\.\d+\.\d+)/.exec(seen.rows[row('cni-add', 'journal')]!.label)?.[1];
  assert.ok(ip && inSubnet(ip, podCidr), `${label}: the CNI ADD row gives ${ip}, an address of the node's podCIDR ${podCidr}`);
  assert.deepEqual(overlaps(seen), [], `${label}: no two texts or bars of the chart overlap`);
  assert.deepEqual(seen.clipped, [], `${label}: no text of the chart is cut off at its edges`);
  assert.deepEqual(seen.faint, [], `${label}: every text of the chart stands out from the theme's background (contrast ≥ 3)`);
  const took = new Map(seen.hops);
  for (const hop of ['API: POST to 201', 'Scheduling', 'Sandbox and CNI', 'Create and start']) assert.match(took.get(hop) ?? '', /^≈? ?[\d.]+ m?s$/, `${label}: the hop table gives "${hop}" a time`);
  assert.match(took.get('Image pull') ?? '', cold ? /^[\d.]+ m?s$/ : /^not seen$/, `${label}: the image pull ${cold ? 'timed' : 'not there'}`);
}

/** The palette command to the open panel: a test pod of IMAGE pinned to `node`, the machines' logs asked for. */
async function runTimeline(page: Page, name: string, node: string): Promise<FrameLocator> {
  await runPaletteCommand(page, 'Kubeadm: Show kubectl run Timeline');
  const input = page.locator('.quick-input-widget input.input');
  await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Run a test pod' }).first().waitFor();
  await input.fill('Run a test pod');
  await page.keyboard.press('Enter');
  const answer = async (title: string, value: string, row?: string) => {
    await page.locator('.quick-input-widget .quick-input-title', { hasText: title }).waitFor();
    await input.fill(value);
    if (row) await page.locator('.quick-input-list .monaco-list-row', { hasText: row }).first().waitFor();
    await page.keyboard.press('Enter');
  };
  await answer('Test pod name', name);
  await answer('Image', IMAGE);
  await answer('Node', node, node);
  const frame = page.frameLocator('iframe.webview.ready').last().frameLocator('#active-frame');
  await frame.locator('#steps tbody tr').first().waitFor({ timeout: 60_000 });
  await frame.locator('#read-logs').click();
  return frame;
}

async function waitComplete(page: Page, frame: FrameLocator, label: string, cold: boolean): Promise<Seen> {
  const end = Date.now() + 240_000;
  for (;;) {
    const seen = await readPanel(frame);
    const left = missing(seen, cold);
    // Complete: the read after Ready may still add a line or two (probes); the panel as it then stays.
    if (!left.length) return page.waitForTimeout(3000).then(() => readPanel(frame));
    if (Date.now() > end) assert.fail(`${label}: not on the panel within 240 s: ${left.join(', ')}\nrows: ${seen.rows.map((r) => `${r.step}/${r.source}`).join(' ')}\nsources: ${seen.sources.join(' | ')}`);
    await page.waitForTimeout(1000);
  }
}

describe('the kubectl run timeline panel in VS Code on the lab cluster: cold and warm, every hop, nothing overlapping', { timeout: 15 * 60_000 }, () => {
  let ed: LabEditor | undefined;
  let ok = false;
  let node = '';
  let podCidr = '';

  before(async () => {
    if (process.getuid?.() !== 0) throw new Error('the lab needs root');
    const env = labEnv();
    await waitHealthy(env, tempDir('kw-ui-timeline-home-'), TAKE_OVER_HEALTHY_MS);
    const found = await coldNode(env);
    assert.ok(found, `${IMAGE} could not be removed from any of ${WORKERS.join(', ')}: a running container uses it on each`);
    node = found;
    podCidr = execFileSync('kubectl', ['--kubeconfig', env.KUBECONFIG!, 'get', 'node', node, '-o', 'jsonpath={.spec.podCIDR}'], { encoding: 'utf8', env: { ...process.env, PATH: env.PATH! } }).trim();
    ed = await openLabEditor('ui-timeline');
  });

  after(async () => {
    await ed?.close(ok);
  });

  it('draws a cold and then a warm run on one worker, each hop from client to Ready with its source, in causal order', async () => {
    const { page, shot } = ed!;
    const suffix = Date.now().toString(36);
    for (const [label, cold] of [['cold', true], ['warm', false]] as const) {
      const t0 = Date.now();
      const frame = await runTimeline(page, `ui-timeline-${label}-${suffix}`, node);
      const seen = await waitComplete(page, frame, label, cold);
      console.log(`${label}: the panel complete ${((Date.now() - t0) / 1000).toFixed(1)} s after the palette command`);
      await shot(`timeline-lab-${label}`);
      await frame.locator('#hops').scrollIntoViewIfNeeded();
      await shot(`timeline-lab-${label}-hops`);
      checkPanel(label, seen, cold, podCidr);
      // Closing the panel (a middle click on its tab) deletes its test pod; the image stays on the node for the warm run.
      const tab = page.locator('.tabs-container .tab', { hasText: `kubectl run: ui-timeline-${label}-${suffix}` });
      await tab.click({ button: 'middle' });
      await tab.waitFor({ state: 'detached', timeout: 30_000 });
    }
    ok = true;
  });
});
