/**
 * The command line's messages follow LC_ALL / LC_MESSAGES / LANG: it reads the bundle file of that language (a real
 * file here), names a damaged entry once and keeps English for it, and speaks English without a word when it ships no
 * bundle for the language.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { catalogueLanguage, t, useMessages } from '../../../src/core/l10n';
import { useCliLanguage } from '../../../src/cli/language';
import type { JsonRow } from '../../../src/cli/lint';
import { main } from '../../../src/cli/main';
import { memoryIo } from './memoryIo';
import { tempDir } from '../../tempDir';

const EXAMPLE = join(__dirname, '../../../examples/labs-k8s');

const english = (): void => void useMessages('en', undefined);

test('the command line reads the bundle file of its locale; a damaged entry is named once, a missing bundle is English', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kw-l10n-'));
  try {
    writeFileSync(join(dir, 'bundle.l10n.ru.json'), JSON.stringify({ 'Remove {0}': 'Удалить {0}', 'Use {0}': 'Использовать' }));
    const warning = useCliLanguage({ LANG: 'ru_RU.UTF-8' }, [join(dir, 'missing'), dir]);
    assert.equal(catalogueLanguage(), 'ru-ru');
    assert.equal(t('Remove {0}', 'x'), 'Удалить x');
    assert.equal(t('Use {0}', 'eth0'), 'Use eth0');
    assert.match(warning ?? '', /1 ru-ru message of bundle\.l10n\.ru\.json .*"Use \{0\}"/);
    assert.equal(useCliLanguage({ LANG: 'de_DE.UTF-8' }, [dir]), undefined, 'no German bundle: English without a word');
    assert.equal(t('Remove {0}', 'x'), 'Remove x');
    writeFileSync(join(dir, 'bundle.l10n.ru.json'), '{"Remove {0}": ');
    assert.match(useCliLanguage({ LC_MESSAGES: 'ru_RU.UTF-8' }, [dir]) ?? '', /not used \(bundle\.l10n\.ru\.json: the bundle is not valid JSON/);
    assert.equal(t('Remove {0}', 'x'), 'Remove x');
  } finally {
    english();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('lint under a Russian LANG: text in Russian; json and sarif keep the English message and add the Russian one', async () => {
  const dir = tempDir('kw-lint-ru-');
  const saved = { LANG: process.env.LANG, LC_ALL: process.env.LC_ALL, LC_MESSAGES: process.env.LC_MESSAGES };
  try {
    cpSync(EXAMPLE, dir, { recursive: true });
    // the API frontend in http mode: one error with a fix, from the lint worker (which gets the catalogue it starts with)
    const cfg = join(dir, 'haproxy.cfg');
    writeFileSync(cfg, readFileSync(cfg, 'utf8').replace('    mode tcp\n    option tcplog\n    default_backend', '    mode http\n    option tcplog\n    default_backend'));
    delete process.env.LC_ALL;
    delete process.env.LC_MESSAGES;
    process.env.LANG = 'ru_RU.UTF-8';

    const text = memoryIo();
    assert.equal(await main(['lint', '--inventory', join(dir, 'inventory.yaml'), cfg], text), 1, text.err);
    assert.match(text.out, /haproxy\.cfg:\d+:\d+: error: frontend 'kubernetes-api' обслуживает API Kubernetes в режиме http; нужен режим tcp\. \[haproxy\/frontend-mode-tcp\]/);

    const json = memoryIo();
    await main(['lint', '--format', 'json', '--inventory', join(dir, 'inventory.yaml'), cfg], json);
    const rows = JSON.parse(json.out) as JsonRow[];
    assert.deepEqual(rows.map((r) => [r.rule, r.message, r.localizedMessage]), [
      ['haproxy/frontend-mode-tcp', "frontend 'kubernetes-api' serves the Kubernetes API in mode http; it must be mode tcp.", "frontend 'kubernetes-api' обслуживает API Kubernetes в режиме http; нужен режим tcp."],
    ]);

    const sarif = memoryIo();
    await main(['lint', '--format', 'sarif', '--inventory', join(dir, 'inventory.yaml'), cfg], sarif);
    const run = (JSON.parse(sarif.out) as { runs: Array<{ results: Array<{ ruleId: string; message: { text: string }; properties?: { localizedMessage?: string } }>; tool: { driver: { rules: Array<{ id: string; shortDescription: { text: string }; properties?: { localizedTitle?: string } }> } } }> }).runs[0]!;
    assert.match(run.results[0]!.message.text, /^frontend 'kubernetes-api' serves the Kubernetes API in mode http; it must be mode tcp\. The API speaks mutual TLS/);
    assert.match(run.results[0]!.properties?.localizedMessage ?? '', /^frontend 'kubernetes-api' обслуживает API Kubernetes в режиме http; нужен режим tcp\. API использует взаимный TLS/);
    const rule = run.tool.driver.rules.find((r) => r.id === 'haproxy/frontend-mode-tcp')!;
    assert.equal(rule.shortDescription.text, 'The Kubernetes API frontend runs in `mode tcp`, even when defaults say `mode http`.');
    assert.equal(rule.properties?.localizedTitle, 'Frontend API Kubernetes работает в `mode tcp`, даже если в defaults указано `mode http`.');

    process.env.LANG = 'C.UTF-8';
    const english = memoryIo();
    await main(['lint', '--format', 'json', '--inventory', join(dir, 'inventory.yaml'), cfg], english);
    assert.deepEqual((JSON.parse(english.out) as JsonRow[]).map((r) => [r.message, r.localizedMessage]), [["frontend 'kubernetes-api' serves the Kubernetes API in mode http; it must be mode tcp.", undefined]], 'English: no localised copy');
  } finally {
    for (const [k, v] of Object.entries(saved)) if (v === undefined) delete process.env[k]; else process.env[k] = v;
    english();
    rmSync(dir, { recursive: true, force: true });
  }
});
