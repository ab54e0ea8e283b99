/**
 * The webview draws the timeline's chart and hop table with the core's own renderer and a catalogue of its own: the
 * panel hands over the translations of BROWSER_KEYS. Held here: every text svg.ts and layout.ts use is in that list,
 * and a chart drawn with only the handed-over share is the chart the extension draws with the whole catalogue.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { useMessages } from '../../../src/core/l10n';
import { BROWSER_KEYS, timelineBrowserCatalogue } from '../../../src/core/timeline/browserMessages';
import { buildTimeline, laneTitles, type PodEvent, type PodSnapshot, type Timeline } from '../../../src/core/timeline/model';
import { hopTimes, hopTitles } from '../../../src/core/timeline/compare';
import { timelineToSvg } from '../../../src/core/timeline/svg';
import { catalogueKeys } from '../l10n/catalogueKeys';
import { ROOT } from '../haproxy/helpers';

after(() => useMessages('en', undefined));

const bundle = JSON.parse(readFileSync(join(ROOT, 'l10n/bundle.l10n.ru.json'), 'utf8')) as Record<string, string>;
const T = Date.parse('2026-11-29T10:00:00Z');
const pod: PodSnapshot = { name: 'web', namespace: 'default', creationTimestamp: new Date(T).toISOString(), nodeName: 'w01', phase: 'Running', containerStatuses: [{ name: 'web', state: { running: { startedAt: new Date(T + 4000).toISOString() } } }] };
const events: PodEvent[] = [
  { reason: 'Scheduled', eventTime: new Date(T + 123).toISOString(), message: 'Successfully assigned default/web to w01' },
  { reason: 'Pulling', firstTimestamp: new Date(T + 1000).toISOString() },
  { reason: 'Pulled', firstTimestamp: new Date(T + 3000).toISOString(), message: 'Successfully pulled image "web:1" in 2.345s (2.345s including waiting)' },
];
const timeline = () => buildTimeline(pod, events, { createSentAt: T - 50, createdAt: T - 10, bindingObservedAt: T + 130, runningObservedAt: T + 4300 }, T + 5000);
/** What the webview draws itself from a timeline it was sent (the steps' labels come in the timeline, already translated). */
const draw = (tl: Timeline) => [timelineToSvg(tl, { colors: 'theme', width: 960 }), JSON.stringify(hopTimes(tl)), JSON.stringify(laneTitles()), JSON.stringify(hopTitles())].join('\n');

test('every text the chart uses is handed to the webview', () => {
  const chartKeys = catalogueKeys(ROOT).uses.filter((u) => /^src\/core\/timeline\/(svg|layout)\.ts:/.test(u.at)).map((u) => u.key);
  assert.ok(chartKeys.length >= 8, `${chartKeys.length} texts in svg.ts`);
  assert.deepEqual(chartKeys.filter((k) => !BROWSER_KEYS.includes(k as never)), []);
  for (const k of BROWSER_KEYS) assert.ok(bundle[k], `a Russian entry for "${k}"`);
});

test('the webview\'s share of the catalogue draws the chart, the lanes and the hops as the whole catalogue does', () => {
  assert.equal(timelineBrowserCatalogue(), undefined, 'nothing to hand over in English');
  const english = draw(timeline());
  useMessages('ru', bundle);
  const sent = timeline();
  const whole = draw(sent);
  const share = timelineBrowserCatalogue()!;
  assert.equal(share.language, 'ru');
  assert.equal(Object.keys(share.messages).length, BROWSER_KEYS.length);
  // the webview: its own catalogue, told only the share
  useMessages(share.language, new Map(Object.entries(share.messages)));
  assert.equal(draw(sent), whole);
  useMessages('en', undefined);
  assert.notEqual(whole, english);
  assert.match(whole, /<title id="tl-title">[^<]*[А-Яа-я]/, 'the chart\'s title in Russian');
  assert.equal(draw(timeline()), english, 'English again afterwards');
});
