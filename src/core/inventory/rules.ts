/**
 * Every rule the inventory loader reports, with its severity and why — the table hovers, SARIF and the
 * docs read. A finding whose rule is not here is a bug (a test walks random inventories to check it).
 */
import type { Severity } from '../findings';
import { ruleTable, type RuleRow } from '../lint/ruleTable';
import { msg, type Message } from '../l10n';

const r = <const N extends string>(id: N, severity: Severity, title: Message, why: Message): RuleRow<`inventory/${N}`> => ({ id: `inventory/${id}`, severity, title, why });

export const INVENTORY = ruleTable([
  r('yaml-syntax', 'error', msg('The file is valid YAML.'), msg('Nothing else can be checked until the YAML parses.')),
  r('too-large', 'error', msg('The inventory is small enough to read safely.'), msg('A huge file would take the editor and the CLI seconds and gigabytes to parse; a real inventory is a few kilobytes.')),
  r('not-a-file', 'error', msg('The inventory is a regular file.'), msg('A FIFO, device or socket named inventory.yaml would hang or feed the reader forever; it is refused unread.')),
  r('not-a-map', 'error', msg('The inventory is a mapping with cluster, ssh and hosts.'), msg('Every command reads these three parts.')),
  r('missing-key', 'error', msg('Required fields are present.'), msg('The generated files and the plan need every required field.')),
  r('type', 'error', msg('Each field has the expected type.'), msg('A list where a value is expected (or the reverse) cannot be placed in a config file.')),
  r('not-a-string', 'error', msg('A name or text field is read as the text written.'), msg('YAML reads name: 0x1F as the number 31, 010 as 10 and True as true: the node would silently get another name (or the field another value); quotes keep the text as written.')),
  r('unknown-key', 'warning', msg('Every key is one the inventory knows.'), msg('A misspelt key is silently ignored otherwise.')),
  r('cluster-name', 'error', msg('The cluster name is a DNS label.'), msg("It becomes kubeadm's clusterName and a kubeconfig context name.")),
  r('version', 'error', msg('kubernetesVersion is a full version like 1.30.14.'), msg('kubeadm, kubelet and kubectl are pinned to this exact version.')),
  r('endpoint', 'error', msg('controlPlaneEndpoint is IPv4-address-or-name:port.'), msg('It goes into kubeadm-config.yaml, haproxy.cfg, keepalived.conf and every join command.')),
  r('cidr', 'error', msg("podSubnet and serviceSubnet are canonical IPv4 CIDRs in kubeadm's ranges."), msg('kubeadm and the controller manager refuse other subnets after the nodes are prepared.')),
  r('cni', 'error', msg('cni is a supported network plugin.'), msg('The plan applies its manifest after init.')),
  r('image-repository', 'error', msg('imageRepository is registry[:port]/path.'), msg('It goes into kubeadm-config.yaml and the containerd sandbox image.')),
  r('registry', 'error', msg('Each mirrored registry is host[:port].'), msg('The registry names a folder under /etc/containerd/certs.d on every node.')),
  r('mirror', 'error', msg('Each mirror is host[:port] or an http(s) URL.'), msg("Mirrors are written into containerd's hosts.toml.")),
  r('apt-source', 'error', msg('An apt source is one deb line whose signed-by keyring is in /etc/apt/keyrings or /usr/share/keyrings.'), msg('The key is written, as root, to the signed-by path.')),
  r('keyring-distribution', 'error', msg('A downloaded key goes into a keyring of /etc/apt/keyrings, never /usr/share/keyrings.'), msg('/usr/share/keyrings holds the keyrings packages install (debian-archive-keyring.gpg): writing a downloaded key over one replaces the keys apt trusts for the distribution on every node. On the node the keyring must also be new, or one this tool wrote (recorded in /var/lib/kubeadm-workbench/apt-keyrings).')),
  r('keyring-shared', 'error', msg('Each apt source has its own keyring.'), msg("Two sources naming one keyring overwrite each other's key on every node, and each then trusts the other's signer.")),
  r('url', 'error', msg('A URL is a plain http(s) URL.'), msg('The nodes download keys and manifests from it as root.')),
  r('plain-http', 'error', msg('Keys and manifests come over https, or are pinned by their sha256.'), msg('An apt key is installed as root and the CNI manifest is applied with the cluster-admin kubeconfig: over plain http anyone on the path can hand the nodes another signing key or manifest. A mirror on a network you control pins the file with its sha256 field, which the node checks before using it.')),
  r('sha256', 'error', msg('A pin is the SHA-256 of the file its URL names, 64 hex digits.'), msg('The node compares the download with it before it installs the key or applies the manifest; a pin without its file checks nothing.')),
  r('path', 'error', msg('A local file is named relative to the inventory folder.'), msg('Files outside the workspace (/etc/passwd, ../secrets) must never be read and uploaded to the nodes.')),
  r('audit-log', 'error', msg('apiServerAuditLog is true or false.'), msg('When true every control-plane node gets an audit policy (root, 0600) before kubeadm init/join and the API server is started with it; a "yes" or "1" is refused rather than guessed.')),
  r('preflight-check', 'error', msg('ignorePreflightErrors are kubeadm check names.'), msg('They are passed to kubeadm init and join on the command line.')),
  r('ssh-user', 'error', msg('The SSH user is a Unix user name.'), msg('It is the login user on every host.')),
  r('proxy-jump', 'error', msg('proxyJump is [user@]host[:port] hops.'), msg('It is given to the SSH client.')),
  r('identity-file', 'error', msg('identityFile is a plain path.'), msg('It is read by the SSH client on this machine.')),
  r('port', 'error', msg('The SSH port is a TCP port.'), msg('A port outside 1–65535 cannot be connected to.')),
  r('host-name', 'error', msg('A host name is a DNS-1123 subdomain.'), msg("The host name becomes the Kubernetes Node name, HAProxy's server name and Keepalived's router_id.")),
  r('address', 'error', msg('A host address is a canonical unicast IPv4 address.'), msg("ssh and HAProxy read 10.3.60.051 as octal — another machine; IPv6 is not supported end to end; 0.0.0.0/8, 255.255.255.255, multicast (224.0.0.18 is VRRP's own group), reserved and link-local (169.254.0.0/16) addresses cannot be a host's own. Loopback is allowed (tests).")),
  r('role', 'error', msg('Each role is loadbalancer, control-plane or worker.'), msg('The plan sets a host up by its roles.')),
  r('no-roles', 'error', msg('Every host has a role the plan sets up.'), msg('A host with no role (or only etcd) would be silently left out of the plan.')),
  r('etcd-role', 'warning', msg('etcd is a role of control-plane nodes only.'), msg('This tool builds stacked etcd on the control-plane nodes; a separate etcd host is not set up.')),
  r('vrrp-state', 'error', msg('vrrp.state is MASTER or BACKUP.'), msg('Keepalived accepts no other state.')),
  r('range', 'error', msg("VRRP numbers are in Keepalived's ranges."), msg('virtual_router_id is 1–255 and priority 1–254; keepalived refuses other values.')),
  r('interface', 'error', msg('vrrp.interface is a Linux interface name.'), msg('It is written into keepalived.conf.')),
  r('vrrp-role', 'warning', msg('Only balancers have vrrp settings.'), msg('vrrp settings of other hosts are ignored.')),
  r('labels-not-node', 'warning', msg('Only Kubernetes nodes have labels.'), msg('Labels are set on the Node object; a balancer that is not a node has none, so its labels would be silently ignored.')),
  r('label', 'error', msg('Labels are Kubernetes label keys and values.'), msg('They are applied to the Node with kubectl label.')),
  r('duplicate-name', 'error', msg('Every host has its own name.'), msg('Node names must be unique; a second kubeadm join with the same name replaces the first node.')),
  r('duplicate-address', 'error', msg('Every host has its own address.'), msg('Two machines with one address break etcd peer URLs and the HAProxy backend.')),
  r('no-control-plane', 'error', msg('At least one host has the control-plane role.'), msg('kubeadm init runs on the first control-plane host.')),
  r('even-control-plane', 'warning', msg('The control plane has an odd number of nodes.'), msg('etcd needs a majority; 4 members tolerate 1 failure, exactly like 3.')),
  r('vrrp-master', 'error', msg('Exactly one balancer is VRRP MASTER.'), msg('Keepalived elects by priority; two MASTERs with equal priority flap the VIP between them.')),
  r('endpoint-is-node', 'error', msg('controlPlaneEndpoint is the VIP, not a control-plane node.'), msg('If the endpoint is a node address, the whole cluster stays tied to that node and loses its API when the node goes down.')),
  r('endpoint-is-host', 'error', msg("controlPlaneEndpoint is the VIP, not a host's own address."), msg("keepalived.conf claims the VIP for the balancers: a host that has it as its own address then shares it with them, and a second balancer cannot take over a host's own address.")),
  r('endpoint-no-balancer', 'warning', msg('A VIP endpoint has load balancers to hold it.'), msg('Without a loadbalancer host the plan sets up no HAProxy or Keepalived; the endpoint must then be served from outside the inventory.')),
  r('endpoint-name', 'error', msg('With load balancers, the endpoint is the VIP as an IPv4 address.'), msg('Keepalived puts the VIP on the interface and HAProxy binds it; a DNS name can do neither.')),
  r('vip-subnet', 'error', msg("The VIP is in the balancers' subnet."), msg("Keepalived adds the VIP with the subnet's prefix; a VIP outside the balancers' /16 would be added with a wrong, wide prefix and is unreachable.")),
  r('subnet-overlap', 'error', msg('Pod and service subnets do not overlap.'), msg('Pod and Service addresses must never collide, or kube-proxy rules capture pod traffic.')),
  r('node-in-pod-subnet', 'error', msg('No node address is inside the pod subnet.'), msg('Flannel routes the pod subnet through the VXLAN device; a node address inside it becomes unreachable.')),
  r('node-in-service-subnet', 'error', msg('No node address is inside the service subnet.'), msg("kube-proxy captures every address of the service subnet in each node's iptables rules; traffic to a node address inside it goes to a Service instead.")),
  r('vip-in-cluster-subnet', 'error', msg('The VIP is outside the pod and service subnets.'), msg('Every node routes those subnets to pods and Services: the API behind the VIP would be unreachable from the nodes themselves.')),
  r('vip-address', 'error', msg('The VIP is a unicast address inside its subnet.'), msg("Keepalived adds the VIP with the balancers' prefix: the subnet's network or broadcast address, a multicast, link-local, reserved or 0.0.0.0/8 address cannot be held by one host.")),
]);

export const INVENTORY_RULES = INVENTORY.rules;
export const INVENTORY_RULE_IDS: ReadonlySet<string> = INVENTORY.ids;
export type InventoryRuleId = Parameters<typeof INVENTORY.finding>[0];
export type InventoryRuleName = InventoryRuleId extends `inventory/${infer N}` ? N : never;
