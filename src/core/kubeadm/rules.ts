/** The kubeadm rules: id, severity, what, why (the seed's reasoning) and an upstream link. */
import type { Finding, Fix, Range, Severity } from '../findings';
import { ruleTable } from '../lint/ruleTable';
import { msg } from '../l10n';

const API_V4 = 'https://kubernetes.io/docs/reference/config-api/kubeadm-config.v1beta4/';
const HA = 'https://kubernetes.io/docs/setup/production-environment/tools/kubeadm/high-availability/';
const JOIN = 'https://kubernetes.io/docs/reference/setup-tools/kubeadm/kubeadm-join/';
const CGROUP = 'https://kubernetes.io/docs/tasks/administer-cluster/kubeadm/configure-cgroup-driver/';
const FLANNEL = 'https://github.com/flannel-io/flannel/blob/master/Documentation/kubernetes.md';
const MIGRATE = 'https://kubernetes.io/docs/reference/setup-tools/kubeadm/kubeadm-config/#cmd-config-migrate';

export const KUBEADM = ruleTable([
  { id: 'kubeadm/yaml-syntax', severity: 'error', title: msg('Every document is valid YAML.'), why: msg('kubeadm refuses the whole file when one document does not parse.'), docs: API_V4 },
  { id: 'kubeadm/not-a-map', severity: 'error', title: msg('Every document is a mapping with apiVersion and kind.'), why: msg('kubeadm decodes each document by its apiVersion and kind; anything else is rejected.'), docs: API_V4 },
  { id: 'kubeadm/missing-type-meta', severity: 'error', title: msg('Every document has apiVersion and kind.'), why: msg('Without apiVersion and kind kubeadm cannot tell which configuration a document is.'), docs: API_V4 },
  { id: 'kubeadm/unknown-api-version', severity: 'error', title: msg('apiVersion is one kubeadm reads.'), why: msg('kubeadm rejects unknown or removed API versions before doing anything.'), docs: API_V4, fixes: ['edit'] },
  { id: 'kubeadm/unknown-kind', severity: 'error', title: msg("kind exists in the document's apiVersion."), why: msg('kubeadm rejects a kind its API group does not define.'), docs: API_V4, fixes: ['edit'] },
  { id: 'kubeadm/unknown-field', severity: 'error', title: msg('Every field exists in the upstream type.'), why: msg('kubeadm decodes strictly: an unknown (often misspelt) field fails `kubeadm init` and `kubeadm config validate`.'), docs: API_V4, fixes: ['edit'] },
  { id: 'kubeadm/duplicate-field', severity: 'error', title: msg('A field appears once per mapping.'), why: msg('kubeadm decodes strictly and rejects a repeated field; YAML would otherwise keep only one of the values.'), docs: API_V4 },
  { id: 'kubeadm/type', severity: 'error', title: msg('Every value has the type the field expects.'), why: msg('A number where a string is expected (e.g. `kubernetesVersion: 1.30`) fails strict decoding or silently changes the value.'), docs: API_V4 },
  { id: 'kubeadm/invalid-value', severity: 'error', title: msg('Enumerated fields use one of their allowed values.'), why: msg('kubeadm validation rejects values outside the enumeration.'), docs: API_V4 },
  { id: 'kubeadm/v1beta4-extra-args', severity: 'error', title: msg('v1beta4 extraArgs are a list of name/value pairs.'), why: msg('v1beta4 replaced the extraArgs string maps with `- name: x` / `value: y` lists (to allow repeated flags); a map no longer decodes.'), docs: API_V4, fixes: ['edit'] },
  { id: 'kubeadm/v1beta4-moved-field', severity: 'error', title: msg('v1beta3 fields that v1beta4 moved are not used.'), why: msg('v1beta4 moved `apiServer.timeoutForControlPlane` and `discovery.timeout` into `timeouts:`; the old fields no longer decode.'), docs: API_V4, fixes: ['edit'] },
  { id: 'kubeadm/api-version-deprecated', severity: 'warning', title: msg('kubeadm.k8s.io/v1beta3 is migrated to v1beta4 for Kubernetes ≥ 1.31.'), why: msg('kubeadm 1.31+ deprecates v1beta3 and will stop reading it; `kubeadm config migrate` does the same conversion.'), docs: MIGRATE, fixes: ['edit'] },
  { id: 'kubeadm/api-version-unsupported', severity: 'error', title: msg('v1beta4 is only used with kubeadm ≥ 1.31.'), why: msg('kubeadm before 1.31 does not know kubeadm.k8s.io/v1beta4 and refuses the file.'), docs: API_V4 },
  { id: 'kubeadm/mixed-api-versions', severity: 'error', title: msg('All kubeadm documents of a file use one API version.'), why: msg('kubeadm converts documents independently; mixing v1beta3 and v1beta4 usually hides half-migrated settings.'), docs: MIGRATE },
  { id: 'kubeadm/duplicate-kind', severity: 'error', title: msg('Each configuration kind appears once per file.'), why: msg('kubeadm keeps only one document of each kind; the other is silently ignored or rejected.'), docs: API_V4 },
  { id: 'kubeadm/init-and-join', severity: 'warning', title: msg('A file holds either InitConfiguration or JoinConfiguration.'), why: msg('`kubeadm init` ignores a JoinConfiguration and `kubeadm join` ignores an InitConfiguration, so one of them is dead text.'), docs: API_V4 },
  { id: 'kubeadm/control-plane-endpoint', severity: 'error', title: msg("controlPlaneEndpoint is the inventory's VIP:port, never a node."), why: msg('If the endpoint is a node address, the whole cluster stays tied to that node and loses its API when the node goes down, even while the other masters run.'), docs: HA, fixes: ['edit'] },
  { id: 'kubeadm/cert-sans', severity: 'error', title: msg('apiServer.certSANs cover the VIP, the balancer address(es) and every control-plane name and address.'), why: msg('Without them kubectl through the VIP fails with "x509: certificate is valid for 10.3.60.51, not 10.3.60.100".'), docs: HA, fixes: ['edit'] },
  { id: 'kubeadm/pod-subnet-cni', severity: 'error', title: msg("networking.podSubnet matches the CNI's network (flannel: 10.244.0.0/16 unless its manifest is changed)."), why: msg('Flannel hands out pod addresses from its net-conf.json Network; a different podSubnet leaves pods unroutable between nodes.'), docs: FLANNEL, fixes: ['edit'] },
  { id: 'kubeadm/service-subnet', severity: 'error', title: msg('networking.serviceSubnet agrees with the inventory.'), why: msg('Service IPs (including the cluster DNS address) come from this range; other tools and firewall rules derived from the inventory expect it.'), docs: API_V4, fixes: ['edit'] },
  { id: 'kubeadm/subnet-overlap', severity: 'error', title: msg('Pod, service and node networks do not overlap.'), why: msg('Overlapping ranges make kube-proxy and flannel capture traffic meant for nodes or pods.'), docs: HA },
  { id: 'kubeadm/kubernetes-version', severity: 'error', title: msg('kubernetesVersion agrees with the inventory.'), why: msg('The control plane must run the version the packages are pinned to; without one kubeadm fetches "stable" from the internet.'), docs: API_V4, fixes: ['edit'] },
  { id: 'kubeadm/image-repository', severity: 'warning', title: msg('imageRepository agrees with the inventory.'), why: msg('Air-gapped nodes can pull control-plane images only from the registry the inventory names.'), docs: API_V4, fixes: ['edit'] },
  { id: 'kubeadm/cluster-name', severity: 'info', title: msg('clusterName agrees with the inventory.'), why: msg('The cluster name ends up in kubeconfig contexts; a different one confuses which cluster a kubeconfig talks to.'), docs: API_V4, fixes: ['edit'] },
  { id: 'kubeadm/audit-log-dropped', severity: 'warning', title: msg('With cluster.apiServerAuditLog on, apiServer keeps the audit flags and their mounts.'), why: msg("A ClusterConfiguration of one's own (a kubeadmExtraConfig replaces the generated one whole) that drops --audit-policy-file, --audit-log-path or the mounts of /etc/kubernetes/audit and /var/log/kubernetes/audit leaves the API servers without the audit log the kubectl run timeline reads; the policy flag without its mount stops kube-apiserver from starting (an error then)."), docs: 'https://kubernetes.io/docs/tasks/debug/debug-cluster/audit/#log-backend', fixes: ['edit'] },
  { id: 'kubeadm/cgroup-driver', severity: 'error', title: msg('KubeletConfiguration uses cgroupDriver: systemd.'), why: msg('On systemd hosts two cgroup managers (systemd and cgroupfs) disagree on memory accounting, leading to OOM kills and NotReady nodes; containerd must use the same driver.'), docs: CGROUP, fixes: ['edit'] },
  { id: 'kubeadm/kube-proxy-cluster-cidr', severity: 'error', title: msg('KubeProxyConfiguration clusterCIDR equals podSubnet.'), why: msg('kube-proxy uses clusterCIDR to tell pod traffic from external traffic; a different range breaks masquerading.'), docs: API_V4, fixes: ['edit'] },
  { id: 'kubeadm/advertise-address', severity: 'error', title: msg("advertiseAddress is the node's own address."), why: msg("Each API server advertises its own address to the cluster (endpoints, etcd peers); the VIP or another node's address there breaks the control plane."), docs: HA, fixes: ['edit'] },
  { id: 'kubeadm/node-name', severity: 'warning', title: msg('nodeRegistration.name is an inventory host.'), why: msg('The Node name must match the inventory so later phases (drain, upgrade, certSANs) find the node.'), docs: API_V4 },
  { id: 'kubeadm/node-role', severity: 'error', title: msg('Init and control-plane joins run on control-plane hosts; worker joins on workers.'), why: msg('A control-plane join on a worker (or the reverse) builds a different topology than the inventory describes.'), docs: HA },
  { id: 'kubeadm/cri-socket', severity: 'warning', title: msg("nodeRegistration.criSocket is containerd's socket."), why: msg("The nodes run containerd; kubelet pointed at another runtime's socket (dockershim, cri-o) cannot start any pod."), docs: 'https://kubernetes.io/docs/setup/production-environment/container-runtimes/#containerd', fixes: ['edit'] },
  { id: 'kubeadm/token-format', severity: 'error', title: msg('Bootstrap tokens have the form [a-z0-9]{6}.[a-z0-9]{16}.'), why: msg('kubeadm rejects any other token format; the first part is the public id, the second the secret.'), docs: JOIN },
  { id: 'kubeadm/ca-cert-hash-format', severity: 'error', title: msg('caCertHashes are sha256:<64 hex>.'), why: msg('The joining node pins the cluster CA by this hash; a malformed hash makes discovery fail.'), docs: JOIN },
  { id: 'kubeadm/ca-cert-hash-missing', severity: 'error', title: msg('Token discovery pins the CA with caCertHashes.'), why: msg('Without a CA hash the joining node would trust any API server answering on the endpoint; kubeadm refuses unless verification is explicitly skipped.'), docs: JOIN },
  { id: 'kubeadm/unsafe-skip-ca', severity: 'warning', title: msg('CA verification is not skipped.'), why: msg('unsafeSkipCAVerification lets a man in the middle hand the node a forged cluster CA.'), docs: JOIN },
  { id: 'kubeadm/join-endpoint', severity: 'error', title: msg('Joins discover the cluster through the VIP:port.'), why: msg("Joining through one node's address ties the new node to that node; the VIP survives its failure."), docs: HA, fixes: ['edit'] },
  { id: 'kubeadm/join-certificate-key', severity: 'warning', title: msg('A control-plane join has controlPlane.certificateKey (or the --certificate-key flag).'), why: msg('The new control-plane node decrypts the uploaded CA and etcd keys (kubeadm-certs Secret, 2 hours) with this key; without it the join cannot get the cluster certificates.'), docs: JOIN },
  { id: 'kubeadm/certificate-key-format', severity: 'error', title: msg('certificateKey is 64 hex characters (an AES-256 key).'), why: msg('kubeadm decodes the key as 32 hex-encoded bytes; anything else fails decryption of the uploaded certificates.'), docs: JOIN },
  { id: 'kubeadm/too-large', severity: 'warning', title: msg('The file has few enough YAML documents to check.'), why: msg('A kubeadm configuration has a handful of documents; thousands are almost certainly not one, and checking them would stall the editor.') },
]);

export const KUBEADM_RULES = KUBEADM.rules;
export type KubeadmRuleId = Parameters<typeof KUBEADM.finding>[0];

export function finding(rule: KubeadmRuleId, message: string, range: Range, fixes?: Fix[], severity?: Severity): Finding {
  return KUBEADM.finding(rule, message, range, { fixes, severity });
}
