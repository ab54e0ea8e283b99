import { test } from 'node:test';
import assert from 'node:assert/strict';
import { errorMessage } from '../../../src/core/errors';

test('the text of anything thrown: its message when it has one, what it is otherwise (never "undefined")', () => {
  assert.equal(errorMessage(new Error('connect ECONNREFUSED 10.3.60.51:22')), 'connect ECONNREFUSED 10.3.60.51:22');
  assert.equal(errorMessage(Object.assign(new Error('x'), { message: 'All configured authentication methods failed' })), 'All configured authentication methods failed');
  assert.equal(errorMessage({ message: 'an ssh2 error object', level: 'client-authentication' }), 'an ssh2 error object');
  assert.equal(errorMessage('a thrown string'), 'a thrown string');
  assert.equal(errorMessage(undefined), 'undefined');
  assert.equal(errorMessage(null), 'null');
  assert.equal(errorMessage(42), '42');
});
