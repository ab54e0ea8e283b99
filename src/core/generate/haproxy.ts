/**
 * /etc/haproxy/haproxy.cfg for the balancers, from the inventory: the seed's L4 load balancing of the
 * Kubernetes API (mode tcp on the VIP, round robin over the control plane, HTTPS GET /readyz health checks with fall 3 rise 2,
 * long client/server timeouts for watch, logs -f and exec). It passes every haproxy rule and `haproxy -c`.
 */
import { hostsWithRole, splitEndpoint } from '../inventory/types';
import type { Inventory } from '../inventory/types';
import { assertValidInventory } from '../inventory/validate';
import { configWord } from './configWords';

export const HAPROXY_FRONTEND = 'kubernetes-api';
export const HAPROXY_BACKEND = 'kubernetes-master-nodes';

/** HAProxy proxy/server names allow letters, digits, '-', '_', '.', ':'. */
function safeName(name: string): string {
  return name.replace(/[^A-Za-z0-9_.:-]/g, '_') || 'server';
}

/** The backend's server names, one per control-plane host in inventory order (what `show stat` lists). */
export function haproxyServerNames(inv: Inventory): { host: string; server: string }[] {
  const seen = new Set<string>();
  return hostsWithRole(inv, 'control-plane').map((h) => {
    let server = safeName(h.name);
    while (seen.has(server)) server += '_';
    seen.add(server);
    return { host: h.name, server };
  });
}

export function generateHaproxyConfig(inv: Inventory): string {
  assertValidInventory(inv);
  const ep = splitEndpoint(inv.cluster.controlPlaneEndpoint);
  if (!ep) throw new Error(`controlPlaneEndpoint '${inv.cluster.controlPlaneEndpoint}' is not host:port`);
  const bind = configWord(`${ep.host}:${ep.port}`, 'the bind address');
  const balancers = hostsWithRole(inv, 'loadbalancer').map((h) => h.name);
  const names = haproxyServerNames(inv);
  const servers = hostsWithRole(inv, 'control-plane').map((h, i) => {
    const name = names[i]!.server;
    return `    server ${configWord(name, 'a server name')} ${configWord(`${h.address}:${ep.port}`, 'a server address')} check check-ssl verify none fall 3 rise 2`;
  });
  return [
    `# /etc/haproxy/haproxy.cfg on ${balancers.map((b) => configWord(b, 'a host name')).join(', ') || 'the balancers'}: L4 balancing of the Kubernetes API.`,
    '# Generated from the inventory by Kubeadm Workbench.',
    'global',
    '    log /dev/log local0',
    '    stats socket /run/haproxy/admin.sock mode 660 level admin',
    '    user haproxy',
    '    group haproxy',
    '    daemon',
    '',
    'defaults',
    '    log     global',
    '    mode    tcp',
    '    option  tcplog',
    '    option  dontlognull',
    '    timeout connect 5s',
    '    # watch, logs -f and exec keep one TCP stream open for a long time',
    '    timeout client  1h',
    '    timeout server  1h',
    '',
    `frontend ${HAPROXY_FRONTEND}`,
    `    bind ${bind}`,
    '    mode tcp',
    '    option tcplog',
    `    default_backend ${HAPROXY_BACKEND}`,
    '',
    `backend ${HAPROXY_BACKEND}`,
    '    mode tcp',
    '    balance roundrobin',
    // HTTPS GET /readyz: a TCP check would mark a restarting apiserver UP as soon as its port accepts, before it
    // can serve (the drill's finding); /readyz answers anonymous clients 200 only when it is ready
    '    option httpchk GET /readyz',
    '    http-check expect status 200',
    ...servers,
    '',
  ].join('\n');
}
