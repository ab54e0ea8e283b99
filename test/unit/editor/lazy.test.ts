import { test } from 'node:test';
import assert from 'node:assert/strict';
import { lazyProvider, once } from '../../../src/editor/lazy';

class Hovers {
  constructor(readonly prefix: string) {}
  provideHover(word: string): string {
    return `${this.prefix}${word}`;
  }
  resolve(): string {
    return 'resolved';
  }
}

test('lazyProvider: nothing loads until the first request; then every request goes to one provider', async () => {
  let loads = 0;
  const provider = lazyProvider(async () => (loads++, new Hovers('rule: ')), ['provideHover']);
  assert.equal(loads, 0, 'registering loads nothing');
  assert.deepEqual(await Promise.all([provider.provideHover('bind'), provider.provideHover('server')]), ['rule: bind', 'rule: server']);
  assert.equal(loads, 1, 'two requests, one load');
  // Only the named methods are offered: VS Code decides by their presence what a provider supports.
  assert.deepEqual(Object.keys(provider), ['provideHover']);
  assert.equal((provider as unknown as Record<string, unknown>).resolve, undefined);
});

test('once: a load that failed is tried again on the next call (a file missing for a moment), not remembered', async () => {
  let calls = 0;
  const load = once(async () => {
    if (++calls === 1) throw new Error('not there');
    return 'there';
  });
  await assert.rejects(load(), /not there/);
  assert.equal(await load(), 'there');
  assert.equal(await load(), 'there');
  assert.equal(calls, 2);
});
