/** The message catalogue (./catalogue.ts), its bundle check (./bundle.ts) and the command line's language (./locale.ts). */
export { t, msg, format, useMessages, catalogueLanguage, catalogueSnapshot, catalogueGeneration, onCatalogueChange, inEnglish, normaliseLanguage, type Message, type MessageArg } from './catalogue';
export { checkedMessages, parseBundleText, placeholdersOf, MAX_BUNDLE_CHARS, type BundleProblem } from './bundle';
export { bundleFileNames, languageFromEnv } from './locale';
