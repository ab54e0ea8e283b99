/**
 * HAProxy rules: the syntax HAProxy 2.6 itself refuses (so a finding appears before `haproxy -c` runs on the
 * balancer) and the Kubernetes API load-balancing rules of the seed that `haproxy -c` does not know about.
 */
import type { Finding, Fix, Range, Severity, TextEdit } from '../findings';
import type { RuleInfo } from '../lint/types';

const DOCS = 'https://docs.haproxy.org/2.6/configuration.html';

function rule(id: string, severity: Severity, title: string, why: string, anchor: string, fixable = false): RuleInfo {
  return { id: `haproxy/${id}`, severity, title, why, docs: `${DOCS}#${anchor}`, fixable };
}

export const HAPROXY_RULES = {
  binary: rule('binary-file', 'error', 'The file is text.', 'HAProxy reads its configuration as text lines; a binary file cannot be a configuration.', '2.1'),
  syntax: rule('syntax', 'error', 'Quotes are balanced, lines hold no control characters and the file ends with a line break.', 'HAProxy refuses to start on an unmatched quote or a last line without a line break, so the balancer stops serving the API.', '2.2', true),
  outOfSection: rule('out-of-section', 'error', 'Every keyword is inside a section.', 'HAProxy rejects a keyword that comes before the first section header.', '2.1', true),
  unknownKeyword: rule('unknown-keyword', 'error', 'Keywords, options and section names are ones HAProxy 2.6 knows.', 'HAProxy refuses to start on an unknown keyword, so a typo takes the API endpoint down on the next reload.', '4.1', true),
  argument: rule('argument', 'error', 'Keywords get the arguments HAProxy expects (count, log facility and level, stats socket options).', 'HAProxy refuses a keyword with a missing, extra or invalid argument, so the balancer does not start.', '3', true),
  removedKeyword: rule('removed-keyword', 'error', 'No keyword removed from HAProxy 2.6 is used.', 'HAProxy 2.6 refuses keywords it no longer supports instead of ignoring them.', '4.1', true),
  notAllowed: rule('keyword-not-allowed', 'error', 'Keywords appear only in sections that accept them.', 'HAProxy refuses `bind` or `server` in a section that cannot listen or forward.', '4.1'),
  missingName: rule('missing-name', 'error', 'frontend, backend and listen sections have a name.', 'HAProxy refuses a proxy section without a name, and backends are referenced by name.', '4'),
  duplicateSection: rule('duplicate-section', 'error', 'Proxy names are unique.', 'HAProxy refuses two proxies of the same name, since default_backend and use_backend must name exactly one.', '4'),
  duplicateServer: rule('duplicate-server', 'error', 'Server names are unique within a backend.', 'HAProxy refuses two servers of the same name in one backend; stats and health checks are reported by name.', '4.2-server', true),
  missingBackend: rule('missing-backend', 'error', 'default_backend and use_backend name an existing backend.', 'HAProxy refuses to start when a frontend points at a backend that does not exist.', '4.2-default_backend'),
  invalidMode: rule('invalid-mode', 'error', '`mode` is tcp, http or health.', 'HAProxy refuses an unknown proxy mode.', '4.2-mode', true),
  frontendModeTcp: rule('frontend-mode-tcp', 'error', 'The Kubernetes API frontend runs in `mode tcp`, even when defaults say `mode http`.', 'The API speaks mutual TLS end to end; an L7 (http) proxy would try to parse or terminate it and break every client certificate.', '4.2-mode', true),
  backendModeTcp: rule('backend-mode-tcp', 'error', 'The backend behind the API frontend also runs in `mode tcp`.', 'A backend inherits `mode http` from defaults even when its frontend says `mode tcp`, and `haproxy -c` accepts that mix while the API connections fail.', '4.2-mode', true),
  modeImplicit: rule('mode-implicit', 'info', 'The API frontend and backend say `mode tcp` explicitly.', "Debian's stock defaults say `mode http`; relying on the built-in default makes the API L7 as soon as such a defaults section is added.", '4.2-mode', true),
  apiFrontend: rule('api-frontend', 'error', 'A frontend binds the inventory endpoint (VIP:6443).', 'Every kubelet, kube-proxy and kubectl talks to controlPlaneEndpoint; without a frontend on it the cluster has no API entry point.', '4.2-bind', true),
  bindVip: rule('bind-vip', 'error', 'The API frontend binds the VIP and port of controlPlaneEndpoint.', 'Clients connect to controlPlaneEndpoint; a frontend on another address or port is never reached, and a wildcard also captures the node address.', '4.2-bind', true),
  bindAddress: rule('bind-address', 'error', 'bind addresses are valid `address:port`.', 'HAProxy refuses an invalid bind address or a bind without a port.', '4.2-bind'),
  nonlocalBind: rule('nonlocal-bind', 'warning', 'Binding the VIP comes with `net.ipv4.ip_nonlocal_bind = 1` on the balancer.', 'HAProxy may start before Keepalived holds the VIP; without ip_nonlocal_bind the bind fails with "Cannot bind" and HAProxy crash-loops.', '4.2-bind'),
  bindKeyword: rule('bind-keyword', 'error', 'bind options are ones HAProxy 2.6 knows.', 'HAProxy refuses a bind line with an unknown option.', '5.1', true),
  backendServers: rule('backend-servers', 'error', 'The API backend lists exactly the inventory control-plane nodes on the API port.', 'A missing node never gets traffic, an extra or wrong address sends clients to a dead or foreign endpoint.', '4.2-server', true),
  serverCheck: rule('server-check', 'error', 'Every API server line has `check`.', 'Without `check` HAProxy keeps sending connections to a control-plane node whose apiserver is down.', '5.2-check', true),
  serverKeyword: rule('server-keyword', 'error', 'server options are ones HAProxy 2.6 knows, with valid values.', 'HAProxy refuses a server line with an unknown option or an out-of-range value.', '5.2', true),
  serverVerify: rule('server-verify', 'error', 'TLS to a server (`ssl`, `check-ssl`) says how to verify it (`verify`, `ca-file`).', "HAProxy 2.6 refuses a TLS server line without 'verify' or 'ca-file' unless the global section says 'ssl-server-verify none'.", '5.2-verify', true),
  serverSsl: rule('server-ssl', 'error', 'The API servers do not use `ssl` (TLS stays end to end).', "With 'ssl' HAProxy opens its own TLS session to the apiserver, which then sees HAProxy instead of the client certificate and rejects kubelets and kubectl.", '5.2-ssl', true),
  serverAddress: rule('server-address', 'error', 'server addresses are IP addresses with a valid port.', 'HAProxy refuses an invalid address, and a host name is resolved once at start-up: without DNS then, HAProxy does not start.', '4.2-server'),
  healthCheck: rule('health-check', 'warning', 'The API backend has an active health check (`option tcp-check`, or `option httpchk GET /healthz` over TLS).', 'Without an active check a dead apiserver keeps receiving connections until clients time out.', '4.2-option%20tcp-check', true),
  readyzCheck: rule('readyz-check', 'info', 'The API backend checks HTTPS GET /readyz and expects status 200 (`option httpchk GET /readyz`, `http-check expect status 200`, `check check-ssl verify none`).', 'A TCP check marks a restarting apiserver UP as soon as its port accepts, before it can serve, so requests through the VIP fail until it is ready; /readyz answers 200 only then.', '4.2-option%20httpchk', true),
  fallRise: rule('fall-rise', 'warning', '`fall` and `rise` are at least 2 and small enough for a quick failover.', 'fall 1 drops a node on one lost check and rise 1 brings back a flapping one; very large values delay failover (the seed uses fall 3 rise 2).', '5.2-fall', true),
  timeoutMissing: rule('timeout-missing', 'warning', 'Every proxy has `timeout connect`, `timeout client` and `timeout server`.', 'Without timeouts dead connections are never reclaimed and HAProxy eventually runs out of connection slots.', '4.2-timeout%20client', true),
  timeoutShort: rule('timeout-short', 'warning', 'The API path keeps idle streams open long enough for watch, logs -f and exec.', '`kubectl logs -f`, `exec` and watches hold one TCP stream idle for minutes; a short client/server (or tunnel) timeout cuts them.', '4.2-timeout%20tunnel', true),
  timeoutInvalid: rule('timeout-invalid', 'error', 'Timeouts name a known timeout and carry a valid time.', 'HAProxy refuses an unknown timeout or a malformed time value.', '2.5'),
  balance: rule('balance', 'error', '`balance` names an algorithm HAProxy knows.', 'HAProxy refuses an unknown balance algorithm; roundrobin spreads the long-lived API streams evenly over the control plane.', '4.2-balance', true),
} satisfies Record<string, RuleInfo>;

export type RuleKey = keyof typeof HAPROXY_RULES;

export function finding(key: RuleKey, message: string, range: Range, fixes?: Fix[], severity?: Severity): Finding {
  const info = HAPROXY_RULES[key];
  const f: Finding = { rule: info.id, severity: severity ?? info.severity, message, why: info.why, range };
  if (info.docs) f.docs = info.docs;
  if (fixes && fixes.length) f.fixes = fixes;
  return f;
}

export function fix(title: string, ...edits: TextEdit[]): Fix {
  return { title, edits };
}
