/**
 * package.json as VS Code shows it: its `%key%` strings replaced by the text of package.nls.json (English) or of
 * package.nls.<language>.json with the English text for a key the language lacks, as VS Code resolves them. The
 * manifest tests read titles, names and welcome texts through this, never the raw `%key%`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

interface ConfigSection {
  title: string;
  properties: Record<string, Record<string, unknown> & { enum?: unknown[] }>;
}

/** The parts of package.json that hold user-visible text. */
export interface Manifest {
  description?: string;
  capabilities?: { untrustedWorkspaces?: { description?: string } };
  contributes: {
    viewsContainers?: Record<string, Array<{ id: string; title: string }>>;
    views?: Record<string, Array<{ id: string; name: string; contextualTitle?: string }>>;
    viewsWelcome?: Array<{ view: string; contents: string; when?: string }>;
    walkthroughs?: Array<{ id: string; title: string; description: string; steps: Array<{ id: string; title: string; description: string; media?: { altText?: string; markdown?: string } }> }>;
    commands?: Array<{ command: string; title: string; shortTitle?: string; category?: string }>;
    menus?: Record<string, Array<{ command?: string; title?: string }>>;
    submenus?: Array<{ id: string; label: string }>;
    configuration: ConfigSection | ConfigSection[];
  };
}

export const NLS_KEY = /^%([\w.-]+)%$/;

export function readJson<T = Record<string, unknown>>(path: string): T {
  return JSON.parse(readFileSync(path, 'utf8')) as T;
}

/** The manifest's messages in `language` (`en`: package.nls.json alone). */
export function manifestMessages(root: string, language = 'en'): Record<string, string> {
  const english = readJson<Record<string, string>>(join(root, 'package.nls.json'));
  const file = join(root, `package.nls.${language}.json`);
  return language === 'en' || !existsSync(file) ? english : { ...english, ...readJson<Record<string, string>>(file) };
}

/** Every string of `value` that is a whole `%key%`, replaced by its message (an unknown key stays as written). */
export function resolveNls<T>(value: T, messages: Readonly<Record<string, string>>): T {
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') {
      const key = NLS_KEY.exec(v)?.[1];
      return key !== undefined && Object.hasOwn(messages, key) ? messages[key] : v;
    }
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return walk(value) as T;
}

/** package.json with its user-visible strings in `language`. */
// loose JSON to the tests, as JSON.parse gave it them before this resolved the %key%s
export function localisedManifest(root: string, language = 'en'): ReturnType<typeof JSON.parse> {
  return resolveNls(readJson(join(root, 'package.json')), manifestMessages(root, language));
}
