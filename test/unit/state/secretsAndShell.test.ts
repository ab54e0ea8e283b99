/**
 * Issue 34's secrets, terminal and shell findings below the command line: redaction of keepalived's auth_pass, a
 * kubeconfig's client-key-data and ETCDCTL_PASSWORD; secrets registered the moment they exist; host output escaped
 * before any sink sees it; and shell text built only by the `sh` tag (a scan of src/ for hand-made quoting and for
 * commands written as string templates). Each failed on the code before the fix.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { redact, registerSecret } from '../../../src/core/ssh/redact';
import { RunOutput, type RunLine } from '../../../src/core/ssh/runLog';
import { escapeControls, oneLine, shownPath } from '../../../src/core/text/terminal';
import { commandLine, sh } from '../../../src/core/ssh/command';
import { auditCommand } from '../../../src/core/timeline/audit';
import { readPkiScript } from '../../../src/core/certs/kubeadmPki';

const SRC = join(__dirname, '../../../src');

test('redaction covers keepalived auth_pass, client-key-data and ETCDCTL_PASSWORD', () => {
  assert.equal(redact('        auth_pass s3cr3t99'), '        auth_pass ***');
  assert.equal(redact('authentication { auth_type PASS; auth_pass "two words" }'), 'authentication { auth_type PASS; auth_pass *** }');
  assert.equal(redact('    client-key-data: LS0tLS1CRUdJTiBQUklWQVRFIEtFWS0tLS0t'), '    client-key-data: ***');
  assert.equal(redact('ETCDCTL_PASSWORD=hunter22 etcdctl member list'), 'ETCDCTL_PASSWORD=*** etcdctl member list');
  assert.equal(redact('env ETCDCTL_PASSWORD="pw with space" x'), 'env ETCDCTL_PASSWORD=*** x');
  assert.equal(redact('client-certificate-data: LS0tCERT'), 'client-certificate-data: LS0tCERT', 'a certificate is not a secret');
});

test('a secret registered when it exists is redacted by every redactor of the process from then on', () => {
  const value = 'Zq7-generated-secret';
  assert.equal(redact(`x ${value} y`), `x ${value} y`);
  registerSecret(value);
  assert.equal(redact(`x ${value} y`), 'x *** y');
  const out = new RunOutput();
  const lines: RunLine[] = [];
  out.addSink((l) => lines.push(l));
  out.message(`later: ${value}`);
  assert.equal(lines[0]!.text, 'later: ***');
  registerSecret('abc');
  assert.equal(redact('abc'), 'abc', 'too short to register: it would mask ordinary words');
});

test('what a host prints reaches every sink with control characters escaped; a lone CR ends a line instead of overwriting it', () => {
  const out = new RunOutput();
  const lines: RunLine[] = [];
  out.addSink((l) => lines.push(l));
  const s = out.forCommand('m01');
  s.onStdout('\u001b]0;pwned\u0007ok 10%\r20%\r\n\u001b[2Kall hosts OK\u202e\n');
  s.end();
  assert.deepEqual(lines.map((l) => l.text), ['\\u001b]0;pwned\\u0007ok 10%', '20%', '\\u001b[2Kall hosts OK\\u202e']);
});

test('terminal text: controls and bidi escaped as JSON escapes; a file name with a newline is quoted; one finding is one line', () => {
  assert.equal(escapeControls('a\u001b[31mb\u0007c\u009bd\u007f\u2066e\nf\tg'), 'a\\u001b[31mb\\u0007c\\u009bd\\u007f\\u2066e\nf\tg');
  assert.equal(JSON.parse(escapeControls(JSON.stringify({ m: 'x\u009b\u202ey' }))).m, 'x\u009b\u202ey', 'JSON stays JSON with the same value');
  assert.equal(shownPath('/w/haproxy.cfg'), '/w/haproxy.cfg');
  assert.equal(shownPath('/w/a\nb.cfg'), '"/w/a\\nb.cfg"');
  assert.equal(oneLine('two\nlines\r'), 'two\\nlines\\u000d');
  assert.equal(escapeControls('m\u200b01 m\u200d02 \ufeffm03\u2060'), 'm\\u200b01 m\\u200d02 \\ufeffm03\\u2060', 'zero-width characters are shown');
});

/** Hand-made shell quoting (the `'\''` idiom) and commands passed to exec as string templates, in src/. */
function shellOutsideTheTag(): string[] {
  const found: string[] = [];
  const walk = (dir: string): string[] => readdirSync(dir, { withFileTypes: true }).flatMap((d) => (d.isDirectory() ? walk(join(dir, d.name)) : d.name.endsWith('.ts') ? [join(dir, d.name)] : []));
  for (const path of walk(SRC)) {
    const rel = relative(SRC, path);
    if (rel === join('core', 'ssh', 'command.ts')) continue; // the sh tag and its quote()
    const text = readFileSync(path, 'utf8');
    if (text.includes(`'\\\\''`)) found.push(`${rel}: quotes shell words by hand ('\\'')`);
    // Replayed text reaches the shell as it is: tests replay a built command, the product never does.
    if (/\breplayedShellText\(/.test(text)) found.push(`${rel}: passes text to the shell unquoted (replayedShellText is for tests)`);
    const source = ts.createSourceFile(path, text, ts.ScriptTarget.ES2022, true);
    const visit = (node: ts.Node): void => {
      if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && node.expression.name.text === 'exec') {
        const script = node.arguments[1];
        if (script && (ts.isTemplateExpression(script) || ts.isNoSubstitutionTemplateLiteral(script) || ts.isStringLiteral(script) || ts.isBinaryExpression(script))) {
          found.push(`${rel}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}: a command built as a string: ${script.getText(source).slice(0, 60)}`);
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}

test('shell text is built only by the sh tag: no hand-made quoting, no command written as a string template', () => {
  assert.deepEqual(shellOutsideTheTag(), []);
});

test('the commands moved to the sh tag quote what they interpolate, and a command line shown to type again keeps options bare', () => {
  assert.equal(auditCommand('kube-system').text, `tail -n 50000 /var/log/kubernetes/audit/audit.log | grep -F '"namespace":"kube-system"' | grep -F '"resource":"pods"'`);
  assert.match(readPkiScript(true, "/tmp/it's").text, /for f in '\/tmp\/it'\\''s\/etc\/kubernetes\/pki\/ca\.crt'/);
  assert.equal(commandLine(['--inventory', 'my inventory.yaml', '--fresh', '$(id)', "it's"]), `--inventory 'my inventory.yaml' --fresh '$(id)' 'it'\\''s'`);
  assert.equal(sh`echo ${'a b'}`.text, "echo 'a b'");
});
