/**
 * The message catalogue every layer speaks through: `t('English text {0}', arg)` looks the English text up in the
 * active bundle and fills its `{0}`-style placeholders exactly as `vscode.l10n.t` does, so one bundle file,
 * `l10n/bundle.l10n.<language>.json` (VS Code's format: the English text is the key), serves the editor
 * (`vscode.l10n.t` reads it itself), the core (filled here from `vscode.l10n.bundle` in the extension host, from the
 * shipped file on the command line, from the main thread's copy in the lint worker) and the command line.
 *
 * English needs no bundle: with none, or a key the bundle lacks, the English text is the message.
 */
import { checkedMessages, type BundleProblem } from './bundle';

/** What a placeholder may be filled with: the positional arguments `vscode.l10n.t` takes. */
export type MessageArg = string | number | boolean | undefined | null;

/** An English message marked for the catalogue and translated when it is read (a rule's title and why). */
export type Message = string & { readonly __message: unique symbol };

interface Active {
  /** BCP 47-ish tag as VS Code gives it (`en`, `ru`, `pt-br`). */
  language: string;
  messages: ReadonlyMap<string, string> | undefined;
}

const ENGLISH: Active = { language: 'en', messages: undefined };

interface Shared {
  active: Active;
  generation: number;
  listeners: Array<() => void>;
}

/**
 * One catalogue per process (per thread): the Kubernetes adapter is a bundle of its own (dist/kube.js) with its own
 * copy of this module, and what it words (the live model's verdict, its etcd problems) must follow the language the
 * extension or the command line set in theirs — so every copy keeps its state in one record on globalThis.
 */
const SHARED = Symbol.for('kubeadm-workbench.l10n.catalogue');
const slot = globalThis as unknown as Record<symbol, Shared | undefined>;
const shared: Shared = (slot[SHARED] ??= { active: ENGLISH, generation: 0, listeners: [] });

const PLACEHOLDER = /{([^}]+)}/g;
const POSITIONAL = /{(\d+)}/g;

/**
 * VS Code's format (vs/base/common/strings format2, as l10n.t calls it): `{key}` becomes the value of that key —
 * `{0}` the first positional argument — when it is neither undefined nor null; anything else stays as written.
 * With no arguments at all the template is returned untouched.
 */
export function format(template: string, args: readonly MessageArg[] | Readonly<Record<string, MessageArg>>): string {
  const values = args as Record<string, MessageArg>;
  if (Object.keys(values).length === 0) return template;
  // only the arguments themselves: `{length}` or `{constructor}` in a message is text, not a property
  const positional = Array.isArray(args);
  return template.replace(PLACEHOLDER, (match, key: string) => {
    if ((positional && !/^\d+$/.test(key)) || !Object.hasOwn(values, key)) return match;
    const value = values[key];
    return value === undefined || value === null ? match : String(value);
  });
}

/**
 * The message in the active language: the bundle's text for `message` (the English text) when it has one, with
 * `{0}`, `{1}`… filled from `args` (or `{name}` from one record argument, as `vscode.l10n.t` accepts).
 */
export function t(message: string, ...args: MessageArg[] | [Readonly<Record<string, MessageArg>>]): string {
  const translated = shared.active.messages?.get(message) ?? message;
  if (args.length === 0) return translated;
  const first = args[0];
  if (args.length === 1 && first !== null && typeof first === 'object') return format(translated, first);
  // the common case, positional arguments, without format's general path (a lint message costs a template literal's time)
  const positional = args as MessageArg[];
  return translated.replace(POSITIONAL, (match, index: string) => {
    const value = positional[Number(index)];
    return value === undefined || value === null ? match : String(value);
  });
}

/**
 * Marks an English message for the catalogue without translating it yet: for text declared at load time (a rule
 * table) and read later, when the language is known; the reader translates it with `t`. The key check
 * (test/unit/l10n) collects these like `t` calls.
 */
export function msg(message: string): Message {
  return message as Message;
}

/**
 * Makes `language` with `bundle` (a bundle file's parsed contents, `vscode.l10n.bundle`, or the messages
 * parseBundleText already checked) the active catalogue.
 * The bundle is checked entry by entry: an entry that is not a string, or whose placeholders are not the English
 * text's, is dropped (its English is shown) and named in the answer; a bundle that is not an object leaves English.
 * English (or a language without a bundle) clears the catalogue.
 */
export function useMessages(language: string, bundle: unknown): BundleProblem[] {
  const tag = normaliseLanguage(language);
  if (tag === 'en' || bundle === undefined || bundle === null) {
    setActive({ language: tag, messages: undefined });
    return [];
  }
  const { messages, problems } = bundle instanceof Map ? { messages: bundle as ReadonlyMap<string, string>, problems: [] } : checkedMessages(bundle);
  setActive({ language: tag, messages: messages.size ? messages : undefined });
  return problems;
}

/** The active language's tag. */
export function catalogueLanguage(): string {
  return shared.active.language;
}

/** The active catalogue as plain data, to hand to a worker thread (which starts with English). */
export function catalogueSnapshot(): { language: string; messages: Record<string, string> } | undefined {
  const { active } = shared;
  if (!active.messages) return active.language === 'en' ? undefined : { language: active.language, messages: {} };
  return { language: active.language, messages: Object.fromEntries(active.messages) };
}

/** A number that changes whenever the active catalogue does (for keys of cached, already translated text). */
export function catalogueGeneration(): number {
  return shared.generation;
}

/**
 * Calls `clear` whenever the active catalogue changes: caches that keep translated messages (the lint results of
 * unchanged files) register here so that they never answer in the previous language.
 */
export function onCatalogueChange(clear: () => void): void {
  shared.listeners.push(clear);
}

/**
 * Runs `fn` with the English catalogue and restores the active one afterwards (`fn` is synchronous): the command
 * line's `--format json`/`sarif` keep the English messages as their stable text and add the localised one.
 */
export function inEnglish<T>(fn: () => T): T {
  const saved = shared.active;
  if (!saved.messages) return fn();
  setActive(ENGLISH);
  try {
    return fn();
  } finally {
    setActive(saved);
  }
}

function setActive(next: Active): void {
  if (next.language === shared.active.language && next.messages === shared.active.messages) return;
  shared.active = next.language === 'en' && !next.messages ? ENGLISH : next;
  shared.generation++;
  for (const clear of shared.listeners) clear();
}

/** `ru_RU`, `ru-RU`, `RU` → `ru-ru`, `ru`: VS Code's spelling of a language tag (lower case, `-`). */
export function normaliseLanguage(language: string): string {
  const tag = language.trim().replace(/_/g, '-').toLowerCase();
  return tag === '' ? 'en' : tag;
}
