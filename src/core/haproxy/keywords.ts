/**
 * HAProxy 2.6 keywords (Debian 12's haproxy). The registered ones come from `haproxy -dKall`; the core ones
 * (parsed by hand inside HAProxy) from the 2.6 configuration manual's keyword matrix.
 */

const words = (s: string): string[] => s.trim().split(/\s+/);

/** The keywords that open a section. */
export const SECTION_KEYWORDS = new Set([
  'global',
  'defaults',
  'frontend',
  'backend',
  'listen',
  'peers',
  'resolvers',
  'userlist',
  'mailers',
  'program',
  'http-errors',
  'ring',
  'cache',
  'fcgi-app',
  'log-forward',
]);

export const GLOBAL_KEYWORDS = new Set(
  words(`
     
  busy-polling ca-base chroot cluster-secret close-spread-time cpu-map crt-base daemon  default-path
  description    
  expose-experimental-directives external-check gid grace group h1-accept-payload-with-any-method h1-case-adjust
  h1-case-adjust-file hard-stop-after  httpclient.resolvers.id httpclient.resolvers.prefer
  httpclient.ssl.ca-file httpclient.ssl.verify   insecure-fork-wanted
  insecure-setuid-wanted issuers-chain-path localpeer log log-send-hostname log-tag lua-load lua-load-per-thread
  lua-prepend-path master-worker max-spread-checks maxcompcpuusage maxcomprate maxconn maxconnrate maxpipes
  maxsessrate maxsslconn maxsslrate maxzlibmem mworker-max-reloads  nbthread no-memory-trimming node noepoll
  noevports nogetaddrinfo nokqueue nopoll noreuseport nosplice numa-cpu-mapping pidfile pp2-never-send-local
  presetenv  profiling.tasks quiet resetenv server-state-base server-state-file set-dumpable
  set-var set-var-fmt setenv spread-checks ssl-default-bind-ciphers ssl-default-bind-ciphersuites
  ssl-default-bind-curves ssl-default-bind-options ssl-default-server-ciphers ssl-default-server-ciphersuites
  ssl-default-server-options ssl-dh-param-file  ssl-load-extra-del-ext ssl-load-extra-files
  ssl-mode-async ssl-propquery ssl-provider ssl-provider-path ssl-server-verify ssl-skip-self-issued-ca stats
  strict-limits thread-group thread-groups uid ulimit-n unix-bind unsetenv user 
     zero-warning
`),
);

/** Prefixes of global keyword families too long to list (tune.*); accepted as a whole. */
export const GLOBAL_PREFIXES = ['tune.'];

export const PROXY_KEYWORDS = new Set(
  words(`
  acl backlog balance bind capture clitcpka-cnt clitcpka-idle clitcpka-intvl  compression 
  cookie declare default-server default_backend description disabled dispatch email-alert enabled errorfile
  errorfiles errorloc errorloc302 errorloc303 error-log-format external-check filter force-persist fullconn
  hash-balance-factor hash-type http-after-response http-check http-error http-request http-response http-reuse
  http-send-name-header id ignore-persist load-server-state-from-file log log-format log-format-sd log-tag
  max-keep-alive-queue maxconn mode monitor monitor-uri no option persist rate-limit redirect retries retry-on
  server server-state-file-name server-template source srvtcpka-cnt srvtcpka-idle srvtcpka-intvl  stats
  stick stick-table tcp-check tcp-request tcp-response timeout transparent unique-id-format unique-id-header
  use-fcgi-app use-server use_backend
`),
);

/** Keywords a `defaults` section rejects ("'X' not allowed in 'defaults' section"). */
export const NOT_IN_DEFAULTS = new Set(words('acl bind server server-template use-server use_backend redirect stick monitor capture declare http-request http-response http-after-response tcp-request tcp-response filter dispatch id stick-table'));
/** Keywords that need backend capability (an error in a frontend). */
export const BACKEND_ONLY = new Set(words('server server-template use-server dispatch'));

export const OPTIONS = new Set(
  words(`
  abortonclose accept-invalid-http-request accept-invalid-http-response allbackups checkcache clitcpka contstats
  disable-h2-upgrade dontlog-normal dontlognull external-check forwardfor h1-case-adjust-bogus-client
  h1-case-adjust-bogus-server http-buffer-request http-ignore-probes http-keep-alive http-no-delay
  http-pretend-keepalive http-restrict-req-hdr-names http-server-close http-use-proxy-header httpchk httpclose
  httplog  idle-close-on-response independent-streams ldap-check log-health-checks log-separate-errors
  logasap mysql-check nolinger originalto persist pgsql-check prefer-last-server redis-check redispatch smtpchk
  socket-stats splice-auto splice-request splice-response spop-check srvtcpka ssl-hello-chk tcp-check
  tcp-smart-accept tcp-smart-connect tcpka tcplog transparent
`),
);

export const TIMEOUTS = new Set(words('client server connect check queue http-keep-alive http-request tunnel tarpit client-fin server-fin'));

export const MODES = new Set(['tcp', 'http', 'health']);

export const BALANCE_ALGORITHMS = ['roundrobin', 'static-rr', 'leastconn', 'first', 'source', 'uri', 'url_param', 'random', 'hash', 'hdr', 'rdp-cookie'];

/** Server keywords; value = number of arguments it takes. */
export const SERVER_KEYWORDS = new Map<string, number>();
const serverFlags = `agent-check allow-0rtt backup check check-send-proxy check-ssl check-via-socks4 disabled enabled
  force-sslv3 force-tlsv10 force-tlsv11 force-tlsv12 force-tlsv13 no-agent-check no-backup no-check
  no-check-send-proxy no-check-ssl no-send-proxy no-send-proxy-v2 no-send-proxy-v2-ssl no-send-proxy-v2-ssl-cn
  no-ssl no-ssl-reuse no-sslv3 no-tfo no-tls-tickets no-tlsv10 no-tlsv11 no-tlsv12 no-tlsv13 non-stick
  send-proxy send-proxy-v2 send-proxy-v2-ssl send-proxy-v2-ssl-cn ssl ssl-reuse stick tfo tls-tickets`;
const serverWithArg = `addr agent-addr agent-inter agent-port agent-send alpn ca-file check-alpn check-proto check-sni
  ciphers ciphersuites cookie crl-file crt downinter error-limit fall fastinter id init-addr inter log-proto
  max-reuse maxconn maxqueue minconn namespace npn observe on-error on-marked-down on-marked-up pool-low-conn
  pool-max-conn pool-purge-delay port proto proxy-v2-options redir resolve-net resolve-opts resolve-prefer
  resolvers rise slowstart sni socks4 source ssl-max-ver ssl-min-ver tcp-ut track usesrc verify verifyhost weight
  ws`;
for (const k of words(serverFlags)) SERVER_KEYWORDS.set(k, 0);
for (const k of words(serverWithArg)) SERVER_KEYWORDS.set(k, 1);

/** Bind keywords; value = number of arguments it takes. */
export const BIND_KEYWORDS = new Map<string, number>();
const bindFlags = `accept-proxy allow-0rtt defer-accept force-sslv3 force-tlsv10 force-tlsv11 force-tlsv12 force-tlsv13
  generate-certificates no-ca-names no-sslv3 no-tls-tickets no-tlsv10 no-tlsv11 no-tlsv12 no-tlsv13
  prefer-client-ciphers ssl strict-sni tfo transparent v4v6 v6only `;
const bindWithArg = `accept-netscaler-cip alpn backlog ca-file ca-ignore-err ca-sign-file ca-sign-pass ca-verify-file
  ciphers ciphersuites crl-file crt crt-ignore-err crt-list curves ecdhe expose-fd gid group id interface level
  maxconn mode mss name namespace nice npn process proto severity-output shards ssl-max-ver ssl-min-ver tcp-ut
  thread tls-ticket-keys uid user verify`;
for (const k of words(bindFlags)) BIND_KEYWORDS.set(k, 0);
for (const k of words(bindWithArg)) BIND_KEYWORDS.set(k, 1);

/** Keywords of the other sections; a section type missing here is not checked for unknown keywords. */
export const OTHER_SECTION_KEYWORDS: Record<string, Set<string>> = {
  userlist: new Set(words('group user')),
  peers: new Set(words('bind default-bind default-server disabled enabled log peer server table')),
  resolvers: new Set(words('accepted_payload_size hold nameserver parse-resolv-conf resolve_retries timeout')),
  mailers: new Set(words('mailer timeout')),
  'http-errors': new Set(words('errorfile')),
  ring: new Set(words('description format maxlen size server timeout')),
  cache: new Set(words('max-age max-object-size max-secondary-entries process-vary total-max-size')),
  program: new Set(words('command group option no user')),
  'log-forward': new Set(words('backlog bind dgram-bind log maxconn timeout')),
  'fcgi-app': new Set(words('acl docroot index log-stderr option path-info pass-header set-param')),
};

/** Levenshtein distance, bounded: returns max+1 as soon as it is exceeded. */
export function editDistance(a: string, b: string, max = 3): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const v = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      cur.push(v);
      if (v < rowMin) rowMin = v;
    }
    if (rowMin > max) return max + 1;
    prev = cur;
  }
  return prev[b.length]!;
}

/** The closest known word within a small edit distance, for "did you mean". */
export function didYouMean(word: string, known: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestD = word.length <= 4 ? 1 : word.length <= 8 ? 2 : 3;
  for (const k of known) {
    const d = editDistance(word, k, bestD);
    if (d <= bestD && (best === undefined || d < bestD)) {
      best = k;
      bestD = d;
    }
  }
  return best;
}

/** Keywords HAProxy 2.6 refuses because they were removed, with what replaces them. */
export const REMOVED_KEYWORDS: ReadonlyMap<string, string> = new Map([
  ['clitimeout', 'timeout client'],
  ['contimeout', 'timeout connect'],
  ['srvtimeout', 'timeout server'],
  ['nbproc', 'nbthread'],
]);
export const REMOVED_OPTIONS: ReadonlyMap<string, string> = new Map([['http_proxy', 'http-request set-dst (see the manual)']]);

/** Options that take no argument ("'option X' cannot handle unexpected argument"). */
export const OPTIONS_NO_ARGS = new Set(
  words(`tcplog tcp-check dontlognull ssl-hello-chk redis-check ldap-check tcpka clitcpka srvtcpka abortonclose allbackups
  contstats dontlog-normal http-keep-alive http-server-close httpclose http-no-delay http-pretend-keepalive
  http-buffer-request http-ignore-probes http-use-proxy-header independent-streams log-health-checks
  log-separate-errors logasap nolinger persist prefer-last-server socket-stats splice-auto splice-request
  splice-response tcp-smart-accept tcp-smart-connect transparent checkcache disable-h2-upgrade idle-close-on-response
  accept-invalid-http-request accept-invalid-http-response h1-case-adjust-bogus-client h1-case-adjust-bogus-server`),
);

/** Keywords with a fixed number of arguments: [min, max]. */
export const ARITY: Record<string, [number, number]> = {
  daemon: [0, 0],
  'master-worker': [0, 1],
  quiet: [0, 0],
  'zero-warning': [0, 0],
  user: [1, 1],
  group: [1, 1],
  uid: [1, 1],
  gid: [1, 1],
  pidfile: [1, 1],
  chroot: [1, 1],
  'ulimit-n': [1, 1],
  nbthread: [1, 1],
  default_backend: [1, 1],
  fullconn: [1, 1],
  'hash-type': [1, 3],
};

export const LOG_FACILITIES = new Set(words('kern user mail daemon auth syslog lpr news uucp cron auth2 ftp ntp audit alert cron2 local0 local1 local2 local3 local4 local5 local6 local7'));
export const LOG_LEVELS = new Set(words('emerg alert crit err warning notice info debug'));
