/**
 * What went wrong talking to the cluster, in the words an admin needs: which kind of failure and where.
 * The adapter turns Node's socket/TLS errors and HTTP statuses into an ApiError; views, the status
 * bar and the CLI print `describe()`.
 */
import { errorMessage } from '../errors';
import { t } from '../l10n';

export type FailureKind = 'dns' | 'tls' | 'auth' | 'forbidden' | 'timeout' | 'refused' | 'unreachable' | 'gone' | 'http' | 'config' | 'other';

export class ApiError extends Error {
  constructor(
    readonly kind: FailureKind,
    /** The endpoint or file concerned, e.g. `https://10.3.60.100:6443/api/v1/nodes`. */
    readonly where: string,
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  describe(): string {
    return `${KIND_TEXT[this.kind]()} (${this.where}): ${this.message}`;
  }
}

/** Each kind in the display language (a function: the language may change after this module loads). */
const KIND_TEXT: Record<FailureKind, () => string> = {
  dns: () => t('DNS lookup failed'),
  tls: () => t('TLS handshake failed'),
  auth: () => t('authentication failed'),
  forbidden: () => t('not allowed (RBAC)'),
  timeout: () => t('timed out'),
  refused: () => t('connection refused'),
  unreachable: () => t('host unreachable'),
  gone: () => t('resource version too old (410 Gone)'),
  http: () => t('API error'),
  config: () => t('kubeconfig problem'),
  other: () => t('request failed'),
};

const TLS_CODES = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|ERR_OSSL|HOSTNAME_MISMATCH)/;

/** Classifies a Node socket/TLS error (or anything thrown) for `where`. */
export function classifyError(e: unknown, where: string): ApiError {
  if (e instanceof ApiError) return e;
  const err = e as { code?: string; message?: string; reason?: string };
  const code = err?.code ?? '';
  const message = err?.message ?? String(e);
  let kind: FailureKind = 'other';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_NONAME') kind = 'dns';
  else if (code === 'ECONNREFUSED') kind = 'refused';
  else if (code === 'ETIMEDOUT' || code === 'ESOCKETTIMEDOUT' || code === 'UND_ERR_CONNECT_TIMEOUT' || /timed? ?out/i.test(message)) kind = 'timeout';
  else if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH' || code === 'ECONNRESET' || code === 'EPIPE') kind = 'unreachable';
  else if (TLS_CODES.test(code) || /certificate|ssl|tls/i.test(message)) kind = 'tls';
  else if (code === 'ENOENT' || code === 'EACCES') kind = 'config';
  return new ApiError(kind, where, code ? `${code}: ${message}` : message);
}

/** Classifies an HTTP status answer from the API server. */
export function httpError(status: number, where: string, body: string): ApiError {
  let message = body.trim().slice(0, 300);
  try {
    const parsed = JSON.parse(body) as { message?: string };
    if (parsed.message) message = parsed.message;
  } catch {
    // not a Status object: keep the raw text
  }
  const kind: FailureKind = status === 401 ? 'auth' : status === 403 ? 'forbidden' : status === 410 ? 'gone' : status === 504 || status === 408 ? 'timeout' : 'http';
  return new ApiError(kind, where, `HTTP ${status}${message ? `: ${message}` : ''}`, status);
}

/**
 * The admin-facing text of any thrown value. Duck-typed rather than `instanceof`: the kube adapter is
 * a separate bundle (dist/kube.js) with its own copy of ApiError.
 */
export function describeError(e: unknown): string {
  const d = (e as { describe?: unknown })?.describe;
  if (typeof d === 'function') return String(d.call(e));
  return errorMessage(e);
}

export function errorKind(e: unknown): FailureKind | undefined {
  const k = (e as { kind?: unknown })?.kind;
  return typeof k === 'string' ? (k as FailureKind) : undefined;
}
