/**
 * What every webview shell shares: a fresh nonce per render, the Content-Security-Policy
 * (`default-src 'none'`; script and style only by nonce or from the extension), attribute escaping.
 */
import { randomBytes } from 'node:crypto';

export function makeNonce(): string {
  return randomBytes(18).toString('base64').replace(/[+/=]/g, '');
}

export const escapeAttr = (s: string): string => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

export function contentSecurityPolicy(cspSource: string, nonce: string): string {
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    // Components from @vscode-elements adopt constructable stylesheets; the page's own style is nonce'd.
    `style-src ${cspSource} 'nonce-${nonce}'`,
    `font-src ${cspSource}`,
    `img-src ${cspSource} data:`,
  ].join('; ');
}

/**
 * A webview's whole page: the CSP (`default-src 'none'`, script and style by nonce only), the title, the panel's own
 * style and body, and its script from the extension's dist — the shell every panel shares. `lang` is the display
 * language of the texts in it (VS Code's `env.language`), so that a screen reader reads them in their language.
 */
export function webviewPage(opts: { cspSource: string; nonce: string; scriptUri: string; title: string; style: string; body: string; lang?: string }): string {
  const { nonce } = opts;
  return `<!DOCTYPE html>
<html lang="${escapeAttr(opts.lang ?? 'en')}">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${escapeAttr(contentSecurityPolicy(opts.cspSource, nonce))}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>${escapeAttr(opts.title)}</title>
<style nonce="${nonce}">
${opts.style}
</style>
</head>
<body>
${opts.body}
<script type="module" nonce="${nonce}" src="${escapeAttr(opts.scriptUri)}"></script>
</body>
</html>`;
}
