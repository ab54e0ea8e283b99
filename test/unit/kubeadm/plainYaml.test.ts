/**
 * The plain-subset YAML reader (src/core/kubeadm/plainYaml.ts) against the `yaml` library it stands in for:
 * wherever it reads a document, the library must read it without error and build the same tree (classes, values,
 * ranges, scalar types and formats, blank-line flags), and a kubeadm file must get the same findings — positions
 * and quick fixes included — with the reader as with the library alone. Checked on the corpus, on every corpus
 * line mutated, and on generated documents at the edges of the subset.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { isMap, isPair, isScalar, isSeq, parseDocument } from 'yaml';
import { generateKubeadmConfig } from '../../../src/core/generate/kubeadm';
import { lintKubeadm } from '../../../src/core/kubeadm/lint';
import { clearParseCache, plainReader, splitDocuments } from '../../../src/core/kubeadm/parse';
import { PARSE_OPTIONS, readPlainYaml } from '../../../src/core/kubeadm/plainYaml';
import { clearStructureCache } from '../../../src/core/kubeadm/structure';
import { EXAMPLE, exampleInventory, ROOT } from './helpers';

const inventory = exampleInventory();

/**
 * A node tree as plain data: each object's class name, the node type the library's isMap/isSeq/isScalar/isPair read,
 * whether it has a schema, and its own enumerable properties, recursively.
 */
function shape(n: unknown): unknown {
  if (n === null || typeof n !== 'object') return n;
  if (Array.isArray(n)) return n.map(shape);
  const nodeType = isMap(n) ? 'map' : isSeq(n) ? 'seq' : isScalar(n) ? 'scalar' : isPair(n) ? 'pair' : undefined;
  const out: Record<string, unknown> = { class: n.constructor.name, nodeType, schema: (n as { schema?: unknown }).schema !== undefined };
  for (const [k, v] of Object.entries(n)) out[k] = shape(v);
  return out;
}

/** Whether the reader read `text`; throws when it read it differently from the library. */
function sameAsLibrary(text: string): boolean {
  const mine = readPlainYaml(text);
  if (mine === undefined) return false;
  const doc = parseDocument(text, PARSE_OPTIONS);
  assert.deepEqual(doc.errors.map((e) => e.message), [], `the library rejects what the reader read: ${JSON.stringify(text)}`);
  assert.deepEqual(doc.warnings.map((e) => e.message), [], `the library warns about what the reader read: ${JSON.stringify(text)}`);
  assert.deepEqual(shape(mine), shape(doc.contents), `different trees for ${JSON.stringify(text)}`);
  return true;
}

/** The findings of a kubeadm file with the reader, then with the library alone (cold caches each time). */
function lintBothWays(text: string): [unknown, unknown] {
  const run = (enabled: boolean) => {
    plainReader.enabled = enabled;
    clearParseCache();
    clearStructureCache();
    try {
      return lintKubeadm({ path: 'kubeadm-config.yaml', text }, { inventory });
    } finally {
      plainReader.enabled = true;
    }
  };
  return [run(true), run(false)];
}

function yamlFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => (d.isDirectory() ? yamlFiles(join(dir, d.name)) : /\.ya?ml$/.test(d.name) ? [join(dir, d.name)] : []));
}

const kubeadmCorpus = [
  ...yamlFiles(join(ROOT, 'test/fixtures/kubeadm')).filter((f) => !f.endsWith('kube-flannel.yml')),
  join(EXAMPLE, 'kubeadm-config.yaml'),
].map((f) => readFileSync(f, 'utf8'));
kubeadmCorpus.push(generateKubeadmConfig(inventory), generateKubeadmConfig({ ...inventory, cluster: { ...inventory.cluster, kubernetesVersion: '1.31.2' } }));

/** Values at the subset's edges: other types, near-miss keywords, indicators, quotes, numbers in every format. */
const TRICKY = ['', 'null', 'Null', 'NULL', 'nul', '~', 'true', 'True', 'TRUE', 'tRue', 'yes', 'false', '0', '-0', '+1', '-1', '007', '0o17', '0o8', '0x1F', '0xG', '1.50', '1.', '.5', '1e3', '1E-3', '1e', '.inf', '-.Inf', '.nan', '1_000', '10.3.60.100:6443', 'a: b', 'a:', ':a', 'a:b', '- a', '-a', 'a #b', 'a#b', "'a'", "'a''b'", "'a", '"a"', '"a\\"b"', '"a\\nb"', '"', 'a "b"', "it's", '[a]', '{a: 1}', '&x a', '*x', '!!str a', '|', '>', '? a', '%a', '@a', '`a', ',a', 'a,b', 'a b', ' a', 'a ', '\ta', '...', '---', 'é'];

describe('plain YAML reader = the yaml library', () => {
  it('reads the corpus documents as the library does, and kubeadm findings are identical', () => {
    let read = 0;
    let docs = 0;
    for (const text of kubeadmCorpus) {
      for (const chunk of splitDocuments(text)) {
        docs++;
        if (sameAsLibrary(chunk.text)) read++;
      }
      const [mine, library] = lintBothWays(text);
      assert.deepEqual(mine, library);
    }
    // the reader must actually carry the corpus, or this test proves nothing
    assert.ok(read >= docs / 2, `the reader read only ${read} of ${docs} corpus documents`);
  });

  it('every line of the corpus mutated: same trees and same findings', () => {
    let cases = 0;
    let read = 0;
    for (const text of kubeadmCorpus) {
      const lines = text.split('\n');
      for (let i = 0; i < lines.length; i++) {
        const line = lines[i]!;
        const colon = line.indexOf(': ');
        const variants = [
          '',
          `${line}\n${line}`,
          ` ${line}`,
          `  ${line}`,
          line.replace(/^ /, ''),
          line.replace(/^ {2}/, ''),
          `\n${line}`,
          `${line}:`,
          `- ${line.trimStart()}`,
          `${line} # note`,
          ...(colon >= 0 ? TRICKY.filter((_, k) => (k + i) % 8 === 0).map((v) => `${line.slice(0, colon + 2)}${v}`) : []),
        ];
        for (const v of variants) {
          const mutated = [...lines.slice(0, i), v, ...lines.slice(i + 1)].join('\n');
          for (const chunk of splitDocuments(mutated)) if (sameAsLibrary(chunk.text)) read++;
          // the same trees give the same findings; linting every fifth case both ways keeps the tier fast
          if (cases++ % 5 === 0) {
            const [mine, library] = lintBothWays(mutated);
            assert.deepEqual(mine, library, `findings differ after line ${i + 1} became ${JSON.stringify(v)}`);
          }
        }
      }
    }
    assert.ok(read > cases / 2, `the reader read only ${read} documents in ${cases} cases`);
  });

  it('other YAML of the repository: the reader reads it as the library does or leaves it to the library', () => {
    for (const f of [...yamlFiles(join(ROOT, 'test/fixtures')), ...yamlFiles(join(ROOT, 'examples'))]) {
      for (const chunk of splitDocuments(readFileSync(f, 'utf8'))) sameAsLibrary(chunk.text);
    }
  });

  // generated documents: nested mappings and sequences in every indentation and sequence style, with blank lines
  type Tree = string | { map: [string, Tree][] } | { seq: Tree[] };
  const key = fc.oneof(fc.constantFrom('apiVersion', 'kind', 'a', 'b.c', 'x-y', 'k/v', 'null', 'true', 'False', '1', '0x1', '1.5', '_', 'a_b'), fc.stringMatching(/^[a-z][a-z0-9.\/-]{0,6}$/));
  const scalar = fc.oneof({ arbitrary: fc.constantFrom(...TRICKY), weight: 1 }, { arbitrary: fc.stringMatching(/^[a-zA-Z0-9._\/:+~-][a-zA-Z0-9._\/:+~ ,'"-]{0,8}$/), weight: 1 }, { arbitrary: fc.stringMatching(/^[a-z0-9][a-z0-9.\/-]{0,8}$/), weight: 2 });
  const { tree } = fc.letrec<{ tree: Tree; map: Tree; seq: Tree }>((tie) => ({
    tree: fc.oneof({ depthSize: 'small', withCrossShrink: true }, scalar, tie('map'), tie('seq')),
    map: fc.array(fc.tuple(key, tie('tree')), { minLength: 1, maxLength: 4 }).map((entries) => ({ map: entries })),
    seq: fc.array(tie('tree'), { minLength: 1, maxLength: 3 }).map((items) => ({ seq: items })),
  }));
  const comment = fc.oneof(fc.constantFrom('', ' kubeadm init --config kubeadm-config.yaml', ' a', '#', ' a ', ' key: value', ' конфиг', ' \t', '\r'), fc.string({ maxLength: 6 }));
  const header = fc.record({ before: fc.constantFrom('', '\n', '\n\n'), lines: fc.array(comment, { maxLength: 3 }), after: fc.constantFrom('', '', '\n', '\n\n') });
  const style = fc.record({ step: fc.integer({ min: 1, max: 4 }), sameIndentSeq: fc.boolean(), blanks: fc.array(fc.boolean(), { minLength: 8, maxLength: 8 }), dashSpaces: fc.integer({ min: 1, max: 3 }), header, tails: fc.array(fc.oneof({ arbitrary: fc.constantFrom('', ' # c', '  #x', ' # key: v', ' # é'), weight: 12 }, { arbitrary: fc.constantFrom(' #', ' # a ', '# glued', ' #\t'), weight: 1 }), { minLength: 5, maxLength: 5 }) });

  function render(t: Tree, s: { step: number; sameIndentSeq: boolean; blanks: boolean[]; dashSpaces: number; header: { before: string; lines: string[]; after: string }; tails: string[] }): string {
    let n = 0;
    const blank = () => (s.blanks[n++ % s.blanks.length] ? '\n' : '');
    let m = 0;
    const tail = () => s.tails[m++ % s.tails.length];
    const lines = (node: Tree, indent: number, first: string): string => {
      const pad = ' '.repeat(indent);
      if (typeof node === 'string') return `${first}${node}${tail()}\n`;
      if ('map' in node) {
        return node.map
          .map(([k, v], i) => {
            const head = `${i === 0 ? first : pad}${k}:`;
            if (typeof v === 'string') return `${i ? blank() : ''}${head} ${v}${tail()}\n`;
            const inner = 'seq' in v && s.sameIndentSeq ? indent : indent + s.step;
            return `${i ? blank() : ''}${head}\n${blank()}${lines(v, inner, ' '.repeat(inner))}`;
          })
          .join('');
      }
      return node.seq.map((v, i) => `${i ? blank() : ''}${lines(v, indent + 1 + s.dashSpaces, `${i === 0 ? first : pad}-${' '.repeat(s.dashSpaces)}`)}`).join('');
    };
    return `${s.header.before}${s.header.lines.map((c) => `#${c}\n`).join('')}${s.header.after}${lines(t, 0, '')}`;
  }

  it('generated documents: the reader reads them as the library does, or not at all', () => {
    let read = 0;
    let commented = 0;
    let trailing = 0;
    fc.assert(
      fc.property(fc.array(fc.tuple(key, tree), { minLength: 1, maxLength: 5 }), style, (entries, s) => {
        const text = render({ map: entries }, s);
        if (!sameAsLibrary(text)) return;
        read++;
        if (s.header.lines.length) commented++;
        if (/[^\s#] +#/.test(text)) trailing++;
      }),
      { numRuns: 1500 },
    );
    assert.ok(read > 60 && commented > 25 && trailing > 40, `the reader read only ${read} of 1500 generated documents, ${commented} with a header comment, ${trailing} with comments after values`);
  });

  it('generated documents with random characters inserted or deleted', () => {
    const edit = fc.tuple(fc.nat(), fc.constantFrom('', ' ', '  ', '\n', ':', ': ', '-', '- ', '#', '"', "'", '\t', '\r', '&', '*', '[', '{', '|', '>', '?', '!', '%', '@', ',', '.', '~', '0', 'x', '\\'), fc.integer({ min: 0, max: 2 }));
    fc.assert(
      fc.property(fc.array(fc.tuple(key, tree), { minLength: 1, maxLength: 4 }), style, fc.array(edit, { minLength: 1, maxLength: 3 }), (entries, s, edits) => {
        let text = render({ map: entries }, s);
        for (const [at, insert, remove] of edits) {
          const p = at % (text.length + 1);
          text = text.slice(0, p) + insert + text.slice(p + remove);
        }
        sameAsLibrary(text);
      }),
      { numRuns: 3000 },
    );
  });
});
