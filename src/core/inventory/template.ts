/** The starting inventory for a new workspace: the seed's topology, to be edited to the user's addresses. */
export const INVENTORY_TEMPLATE = `# Cluster inventory: the single source of truth for kubeadm-workbench.
# Edit the addresses to match your machines; every config and phase is generated from this file.
cluster:
  name: labs-k8s
  kubernetesVersion: "1.30.14"
  controlPlaneEndpoint: 10.3.60.100:6443     # the Keepalived VIP on the load balancers, never a node address
  podSubnet: 10.244.0.0/16                   # flannel's default network
  serviceSubnet: 10.96.0.0/12
  cni: flannel
ssh: { user: root, port: 22, identityFile: ~/.ssh/id_ed25519 }
hosts:
  - { name: labs-k8s-balancer, address: 10.3.60.50, roles: [loadbalancer],
      vrrp: { state: MASTER, priority: 100, interface: ens192 } }
  - { name: labs-k8s-m01, address: 10.3.60.51, roles: [control-plane] }
  - { name: labs-k8s-m02, address: 10.3.60.52, roles: [control-plane] }
  - { name: labs-k8s-m03, address: 10.3.60.53, roles: [control-plane] }
  - { name: labs-k8s-w01, address: 10.3.60.54, roles: [worker] }
  - { name: labs-k8s-w02, address: 10.3.60.55, roles: [worker] }
`;
