/**
 * For the verbs' context tests: the example inventory moved to loopback with its VIP port closed (a refused
 * connection answers at once), and kubeconfigs whose contexts point wherever a test says (a placeholder token).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../../tempDir';

/** The example inventory at 127.0.0.x, its controlPlaneEndpoint 127.0.0.100:1: the file's path. */
export function loopbackInventory(): string {
  const file = join(tempDir('kw-loopback-inv-'), 'inventory.yaml');
  writeFileSync(file, readFileSync(join(__dirname, '../../../examples/labs-k8s/inventory.yaml'), 'utf8').replaceAll('10.3.60.', '127.0.0.').replace('127.0.0.100:6443', '127.0.0.100:1'));
  return file;
}

/** A kubeconfig (0600) with one context per entry of `contexts` (name → server) and `current` as its current-context. */
export function kubeconfigWith(current: string, contexts: Record<string, string>): string {
  const names = Object.keys(contexts);
  const file = join(tempDir('kw-loopback-kc-'), 'config');
  writeFileSync(file, [
    'apiVersion: v1', 'kind: Config', `current-context: ${current}`,
    'clusters:', ...names.map((n) => `  - { name: ${n}, cluster: { server: "${contexts[n]}" } }`),
    'users:', '  - { name: u, user: { token: not-a-real-token } }',
    'contexts:', ...names.map((n) => `  - { name: ${n}, context: { cluster: ${n}, user: u } }`),
  ].join('\n') + '\n', { mode: 0o600 });
  return file;
}
