/**
 * Stand-in for `undici` in the kube adapter bundle (esbuild alias). @kubernetes/client-node 2.x imports
 * undici 8, which needs Node ≥ 22.19 and breaks at load time on Node 20 (the CLI's and older VS Code
 * extension hosts' runtime). The adapter uses only KubeConfig (files, auth, TLS options) and Exec
 * (WebSocket); its own HTTPS transport does lists and watches — so undici is never needed.
 */
class NotBundled {
  constructor() {
    throw new Error('undici is not part of the kubeadm-workbench kube adapter');
  }
}
export const Agent = NotBundled;
export const ProxyAgent = NotBundled;
export function fetch(): never {
  throw new Error('undici is not part of the kubeadm-workbench kube adapter');
}
