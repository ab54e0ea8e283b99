/** Flags several verbs declare alike (every verb is declared with defineVerb, ./verb.ts, which parses them). */
import type { FlagSpec } from './args';
import { SSH_FLAGS } from './sshFlags';

/** Flags of the verbs that run a plan with in-process gates (certs renew, restore). */
export const PLAN_VERB_FLAGS: FlagSpec = { inventory: 'string', ...SSH_FLAGS, 'ask-become-pass': 'boolean', yes: 'boolean', plan: 'boolean', fresh: 'boolean', json: 'boolean' };
