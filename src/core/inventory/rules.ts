/**
 * Every rule the inventory loader reports, with its severity and why — the table hovers, SARIF and the
 * docs read. A finding whose rule is not here is a bug (a test walks random inventories to check it).
 */
import type { Severity } from '../findings';
import { ruleTable, type RuleRow } from '../lint/ruleTable';

const r = <const N extends string>(id: N, severity: Severity, title: string, why: string): RuleRow<`inventory/${N}`> => ({ id: `inventory/${id}`, severity, title, why });

export const INVENTORY = ruleTable([
  r('yaml-syntax', 'error', 'The file is valid YAML.', 'Nothing else can be checked until the YAML parses.'),
  r('too-large', 'error', 'The inventory is small enough to read safely.', 'A huge file would take the editor and the CLI seconds and gigabytes to parse; a real inventory is a few kilobytes.'),
  r('not-a-file', 'error', 'The inventory is a regular file.', 'A FIFO, device or socket named inventory.yaml would hang or feed the reader forever; it is refused unread.'),
  r('not-a-map', 'error', 'The inventory is a mapping with cluster, ssh and hosts.', 'Every command reads these three parts.'),
  r('missing-key', 'error', 'Required fields are present.', 'The generated files and the plan need every required field.'),
  r('type', 'error', 'Each field has the expected type.', 'A list where a value is expected (or the reverse) cannot be placed in a config file.'),
  r('not-a-string', 'error', 'A name or text field is read as the text written.', 'YAML reads name: 0x1F as the number 31, 010 as 10 and True as true: the node would silently get another name (or the field another value); quotes keep the text as written.'),
  r('unknown-key', 'warning', 'Every key is one the inventory knows.', 'A misspelt key is silently ignored otherwise.'),
  r('cluster-name', 'error', 'The cluster name is a DNS label.', 'It becomes kubeadm\'s clusterName and a kubeconfig context name.'),
  r('version', 'error', 'kubernetesVersion is a full version like 1.30.14.', 'kubeadm, kubelet and kubectl are pinned to this exact version.'),
  r('endpoint', 'error', 'controlPlaneEndpoint is IPv4-address-or-name:port.', 'It goes into kubeadm-config.yaml, haproxy.cfg, keepalived.conf and every join command.'),
  r('cidr', 'error', 'podSubnet and serviceSubnet are canonical IPv4 CIDRs in kubeadm\'s ranges.', 'kubeadm and the controller manager refuse other subnets after the nodes are prepared.'),
  r('cni', 'error', 'cni is a supported network plugin.', 'The plan applies its manifest after init.'),
  r('image-repository', 'error', 'imageRepository is registry[:port]/path.', 'It goes into kubeadm-config.yaml and the containerd sandbox image.'),
  r('registry', 'error', 'Each mirrored registry is host[:port].', 'The registry names a folder under /etc/containerd/certs.d on every node.'),
  r('mirror', 'error', 'Each mirror is host[:port] or an http(s) URL.', 'Mirrors are written into containerd\'s hosts.toml.'),
  r('apt-source', 'error', 'An apt source is one deb line whose signed-by keyring is in /etc/apt/keyrings or /usr/share/keyrings.', 'The key is written, as root, to the signed-by path.'),
  r('keyring-distribution', 'error', 'A downloaded key goes into a keyring of /etc/apt/keyrings, never /usr/share/keyrings.', '/usr/share/keyrings holds the keyrings packages install (debian-archive-keyring.gpg): writing a downloaded key over one replaces the keys apt trusts for the distribution on every node. On the node the keyring must also be new, or one this tool wrote (recorded in /var/lib/kubeadm-workbench/apt-keyrings).'),
  r('keyring-shared', 'error', 'Each apt source has its own keyring.', 'Two sources naming one keyring overwrite each other\'s key on every node, and each then trusts the other\'s signer.'),
  r('url', 'error', 'A URL is a plain http(s) URL.', 'The nodes download keys and manifests from it as root.'),
  r('plain-http', 'error', 'Keys and manifests come over https, or are pinned by their sha256.', 'An apt key is installed as root and the CNI manifest is applied with the cluster-admin kubeconfig: over plain http anyone on the path can hand the nodes another signing key or manifest. A mirror on a network you control pins the file with its sha256 field, which the node checks before using it.'),
  r('sha256', 'error', 'A pin is the SHA-256 of the file its URL names, 64 hex digits.', 'The node compares the download with it before it installs the key or applies the manifest; a pin without its file checks nothing.'),
  r('path', 'error', 'A local file is named relative to the inventory folder.', 'Files outside the workspace (/etc/passwd, ../secrets) must never be read and uploaded to the nodes.'),
  r('audit-log', 'error', 'apiServerAuditLog is true or false.', 'When true every control-plane node gets an audit policy (root, 0600) before kubeadm init/join and the API server is started with it; a "yes" or "1" is refused rather than guessed.'),
  r('preflight-check', 'error', 'ignorePreflightErrors are kubeadm check names.', 'They are passed to kubeadm init and join on the command line.'),
  r('ssh-user', 'error', 'The SSH user is a Unix user name.', 'It is the login user on every host.'),
  r('proxy-jump', 'error', 'proxyJump is [user@]host[:port] hops.', 'It is given to the SSH client.'),
  r('identity-file', 'error', 'identityFile is a plain path.', 'It is read by the SSH client on this machine.'),
  r('port', 'error', 'The SSH port is a TCP port.', 'A port outside 1–65535 cannot be connected to.'),
  r('host-name', 'error', 'A host name is a DNS-1123 subdomain.', 'The host name becomes the Kubernetes Node name, HAProxy\'s server name and Keepalived\'s router_id.'),
  r('address', 'error', 'A host address is a canonical unicast IPv4 address.', 'ssh and HAProxy read 10.3.60.051 as octal — another machine; IPv6 is not supported end to end; 0.0.0.0/8, 255.255.255.255, multicast (224.0.0.18 is VRRP\'s own group), reserved and link-local (169.254.0.0/16) addresses cannot be a host\'s own. Loopback is allowed (tests).'),
  r('role', 'error', 'Each role is loadbalancer, control-plane or worker.', 'The plan sets a host up by its roles.'),
  r('no-roles', 'error', 'Every host has a role the plan sets up.', 'A host with no role (or only etcd) would be silently left out of the plan.'),
  r('etcd-role', 'warning', 'etcd is a role of control-plane nodes only.', 'This tool builds stacked etcd on the control-plane nodes; a separate etcd host is not set up.'),
  r('vrrp-state', 'error', 'vrrp.state is MASTER or BACKUP.', 'Keepalived accepts no other state.'),
  r('range', 'error', 'VRRP numbers are in Keepalived\'s ranges.', 'virtual_router_id is 1–255 and priority 1–254; keepalived refuses other values.'),
  r('interface', 'error', 'vrrp.interface is a Linux interface name.', 'It is written into keepalived.conf.'),
  r('vrrp-role', 'warning', 'Only balancers have vrrp settings.', 'vrrp settings of other hosts are ignored.'),
  r('labels-not-node', 'warning', 'Only Kubernetes nodes have labels.', 'Labels are set on the Node object; a balancer that is not a node has none, so its labels would be silently ignored.'),
  r('label', 'error', 'Labels are Kubernetes label keys and values.', 'They are applied to the Node with kubectl label.'),
  r('duplicate-name', 'error', 'Every host has its own name.', 'Node names must be unique; a second kubeadm join with the same name replaces the first node.'),
  r('duplicate-address', 'error', 'Every host has its own address.', 'Two machines with one address break etcd peer URLs and the HAProxy backend.'),
  r('no-control-plane', 'error', 'At least one host has the control-plane role.', 'kubeadm init runs on the first control-plane host.'),
  r('even-control-plane', 'warning', 'The control plane has an odd number of nodes.', 'etcd needs a majority; 4 members tolerate 1 failure, exactly like 3.'),
  r('vrrp-master', 'error', 'Exactly one balancer is VRRP MASTER.', 'Keepalived elects by priority; two MASTERs with equal priority flap the VIP between them.'),
  r('endpoint-is-node', 'error', 'controlPlaneEndpoint is the VIP, not a control-plane node.', 'If the endpoint is a node address, the whole cluster stays tied to that node and loses its API when the node goes down.'),
  r('endpoint-is-host', 'error', 'controlPlaneEndpoint is the VIP, not a host\'s own address.', 'keepalived.conf claims the VIP for the balancers: a host that has it as its own address then shares it with them, and a second balancer cannot take over a host\'s own address.'),
  r('endpoint-no-balancer', 'warning', 'A VIP endpoint has load balancers to hold it.', 'Without a loadbalancer host the plan sets up no HAProxy or Keepalived; the endpoint must then be served from outside the inventory.'),
  r('endpoint-name', 'error', 'With load balancers, the endpoint is the VIP as an IPv4 address.', 'Keepalived puts the VIP on the interface and HAProxy binds it; a DNS name can do neither.'),
  r('vip-subnet', 'error', 'The VIP is in the balancers\' subnet.', 'Keepalived adds the VIP with the subnet\'s prefix; a VIP outside the balancers\' /16 would be added with a wrong, wide prefix and is unreachable.'),
  r('subnet-overlap', 'error', 'Pod and service subnets do not overlap.', 'Pod and Service addresses must never collide, or kube-proxy rules capture pod traffic.'),
  r('node-in-pod-subnet', 'error', 'No node address is inside the pod subnet.', 'Flannel routes the pod subnet through the VXLAN device; a node address inside it becomes unreachable.'),
  r('node-in-service-subnet', 'error', 'No node address is inside the service subnet.', 'kube-proxy captures every address of the service subnet in each node\'s iptables rules; traffic to a node address inside it goes to a Service instead.'),
  r('vip-in-cluster-subnet', 'error', 'The VIP is outside the pod and service subnets.', 'Every node routes those subnets to pods and Services: the API behind the VIP would be unreachable from the nodes themselves.'),
  r('vip-address', 'error', 'The VIP is a unicast address inside its subnet.', 'Keepalived adds the VIP with the balancers\' prefix: the subnet\'s network or broadcast address, a multicast, link-local, reserved or 0.0.0.0/8 address cannot be held by one host.'),
]);

export const INVENTORY_RULES = INVENTORY.rules;
export const INVENTORY_RULE_IDS: ReadonlySet<string> = INVENTORY.ids;
export type InventoryRuleId = Parameters<typeof INVENTORY.finding>[0];
export type InventoryRuleName = InventoryRuleId extends `inventory/${infer N}` ? N : never;
