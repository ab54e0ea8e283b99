/**
 * Fills a webview text's `{0}`, `{1}`… as `vscode.l10n.t` fills them. The extension localises each webview's texts
 * with `vscode.l10n.t` (l10n/bundle.l10n.<language>.json) and sends them in its first message, with the placeholders
 * still in them; the webview, which has no `vscode.l10n`, fills them here. A placeholder without an argument stays.
 */
export function fill(template: string, ...args: Array<string | number>): string {
  return template.replace(/{(\d+)}/g, (match, index: string) => {
    const value = args[Number(index)];
    return value === undefined ? match : String(value);
  });
}

/** "1 step" or "{0} steps": the singular and plural texts, each whole, so that a language can word both. */
export interface Counted {
  one: string;
  many: string;
}

/** The text for `n` of a counted thing. */
export function counted(n: number, texts: Counted): string {
  return n === 1 ? fill(texts.one, n) : fill(texts.many, n);
}
