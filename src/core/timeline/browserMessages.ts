/**
 * The timeline's words that the webview writes itself — the chart (svg.ts, layout.ts), the lanes (model.ts) and the hops
 * (compare.ts) — with their translations in the active catalogue. The webview bundle has its own copy of the
 * catalogue, English until told: the panel hands these over with the timeline, and the chart, its tooltips and the
 * hop table speak the editor's language (the export, drawn by the extension, already did).
 */
import { catalogueGeneration, catalogueSnapshot, msg, type Message } from '../l10n';

/** Every catalogue text those files use where the webview draws; a unit test holds the list to them. */
export const BROWSER_KEYS: readonly Message[] = [
  // svg.ts
  msg('kubectl run timeline of {0}/{1}'),
  msg('{0}: {1} at {2} ({3}, {4})'),
  msg(' — startup SLI {0} s (SLO 5 s: {1})'),
  msg('met'),
  msg('missed'),
  msg('{0}: {1} ({2} to {3})'),
  msg('{0}: {1} — {2}; read {3} ({4}, {5} precision){6}'),
  msg('; moved to keep the causal order: the clocks disagree'),
  msg('● ms/µs reading   ■ second precision, bar: the interval it can be in   ▬ duration'),
  // layout.ts: the spans' names
  msg('request'),
  msg('authn, authz, admission, etcd'),
  msg('sandbox'),
  msg('pull{0}'),
  msg('pull{0} (kubelet\'s measure)'),
  msg('start{0}'),
  // model.ts: the lanes
  msg('API server'),
  msg('Scheduler'),
  msg('Container runtime'),
  // compare.ts: the hops
  msg('API: POST to 201'),
  msg('Scheduling'),
  msg('Binding to the kubelet'),
  msg('Sandbox and CNI'),
  msg('Image pull'),
  msg('Create and start'),
  msg('Started to Ready'),
];

/** The webview's share of the catalogue: its language and the translations of BROWSER_KEYS it has. */
export interface BrowserCatalogue {
  language: string;
  messages: Record<string, string>;
}

let cached: { generation: number; value: BrowserCatalogue | undefined } | undefined;

/** The active catalogue's translations of BROWSER_KEYS (undefined in English), kept until the catalogue changes. */
export function timelineBrowserCatalogue(): BrowserCatalogue | undefined {
  const generation = catalogueGeneration();
  if (cached?.generation === generation) return cached.value;
  const all = catalogueSnapshot();
  const value = all && { language: all.language, messages: Object.fromEntries(BROWSER_KEYS.filter((k) => Object.hasOwn(all.messages, k)).map((k) => [k, all.messages[k]!])) };
  cached = { generation, value };
  return value;
}
