/**
 * HAProxy rules: the syntax HAProxy 2.6 itself refuses (so a finding appears before `haproxy -c` runs on the
 * balancer) and the Kubernetes API load-balancing rules of the seed that `haproxy -c` does not know about.
 */
import type { Finding, Fix, Range, Severity, TextEdit } from '../findings';
import { ruleTable, type RuleRow } from '../lint/ruleTable';
import { msg, type Message } from '../l10n';

const DOCS = 'https://docs.haproxy.org/2.6/configuration.html';

function rule<const N extends string>(id: N, severity: Severity, title: Message, why: Message, anchor: string, fixable = false): RuleRow<`haproxy/${N}`> {
  return { id: `haproxy/${id}`, severity, title, why, docs: `${DOCS}#${anchor}`, ...(fixable ? { fixes: ['edit'] as const } : {}) };
}

export const HAPROXY = ruleTable([
  rule('syntax', 'error', msg('Quotes are balanced, lines hold no control characters and the file ends with a line break.'), msg('HAProxy refuses to start on an unmatched quote or a last line without a line break, so the balancer stops serving the API.'), '2.2', true),
  rule('out-of-section', 'error', msg('Every keyword is inside a section.'), msg('HAProxy rejects a keyword that comes before the first section header.'), '2.1', true),
  rule('unknown-keyword', 'error', msg('Keywords, options and section names are ones HAProxy 2.6 knows.'), msg('HAProxy refuses to start on an unknown keyword, so a typo takes the API endpoint down on the next reload.'), '4.1', true),
  rule('argument', 'error', msg('Keywords get the arguments HAProxy expects (count, log facility and level, stats socket options).'), msg('HAProxy refuses a keyword with a missing, extra or invalid argument, so the balancer does not start.'), '3', true),
  rule('removed-keyword', 'error', msg('No keyword removed from HAProxy 2.6 is used.'), msg('HAProxy 2.6 refuses keywords it no longer supports instead of ignoring them.'), '4.1', true),
  rule('keyword-not-allowed', 'error', msg('Keywords appear only in sections that accept them.'), msg('HAProxy refuses `bind` or `server` in a section that cannot listen or forward.'), '4.1'),
  rule('missing-name', 'error', msg('frontend, backend and listen sections have a name.'), msg('HAProxy refuses a proxy section without a name, and backends are referenced by name.'), '4'),
  rule('duplicate-section', 'error', msg('Proxy names are unique.'), msg('HAProxy refuses two proxies of the same name, since default_backend and use_backend must name exactly one.'), '4'),
  rule('duplicate-server', 'error', msg('Server names are unique within a backend.'), msg('HAProxy refuses two servers of the same name in one backend; stats and health checks are reported by name.'), '4.2-server', true),
  rule('missing-backend', 'error', msg('default_backend and use_backend name an existing backend.'), msg('HAProxy refuses to start when a frontend points at a backend that does not exist.'), '4.2-default_backend'),
  rule('invalid-mode', 'error', msg('`mode` is tcp, http or health.'), msg('HAProxy refuses an unknown proxy mode.'), '4.2-mode', true),
  rule('frontend-mode-tcp', 'error', msg('The Kubernetes API frontend runs in `mode tcp`, even when defaults say `mode http`.'), msg('The API speaks mutual TLS end to end; an L7 (http) proxy would try to parse or terminate it and break every client certificate.'), '4.2-mode', true),
  rule('backend-mode-tcp', 'error', msg('The backend behind the API frontend also runs in `mode tcp`.'), msg('A backend inherits `mode http` from defaults even when its frontend says `mode tcp`, and `haproxy -c` accepts that mix while the API connections fail.'), '4.2-mode', true),
  rule('mode-implicit', 'info', msg('The API frontend and backend say `mode tcp` explicitly.'), msg("Debian's stock defaults say `mode http`; relying on the built-in default makes the API L7 as soon as such a defaults section is added."), '4.2-mode', true),
  rule('api-frontend', 'error', msg('A frontend binds the inventory endpoint (VIP:6443).'), msg('Every kubelet, kube-proxy and kubectl talks to controlPlaneEndpoint; without a frontend on it the cluster has no API entry point.'), '4.2-bind', true),
  rule('bind-vip', 'error', msg('The API frontend binds the VIP and port of controlPlaneEndpoint.'), msg('Clients connect to controlPlaneEndpoint; a frontend on another address or port is never reached, and a wildcard also captures the node address.'), '4.2-bind', true),
  rule('bind-address', 'error', msg('bind addresses are valid `address:port`.'), msg('HAProxy refuses an invalid bind address or a bind without a port.'), '4.2-bind'),
  rule('nonlocal-bind', 'warning', msg('Binding the VIP comes with `net.ipv4.ip_nonlocal_bind = 1` on the balancer.'), msg('HAProxy may start before Keepalived holds the VIP; without ip_nonlocal_bind the bind fails with "Cannot bind" and HAProxy crash-loops.'), '4.2-bind'),
  rule('bind-keyword', 'error', msg('bind options are ones HAProxy 2.6 knows.'), msg('HAProxy refuses a bind line with an unknown option.'), '5.1', true),
  rule('backend-servers', 'error', msg('The API backend lists exactly the inventory control-plane nodes on the API port.'), msg('A missing node never gets traffic, an extra or wrong address sends clients to a dead or foreign endpoint.'), '4.2-server', true),
  rule('server-check', 'error', msg('Every API server line has `check`.'), msg('Without `check` HAProxy keeps sending connections to a control-plane node whose apiserver is down.'), '5.2-check', true),
  rule('server-keyword', 'error', msg('server options are ones HAProxy 2.6 knows, with valid values.'), msg('HAProxy refuses a server line with an unknown option or an out-of-range value.'), '5.2', true),
  rule('server-verify', 'error', msg('TLS to a server (`ssl`, `check-ssl`) says how to verify it (`verify`, `ca-file`).'), msg("HAProxy 2.6 refuses a TLS server line without 'verify' or 'ca-file' unless the global section says 'ssl-server-verify none'."), '5.2-verify', true),
  rule('server-ssl', 'error', msg('The API servers do not use `ssl` (TLS stays end to end).'), msg("With 'ssl' HAProxy opens its own TLS session to the apiserver, which then sees HAProxy instead of the client certificate and rejects kubelets and kubectl."), '5.2-ssl', true),
  rule('server-address', 'error', msg('server addresses are IP addresses with a valid port.'), msg('HAProxy refuses an invalid address, and a host name is resolved once at start-up: without DNS then, HAProxy does not start.'), '4.2-server'),
  rule('health-check', 'warning', msg('The API backend has an active health check (`option tcp-check`, or `option httpchk GET /healthz` over TLS).'), msg('Without an active check a dead apiserver keeps receiving connections until clients time out.'), '4.2-option%20tcp-check', true),
  rule('readyz-check', 'info', msg('The API backend checks HTTPS GET /readyz and expects status 200 (`option httpchk GET /readyz`, `http-check expect status 200`, `check check-ssl verify none`).'), msg('A TCP check marks a restarting apiserver UP as soon as its port accepts, before it can serve, so requests through the VIP fail until it is ready; /readyz answers 200 only then.'), '4.2-option%20httpchk', true),
  rule('fall-rise', 'warning', msg('`fall` and `rise` are at least 2 and small enough for a quick failover.'), msg('fall 1 drops a node on one lost check and rise 1 brings back a flapping one; very large values delay failover (the seed uses fall 3 rise 2).'), '5.2-fall', true),
  rule('timeout-missing', 'warning', msg('Every proxy has `timeout connect`, `timeout client` and `timeout server`.'), msg('Without timeouts dead connections are never reclaimed and HAProxy eventually runs out of connection slots.'), '4.2-timeout%20client', true),
  rule('timeout-short', 'warning', msg('The API path keeps idle streams open long enough for watch, logs -f and exec.'), msg('`kubectl logs -f`, `exec` and watches hold one TCP stream idle for minutes; a short client/server (or tunnel) timeout cuts them.'), '4.2-timeout%20tunnel', true),
  rule('timeout-invalid', 'error', msg('Timeouts name a known timeout and carry a valid time.'), msg('HAProxy refuses an unknown timeout or a malformed time value.'), '2.5'),
  rule('balance', 'error', msg('`balance` names an algorithm HAProxy knows.'), msg('HAProxy refuses an unknown balance algorithm; roundrobin spreads the long-lived API streams evenly over the control plane.'), '4.2-balance', true),
]);

/** The declared rules, for hovers, the Diagnostics webview and SARIF. */
export const HAPROXY_RULES = HAPROXY.rules;

export type HaproxyRuleId = Parameters<typeof HAPROXY.finding>[0];

export function finding(rule: HaproxyRuleId, message: string, range: Range, fixes?: Fix[], severity?: Severity): Finding {
  return HAPROXY.finding(rule, message, range, { fixes, severity });
}

export function fix(title: string, ...edits: TextEdit[]): Fix {
  return { title, edits };
}
