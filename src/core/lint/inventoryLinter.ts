/** inventory.yaml as a lintable file: the loader's findings are the rules. */
import { parseInventory } from '../inventory/parse';
import type { FileLinter } from './types';

export const inventoryLinter: FileLinter = {
  kind: 'inventory',
  rules: [
    { id: 'inventory/yaml-syntax', severity: 'error', title: 'The file is valid YAML.', why: 'Nothing else can be checked until the YAML parses.' },
    { id: 'inventory/endpoint-is-node', severity: 'error', title: 'controlPlaneEndpoint is the VIP, not a control-plane node.', why: 'If the endpoint is a node address, the whole cluster stays tied to that node and loses its API when the node goes down.' },
    { id: 'inventory/duplicate-address', severity: 'error', title: 'Every host has its own address.', why: 'Two machines with one address break etcd peer URLs and the HAProxy backend.' },
    { id: 'inventory/subnet-overlap', severity: 'error', title: 'Pod and service subnets do not overlap.', why: 'Pod and Service addresses must never collide, or kube-proxy rules capture pod traffic.' },
    { id: 'inventory/vrrp-master', severity: 'error', title: 'Exactly one balancer is VRRP MASTER.', why: 'Keepalived elects by priority; two MASTERs with equal priority flap the VIP between them.' },
  ],
  detect: (path) => /(^|[\\/])inventory\.ya?ml$/.test(path),
  lint: (file) => parseInventory(file.text).findings,
};
