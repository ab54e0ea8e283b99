/**
 * The before/after check of a linter speed-up: lints every haproxy.cfg and kubeadm file of the fixture corpus and
 * the examples, and each of them with every line mutated (removed, doubled, indented, dedented, a word or a
 * comment added), and prints how many cases and findings there were and a digest of all findings (rule, message,
 * severity, range, quick fixes). A change that keeps what the user sees prints the same digest.
 *
 *   node --import tsx scripts/lint-corpus.ts [SOURCE_ROOT] [--out FILE]
 *
 * SOURCE_ROOT is a checkout (or `git archive` of a commit) whose src/ is linted with (default: this one), so a
 * commit before the change and the working tree can be compared; --out writes one JSON line per case for a diff.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = join(__dirname, '..');
const args = process.argv.slice(2);
const outAt = args.indexOf('--out');
const out = outAt >= 0 ? args[outAt + 1] : undefined;
const sourceRoot = resolve(args.find((a, i) => !a.startsWith('--') && (outAt < 0 || i !== outAt + 1)) ?? ROOT);

function files(dir: string, pattern: RegExp): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => (d.isDirectory() ? files(join(dir, d.name), pattern) : pattern.test(d.name) ? [join(dir, d.name)] : []));
}

/** Each line of the text removed, doubled, indented, dedented, with a word and with a comment after it. */
function mutations(text: string): string[] {
  const lines = text.split('\n');
  const out: string[] = [text];
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!;
    for (const v of [undefined, `${l}\n${l}`, `  ${l}`, l.replace(/^\s+/, ''), `${l} x`, `${l} # c`, `${l}:`]) {
      out.push([...lines.slice(0, i), ...(v === undefined ? [] : [v]), ...lines.slice(i + 1)].join('\n'));
    }
  }
  return out;
}

async function main(): Promise<void> {
  const { lintText } = (await import(join(sourceRoot, 'src/core/lint/registry.ts'))) as typeof import('../src/core/lint/registry');
  const { parseInventory } = (await import(join(sourceRoot, 'src/core/inventory/parse.ts'))) as typeof import('../src/core/inventory/parse');
  const inventory = parseInventory(readFileSync(join(ROOT, 'examples/labs-k8s/inventory.yaml'), 'utf8')).inventory!;
  const corpus: { name: string; path: string; text: string }[] = [];
  for (const f of [...files(join(ROOT, 'test/fixtures/haproxy'), /\.cfg$/), join(ROOT, 'examples/labs-k8s/haproxy.cfg')]) corpus.push({ name: f.slice(ROOT.length + 1), path: 'haproxy.cfg', text: readFileSync(f, 'utf8') });
  for (const f of [...files(join(ROOT, 'test/fixtures/kubeadm'), /\.ya?ml$/).filter((f) => !f.endsWith('kube-flannel.yml')), join(ROOT, 'examples/labs-k8s/kubeadm-config.yaml')]) {
    corpus.push({ name: f.slice(ROOT.length + 1), path: 'kubeadm-config.yaml', text: readFileSync(f, 'utf8') });
  }
  const hash = createHash('sha256');
  const rows: string[] = [];
  let cases = 0;
  let findings = 0;
  for (const c of corpus) {
    for (const [k, text] of mutations(c.text).entries()) {
      // each case with and without the inventory: the rules that compare with it run only with one
      for (const context of [{ inventory }, {}]) {
        const found = lintText({ path: c.path, text }, context);
        const row = JSON.stringify({ file: c.name, mutation: k, inventory: context !== undefined && 'inventory' in context, findings: found });
        hash.update(row);
        if (out) rows.push(row);
        cases++;
        findings += found.length;
      }
    }
  }
  if (out) writeFileSync(out, rows.join('\n') + '\n');
  console.log(`${cases} cases, ${findings} findings, digest ${hash.digest('hex').slice(0, 16)}`);
}

void main();
