/** The balancers' kinds, loaded together (../../../engine/lintModules.ts): haproxy.cfg and keepalived.conf, with their cross-file facts. */
import { HAPROXY_FACTS } from '../../haproxy/facts';
import { haproxyLinter } from '../../haproxy/lint';
import { KEEPALIVED_FACTS } from '../../keepalived/facts';
import { keepalivedLinter } from '../../keepalived/lint';
import type { KindFamily } from './family';

export const FAMILY: KindFamily = { linters: [haproxyLinter, keepalivedLinter], facts: { ...HAPROXY_FACTS, ...KEEPALIVED_FACTS } };
