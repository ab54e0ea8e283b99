/**
 * The catalogue's keys as the source spells them: the English text of every `t('…')` and `msg('…')` call in src/
 * and of every `vscode.l10n.t('…')` of the editor layers, which read the same bundle (a string literal, or a template
 * without substitutions, as the first argument), read with the TypeScript parser
 * so that a key split over lines or quoted either way is the text the program passes at run time.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

export interface KeyUse {
  key: string;
  /** Where it is used: `src/…:line`. */
  at: string;
}

/** The TypeScript sources under `dir` (declaration files left out). */
export function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const p = join(dir, d.name);
    if (d.isDirectory()) return sourceFiles(p);
    return /\.tsx?$/.test(d.name) && !d.name.endsWith('.d.ts') ? [p] : [];
  });
}

/** Every catalogue call under `root/src`, and the calls whose first argument is not a literal (which no check can see). */
export function catalogueKeys(root: string): { uses: KeyUse[]; dynamic: string[] } {
  const uses: KeyUse[] = [];
  const dynamic: string[] = [];
  for (const file of sourceFiles(join(root, 'src'))) {
    const text = readFileSync(file, 'utf8');
    // a file that imports the catalogue under another name (`t as l10n`) is read too
    if (!/\b(?:t|msg)\(|\/l10n['/]/.test(text)) continue;
    const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    // the editor layers speak through vscode.l10n.t, which reads the same bundle
    const editorCall = (callee: ts.Expression): boolean =>
      ts.isPropertyAccessExpression(callee) && callee.name.text === 't' && ((ts.isPropertyAccessExpression(callee.expression) && callee.expression.name.text === 'l10n') || (ts.isIdentifier(callee.expression) && callee.expression.text === 'l10n'));
    const imported = new Set<string>();
    for (const st of sf.statements) {
      if (!ts.isImportDeclaration(st) || !ts.isStringLiteral(st.moduleSpecifier) || !/\/l10n(\/index)?$|\/l10n\/catalogue$/.test(st.moduleSpecifier.text)) continue;
      const named = st.importClause?.namedBindings;
      if (named && ts.isNamedImports(named)) for (const el of named.elements) if (['t', 'msg'].includes((el.propertyName ?? el.name).text)) imported.add(el.name.text);
    }
    if (!imported.size && !/\bl10n\.t\(/.test(text)) continue;
    const visit = (n: ts.Node): void => {
      if (ts.isCallExpression(n) && ((ts.isIdentifier(n.expression) && imported.has(n.expression.text)) || editorCall(n.expression))) {
        const at = `${relative(root, file)}:${sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1}`;
        const first = n.arguments[0];
        if (first && (ts.isStringLiteral(first) || ts.isNoSubstitutionTemplateLiteral(first))) uses.push({ key: first.text, at });
        else dynamic.push(at);
      }
      n.forEachChild(visit);
    };
    visit(sf);
  }
  return { uses, dynamic };
}
