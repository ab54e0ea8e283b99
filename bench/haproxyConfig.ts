/**
 * The benchmarks' large haproxy.cfg: the generated API config of a small inventory plus tenant frontend/backend
 * pairs until the file has 10,000 lines (bench:config lints it in process, bench:startup from the command line).
 */
import { generateHaproxyConfig } from '../src/core/generate/haproxy';
import type { Inventory } from '../src/core/inventory/types';

export const TARGET_LINES = 10_000;

export const inventory: Inventory = {
  cluster: { name: 'bench', kubernetesVersion: '1.31.2', controlPlaneEndpoint: '10.3.60.100:6443', podSubnet: '10.244.0.0/16', serviceSubnet: '10.96.0.0/12', cni: 'flannel' },
  ssh: {},
  hosts: [
    { name: 'lb', address: '10.3.60.50', roles: ['loadbalancer'], vrrp: { state: 'MASTER', priority: 100, interface: 'ens192' } },
    { name: 'm01', address: '10.3.60.51', roles: ['control-plane'] },
    { name: 'm02', address: '10.3.60.52', roles: ['control-plane'] },
    { name: 'm03', address: '10.3.60.53', roles: ['control-plane'] },
  ],
};

/** The generated API config plus many tenant frontend/backend pairs until the file has TARGET_LINES lines. */
export function bigConfig(): string {
  const lines = generateHaproxyConfig(inventory).trimEnd().split('\n');
  let i = 0;
  while (lines.length < TARGET_LINES) {
    const port = 10000 + (i % 50000);
    lines.push(
      '',
      `# tenant ${i}`,
      `frontend tenant-${i}`,
      `    bind 10.3.60.100:${port}`,
      '    mode tcp',
      '    option tcplog',
      `    default_backend tenant-${i}-pool`,
      '',
      `backend tenant-${i}-pool`,
      '    mode tcp',
      '    balance leastconn',
      '    option tcp-check',
      `    server app-${i}-a 10.4.${Math.floor(i / 200) % 256}.${i % 200 + 1}:8080 check inter 2s fall 3 rise 2`,
      `    server app-${i}-b 10.5.${Math.floor(i / 200) % 256}.${i % 200 + 1}:8080 check inter 2s fall 3 rise 2`,
    );
    i++;
  }
  return lines.slice(0, TARGET_LINES).join('\n') + '\n';
}
