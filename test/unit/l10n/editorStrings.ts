/**
 * The editor layers' English that does not go through the catalogue yet: every string or template literal under
 * src/editor, src/views and src/commands that reads as words to a person (a message, a button, a tree row's label or
 * tooltip, a status-bar text, an error the error boundary shows) and is not an argument of `vscode.l10n.t`/`l10n.t` or
 * of the core's `t()`/`msg()`. Read with the TypeScript parser, so a key split over lines or an `import()` path is
 * what the program sees, not what a grep would.
 *
 * Left out on purpose, as no person reads them as prose or they stay English by design:
 * - module paths, object keys, literal types, and the operands of `===`/`!==` and `case` (identifiers compared);
 * - tagged templates (`sh\`…\`` builds a command line, which is never translated);
 * - the log channel's lines (`log.*`, `console.*`): the log is for support and bug reports, kept in English;
 * - text that is only identifiers, paths, codicons (`$(sync~spin)`) or placeholders.
 */
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { sourceFiles } from './catalogueKeys';

export const EDITOR_LAYERS = ['src/editor', 'src/views', 'src/commands'];

export interface Uncatalogued {
  /** `src/…:line`. */
  at: string;
  text: string;
}

/** Words a person reads: two words with a space between, or one capitalised word (a button: "Retry"). */
export function readsAsWords(text: string): boolean {
  const bare = text
    .replace(/\$\([\w~-]+\)/g, ' ') // codicons
    .replace(/{\d+}|\u0000/g, ' ') // placeholders, a template's substitutions
    .trim();
  return /[A-Za-z]{2,}[^\S\n]*[,:;]?\s+[A-Za-z(]{1,}[a-z]/.test(bare) || /^[A-Z][a-z]{2,}[.…!?]?$/.test(bare);
}

const COMPARISON = new Set([ts.SyntaxKind.EqualsEqualsEqualsToken, ts.SyntaxKind.ExclamationEqualsEqualsToken, ts.SyntaxKind.EqualsEqualsToken, ts.SyntaxKind.ExclamationEqualsToken]);

/** The callee's text: `vscode.l10n.t`, `log.warn`, `t`. */
function calleeText(call: ts.CallExpression | ts.NewExpression, sf: ts.SourceFile): string {
  return call.expression.getText(sf).replace(/\s+/g, '');
}

/** The literals of one file that read as words and bypass the catalogue. */
export function uncataloguedIn(file: string, text: string): Array<{ line: number; text: string }> {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const catalogue = new Set<string>();
  for (const st of sf.statements) {
    if (!ts.isImportDeclaration(st) || !ts.isStringLiteral(st.moduleSpecifier) || !/\/l10n(\/index|\/catalogue)?$/.test(st.moduleSpecifier.text)) continue;
    const named = st.importClause?.namedBindings;
    if (named && ts.isNamedImports(named)) for (const el of named.elements) if (['t', 'msg'].includes((el.propertyName ?? el.name).text)) catalogue.add(el.name.text);
  }
  const out: Array<{ line: number; text: string }> = [];
  const visit = (n: ts.Node): void => {
    if (ts.isImportDeclaration(n) || ts.isExportDeclaration(n) || ts.isTaggedTemplateExpression(n) || ts.isLiteralTypeNode(n)) return;
    if (ts.isCaseClause(n)) return n.statements.forEach(visit); // the label is an identifier compared, the body is code
    if (ts.isCallExpression(n) || ts.isNewExpression(n)) {
      const callee = calleeText(n, sf);
      if (catalogue.has(callee) || /(^|\.)l10n\.t$/.test(callee) || /^(log|console)\./.test(callee) || n.expression.kind === ts.SyntaxKind.ImportKeyword || callee === 'require') return;
    }
    if (ts.isBinaryExpression(n) && COMPARISON.has(n.operatorToken.kind)) return;
    if (ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n) || ts.isTemplateExpression(n)) {
      const p = n.parent;
      const isName = (ts.isPropertyAssignment(p) || ts.isPropertyDeclaration(p) || ts.isMethodDeclaration(p) || ts.isEnumMember(p) || ts.isPropertySignature(p)) && p.name === n;
      const isKey = ts.isElementAccessExpression(p) && p.argumentExpression === n;
      const words = ts.isTemplateExpression(n) ? [n.head.text, ...n.templateSpans.map((s) => s.literal.text)].join('\u0000') : n.text;
      if (!isName && !isKey && readsAsWords(words)) out.push({ line: sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1, text: words.replace(/\u0000/g, '${…}') });
      if (!ts.isTemplateExpression(n)) return;
    }
    n.forEachChild(visit);
  };
  visit(sf);
  return out;
}

/** Every such literal of the editor layers under `root`. */
export function uncatalogued(root: string): Uncatalogued[] {
  return EDITOR_LAYERS.flatMap((dir) =>
    sourceFiles(join(root, dir)).flatMap((file) => uncataloguedIn(file, readFileSync(file, 'utf8')).map((u) => ({ at: `${relative(root, file)}:${u.line}`, text: u.text }))),
  );
}
