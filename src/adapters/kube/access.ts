/**
 * Who the API server takes us for (SelfSubjectReview, authentication.k8s.io/v1, Kubernetes ≥ 1.28) and whether we
 * may read what the live views read (SelfSubjectAccessReview per need). Neither needs any permission: every
 * authenticated user — and system:anonymous — may ask both.
 */
import { NEEDED_ACCESS, type AccessCheck, type Identity } from '../../core/live/health';
import type { HttpsTransport } from './transport';

export async function whoAmI(transport: HttpsTransport, timeoutMs = 5000): Promise<Identity | undefined> {
  const body = { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' };
  const r = await transport.send('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', {}, body, timeoutMs);
  // Anonymous requests may not ask; the refusal names the user they arrived as.
  const refusedAs = r.status === 403 ? /User \\?"([^"\\]+)\\?"/.exec(r.body)?.[1] : undefined;
  if (refusedAs) return { username: refusedAs, groups: [] };
  if (r.status !== 201 && r.status !== 200) return undefined;
  try {
    const info = (JSON.parse(r.body) as { status?: { userInfo?: { username?: string; groups?: string[] } } }).status?.userInfo;
    return info?.username ? { username: info.username, groups: info.groups ?? [] } : undefined;
  } catch {
    return undefined;
  }
}

export async function checkAccess(transport: HttpsTransport, timeoutMs = 5000): Promise<AccessCheck[] | undefined> {
  const answers = await Promise.all(
    NEEDED_ACCESS.map(async (need): Promise<AccessCheck | undefined> => {
      const spec = {
        resourceAttributes: { verb: need.verb, resource: need.resource, ...(need.group ? { group: need.group } : {}), ...(need.namespace ? { namespace: need.namespace } : {}), ...(need.subresource ? { subresource: need.subresource } : {}) },
      };
      const r = await transport.send('POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', {}, { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec }, timeoutMs);
      if (r.status !== 201 && r.status !== 200) return undefined;
      const status = (JSON.parse(r.body) as { status?: { allowed?: boolean; reason?: string } }).status;
      return { ...need, allowed: !!status?.allowed, ...(status?.reason ? { reason: status.reason } : {}) };
    }),
  );
  return answers.every((a) => a) ? (answers as AccessCheck[]) : undefined;
}
