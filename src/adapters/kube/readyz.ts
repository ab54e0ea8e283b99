/**
 * GET /readyz on one node's API server, directly (not through the VIP), certificate not checked: we only ask whether
 * it can serve. Anonymous, as kubeadm's default RBAC allows. Used where a step must know one server is back — a
 * renewal's or a restore's restart, a drill's way back — not the load balancer's view of it.
 */
import { request } from 'node:https';
import { t } from '../../core/l10n';

export function readyz(address: string, port: number, timeoutMs = 3000): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request({ host: address, port, path: '/readyz', method: 'GET', rejectUnauthorized: false, timeout: timeoutMs }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
    req.end();
  });
}

/** What GET /readyz through `address:port` answered (anonymous, certificate not checked): a status, or the socket's error. */
export function probeReadyz(address: string, port: number, timeoutMs = 3000): Promise<{ status?: number; error?: { code?: string; message: string } }> {
  return new Promise((resolve) => {
    const req = request({ host: address, port, path: '/readyz', method: 'GET', rejectUnauthorized: false, timeout: timeoutMs }, (res) => {
      res.resume();
      resolve({ status: res.statusCode ?? 0 });
    });
    req.on('timeout', () => req.destroy(Object.assign(new Error(t('no answer within {0} ms', timeoutMs)), { code: 'ETIMEDOUT' })));
    req.on('error', (e: Error & { code?: string }) => resolve({ error: { message: e.message, ...(e.code ? { code: e.code } : {}) } }));
    req.end();
  });
}
