/**
 * The seed's bring-up procedure as plans: prepare hosts → load balancer → init the first
 * control-plane node → join the other control-plane nodes one at a time → join workers in
 * parallel. Every step has a check that makes it a no-op when its effect is already there, so a
 * plan can be re-run or resumed at any point.
 */
import { createHash, X509Certificate } from 'node:crypto';
import { hostsWithRole, splitEndpoint, type HostSpec, type Inventory } from '../inventory/types';
import { and, raw, secret, sh, type RemoteCommand } from '../ssh/command';
import type { PhasePlan, Step, UploadFile } from '../plan/types';
import { aptSourceSteps } from './aptSources';
import type { PhaseConfigs, PhaseSources } from './configs';

const ADMIN = '/etc/kubernetes/admin.conf';
const KUBECTL = sh`kubectl --kubeconfig ${ADMIN}`;
// Our config files may be written before their package is installed: keep them (force-confold).
const APT = raw('DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 -o Dpkg::Options::=--force-confold -y -q');

function file(path: string, content: string, mode = 0o644, secretContent = false): UploadFile {
  return { path, content, mode, ...(secretContent ? { secret: true } : {}) };
}

/** Exits 0 when the file on the host has exactly this content (compared by SHA-256, computed here). */
export function sameContent(path: string, content: string): RemoteCommand {
  // Written as sha256:<hex> so that logs and the secret scanners read it as the public hash it is.
  const digest = `sha256:${createHash('sha256').update(content).digest('hex')}`;
  return sh`test "sha256:$(sha256sum < ${path} 2>/dev/null | cut -c1-64)" = ${digest}`;
}

function step(phase: Step['phase'], host: HostSpec, key: string, rest: Omit<Step, 'id' | 'phase' | 'host'>): Step {
  return { id: `${phase}/${host.name}/${key}`, phase, host: host.name, ...rest };
}

/** Debian package versions of the Kubernetes packages are `<version>-<revision>`. */
function pinned(inv: Inventory, pkg: string): string {
  return `${pkg}=${inv.cluster.kubernetesVersion}-*`;
}

export function nodesOf(inv: Inventory): HostSpec[] {
  return inv.hosts.filter((h) => h.roles.includes('control-plane') || h.roles.includes('worker'));
}

export function firstControlPlane(inv: Inventory): HostSpec {
  const cp = hostsWithRole(inv, 'control-plane')[0];
  if (!cp) throw new Error('the inventory has no control-plane host');
  return cp;
}

// ---------------------------------------------------------------- prepare

export function preparePhase(inv: Inventory, configs: PhaseConfigs, sources: PhaseSources): PhasePlan {
  const steps: Step[] = [];
  for (const host of nodesOf(inv)) {
    const s = (key: string, rest: Omit<Step, 'id' | 'phase' | 'host'>): number => steps.push(step('prepare', host, key, rest));
    s('swap', {
      title: 'Turn swap off now and at boot',
      why: 'kubelet refuses to run with swap on by default, and swapping breaks memory guarantees.',
      check: sh`test "$(awk 'NR>1' /proc/swaps | wc -l)" -eq 0 && ! grep -Eq '^[^#].*[[:space:]]swap[[:space:]]' /etc/fstab`,
      run: sh`swapoff -a && sed -i.kubeadm-workbench.bak -E '/^[^#].*[[:space:]]swap[[:space:]]/s/^/#/' /etc/fstab`,
      verify: sh`test "$(awk 'NR>1' /proc/swaps | wc -l)" -eq 0`,
    });
    s('modules', {
      title: 'Load overlay and br_netfilter now and at boot',
      why: 'containerd needs overlayfs; br_netfilter makes bridged pod traffic visible to iptables.',
      files: [file('/etc/modules-load.d/k8s.conf', configs.modules)],
      // A module built into the kernel cannot be modprobed; its presence is what counts.
      run: sh`(modprobe overlay || grep -qw overlay /proc/filesystems) && (modprobe br_netfilter || test -d /proc/sys/net/bridge)`,
      verify: sh`grep -qw overlay /proc/filesystems && test -d /proc/sys/net/bridge`,
    });
    s('sysctl', {
      title: 'Bridge netfilter and IP forwarding',
      why: 'Pods on the bridge must pass through iptables and the node must route between pods and Services.',
      files: [file('/etc/sysctl.d/99-kubernetes-cri.conf', configs.nodeSysctl)],
      // Only our file: another file's key the host refuses (containers) must not fail this step.
      run: sh`sysctl -q -p /etc/sysctl.d/99-kubernetes-cri.conf`,
      verify: sh`test "$(sysctl -n net.ipv4.ip_forward)" = 1 && test "$(sysctl -n net.bridge.bridge-nf-call-iptables)" = 1`,
    });
    const sourceSteps = aptSourceSteps(sources);
    if (sourceSteps.files.length) s('apt-sources', { title: 'Package sources', files: sourceSteps.files, run: and(...sourceSteps.keys, sh`${APT} update`) });
    s('containerd', {
      title: 'containerd with SystemdCgroup and the right sandbox image',
      why: 'kubelet uses the systemd cgroup driver; containerd must too, or the node is unstable under memory pressure.',
      check: and(sh`systemctl is-active -q containerd`, sameContent('/etc/containerd/config.toml', configs.containerdConfig)),
      files: [file('/etc/containerd/config.toml', configs.containerdConfig), ...Object.entries(configs.containerdHosts).map(([p, c]) => file(p, c))],
      // Recommends (criu, python3) are not what a node needs: leaving them out saves ~36 MB and time per node.
      run: and(sh`dpkg -s containerd >/dev/null 2>&1 || ${APT} install --no-install-recommends containerd runc`, sh`systemctl enable -q containerd && systemctl restart containerd`),
      verify: sh`systemctl is-active -q containerd && test -S /run/containerd/containerd.sock`,
      verifyTimeoutMs: 30_000,
    });
    s('kube-packages', {
      title: `kubeadm, kubelet and kubectl ${inv.cluster.kubernetesVersion}, held`,
      why: 'All nodes run the same pinned version; a held package is never upgraded by a routine apt upgrade.',
      check: sh`test "$(dpkg-query -W -f='${raw('${Version}')}' kubeadm 2>/dev/null | cut -d- -f1)" = ${inv.cluster.kubernetesVersion} && apt-mark showhold | grep -qx kubeadm`,
      run: and(
        sh`${APT} install --no-install-recommends --allow-downgrades --allow-change-held-packages ${pinned(inv, 'kubelet')} ${pinned(inv, 'kubeadm')} ${pinned(inv, 'kubectl')}`,
        sh`apt-mark hold kubelet kubeadm kubectl >/dev/null`,
        sh`systemctl enable kubelet >/dev/null 2>&1`,
      ),
      verify: sh`kubeadm version -o short | grep -qx ${'v' + inv.cluster.kubernetesVersion}`,
      timeoutMs: 15 * 60_000,
    });
  }
  return { phase: 'prepare', title: 'Prepare hosts', order: 'parallel', steps, warnings: [] };
}

// ---------------------------------------------------------------- load balancer

export function loadBalancerPhase(inv: Inventory, configs: PhaseConfigs, sources: PhaseSources): PhasePlan {
  const endpoint = splitEndpoint(inv.cluster.controlPlaneEndpoint)!;
  const steps: Step[] = [];
  const balancers = hostsWithRole(inv, 'loadbalancer');
  for (const host of balancers) {
    const keepalived = configs.keepalivedConfig[host.name];
    if (!keepalived) throw new Error(`no keepalived.conf was generated for ${host.name}`);
    const sourceSteps = aptSourceSteps(sources);
    if (sourceSteps.files.length) {
      steps.push(step('loadbalancer', host, 'apt-sources', { title: 'Package sources', files: sourceSteps.files, run: and(...sourceSteps.keys, sh`${APT} update`) }));
    }
    steps.push(
      step('loadbalancer', host, 'packages', {
        title: 'HAProxy, Keepalived and killall',
        check: sh`dpkg -s haproxy keepalived psmisc >/dev/null 2>&1`,
        run: sh`${APT} install --no-install-recommends haproxy keepalived psmisc`,
      }),
      step('loadbalancer', host, 'nonlocal-bind', {
        title: 'Allow binding the VIP before it is up (ip_nonlocal_bind)',
        why: 'HAProxy may start before Keepalived brings the VIP up; without non-local bind it crash-loops at boot.',
        files: [file('/etc/sysctl.d/99-haproxy-vip.conf', configs.balancerSysctl)],
        run: sh`sysctl -q -p /etc/sysctl.d/99-haproxy-vip.conf`,
        verify: sh`test "$(sysctl -n net.ipv4.ip_nonlocal_bind)" = 1`,
      }),
      step('loadbalancer', host, 'haproxy', {
        title: `HAProxy in TCP mode on ${endpoint.host}:${endpoint.port}`,
        files: [file('/etc/haproxy/haproxy.cfg.kubeadm-workbench', configs.haproxyConfig)],
        // Validate with the real parser before replacing the running config.
        run: sh`haproxy -c -q -f /etc/haproxy/haproxy.cfg.kubeadm-workbench && mv /etc/haproxy/haproxy.cfg.kubeadm-workbench /etc/haproxy/haproxy.cfg && systemctl enable -q haproxy && systemctl restart haproxy`,
        verify: sh`systemctl is-active -q haproxy && ss -Hltn | grep -q ${`${endpoint.host}:${endpoint.port}`}`,
        verifyTimeoutMs: 15_000,
      }),
      step('loadbalancer', host, 'keepalived', {
        title: `Keepalived ${host.vrrp?.state ?? ''} holding ${endpoint.host}`.trim(),
        // It holds the cluster's VRRP password: shown as secret content, like every secret file.
        files: [file('/etc/keepalived/keepalived.conf.kubeadm-workbench', keepalived, 0o640, true)],
        // Validate with the real parser before replacing the running config, as for HAProxy.
        run: sh`keepalived -t -f /etc/keepalived/keepalived.conf.kubeadm-workbench && mv /etc/keepalived/keepalived.conf.kubeadm-workbench /etc/keepalived/keepalived.conf && systemctl enable -q keepalived && systemctl restart keepalived`,
        verify: sh`systemctl is-active -q keepalived`,
        verifyTimeoutMs: 15_000,
      }),
    );
  }
  const master = balancers.find((b) => b.vrrp?.state === 'MASTER') ?? balancers[0];
  if (master) {
    steps.push(step('loadbalancer', master, 'vip', {
      title: `VIP ${endpoint.host} is up on the MASTER and ${endpoint.port} listens`,
      why: 'The seed checks `ip a` for the VIP as a secondary address and `ss -tlnp` for HAProxy on it.',
      verify: sh`ip -o -4 addr show | grep -q ${` ${endpoint.host}/`} && ss -Hltn | grep -q ${`${endpoint.host}:${endpoint.port}`}`,
      verifyTimeoutMs: 30_000,
    }));
  }
  // The balancers share no host with the nodes: they are set up while the nodes are prepared.
  return { phase: 'loadbalancer', title: 'Load balancer (HAProxy + Keepalived VIP)', order: 'parallel', steps, warnings: [], alongsidePrevious: true };
}

// ---------------------------------------------------------------- init

export interface InitHooks {
  /** Merges the cluster's admin.conf into the user's kubeconfig (0600, a new context). */
  saveAdminKubeconfig(adminConf: string): Promise<void>;
}

export function initPhase(inv: Inventory, configs: PhaseConfigs, sources: PhaseSources, hooks: InitHooks): PhasePlan {
  const first = firstControlPlane(inv);
  const ignore = sources.ignorePreflightErrors?.length ? sh` --ignore-preflight-errors=${sources.ignorePreflightErrors.join(',')}` : sh``;
  const steps: Step[] = [
    step('init', first, 'no-kubeadm-running', {
      title: `No kubeadm of an interrupted run still running on ${first.name}`,
      why: 'A run killed mid-init leaves its kubeadm running on the host; judging or resetting the node beside it would race it.',
      check: sh`! pgrep -x kubeadm >/dev/null`,
      run: waitForKubeadmToExit(first),
    }),
    step('init', first, 'kubeadm-init', {
      title: 'kubeadm init --upload-certs',
      why: '--upload-certs puts the CA and keys, encrypted, into a Secret so the other control-plane nodes can join without copying /etc/kubernetes/pki by hand.',
      // admin.conf is written early in init: done means the last phase (the CoreDNS add-on) is there too.
      check: initFinished(),
      files: [file('/root/kubeadm-config.yaml', configs.kubeadmInitConfig, 0o600)],
      run: sh`${resetInterruptedInit(first)} && kubeadm init --config /root/kubeadm-config.yaml --upload-certs${ignore}`,
      // The key init used to upload the certificates: the control-plane joins of this run use it
      // instead of uploading them again (10 s). Secret: never in the ledger, shown as ***.
      capture: (out): Record<string, string> => {
        const key = /--certificate-key\s+([0-9a-f]{64})\b/.exec(out)?.[1] ?? /Using certificate key:\s+([0-9a-f]{64})\b/.exec(out)?.[1];
        return key ? { certificateKey: key, certificateKeyAt: String(Date.now()) } : {};
      },
      secretCaptures: ['certificateKey'],
      timeoutMs: 10 * 60_000,
    }),
    step('init', first, 'admin-kubeconfig', {
      title: 'Fetch admin.conf into your kubeconfig (0600, new context)',
      run: sh`cat ${ADMIN}`,
      capture: (out) => ({ adminConf: out }),
      secretCaptures: ['adminConf'],
      action: async (values) => hooks.saveAdminKubeconfig(values.get('adminConf')!),
    }),
    step('init', first, 'cni', {
      title: `Apply the ${inv.cluster.cni} network`,
      why: 'Nodes stay NotReady and CoreDNS Pending until a CNI plugin routes the pod network.',
      ...(sources.cniManifestUrl ? {} : { files: [file('/root/cni.yaml', sources.cniManifest)] }),
      run: sh`${KUBECTL} apply -f ${sources.cniManifestUrl ?? '/root/cni.yaml'}`,
    }),
    // Joins need the API, not a Ready first node: Ready and CoreDNS are checked once, at the end
    // (the cluster checks), while the other nodes join — as the seed's procedure does.
    step('init', first, 'api-ready', {
      title: 'The API server answers /readyz',
      verify: sh`${KUBECTL} get --raw=/readyz --request-timeout=10s`,
      verifyTimeoutMs: 2 * 60_000,
    }),
  ];
  return { phase: 'init', title: `Initialise the first control-plane node (${first.name})`, order: 'serial', steps, warnings: [] };
}

// ---------------------------------------------------------------- join

/** `sha256:<hex>` of the CA's SubjectPublicKeyInfo — what `--discovery-token-ca-cert-hash` pins. */
export function caCertHash(pem: string): string {
  const cert = new X509Certificate(pem);
  const spki = cert.publicKey.export({ type: 'spki', format: 'der' });
  return `sha256:${createHash('sha256').update(spki).digest('hex')}`;
}

function tokenStep(inv: Inventory, phase: Step['phase'], withCertificateKey: boolean): Step[] {
  const first = firstControlPlane(inv);
  const steps: Step[] = [
    step(phase, first, 'ca-hash', {
      title: 'Compute the CA hash from the CA certificate (here, not on the host)',
      shared: true,
      run: sh`cat /etc/kubernetes/pki/ca.crt`,
      capture: (out) => ({ caHash: caCertHash(out) }),
    }),
    step(phase, first, 'token', {
      title: 'A fresh bootstrap token valid for 30 minutes',
      shared: true,
      why: 'A short-lived token limits what a leaked join command can do.',
      // Then wait (30 s at most) until the controller-manager has signed cluster-info with it: kubeadm's
      // discovery would otherwise find no signature right after init and retry only every 5 s.
      run: sh`t=$(kubeadm token create --ttl 30m) || exit 1; id=$(printf '%s' "$t" | cut -d. -f1); i=0; while [ $i -lt 60 ] && ! ${KUBECTL} -n kube-public get configmap cluster-info -o ${'jsonpath={.data.jws-kubeconfig-'}"$id"${'}'} --request-timeout=5s 2>/dev/null | grep -q .; do i=$((i+1)); sleep 0.5; done; printf '%s\n' "$t"`,
      capture: (out) => ({ token: out.trim().split('\n').pop()!.trim() }),
      secretCaptures: ['token'],
    }),
  ];
  if (withCertificateKey) {
    steps.push(step(phase, first, 'certificate-key', {
      title: 'Re-upload the control-plane certificates with a fresh key (valid 2 hours)',
      shared: true,
      why: 'The kubeadm-certs Secret expires after two hours; a fresh upload guarantees the join finds it.',
      run: sh`kubeadm init phase upload-certs --upload-certs`,
      // init uploaded them minutes ago in this run: its key is good for two hours (an hour is kept as margin).
      skipWhen: (values) => values.get('certificateKey') !== undefined && Date.now() - Number(values.get('certificateKeyAt') ?? 0) < 60 * 60_000,
      capture: (out) => ({ certificateKey: out.trim().split('\n').pop()!.trim() }),
      secretCaptures: ['certificateKey'],
    }));
  }
  return steps;
}

function joinCommand(inv: Inventory, host: HostSpec, controlPlane: boolean, ignore: string[] | undefined) {
  return (values: { get(k: string): string | undefined }): RemoteCommand => {
    const common = sh`kubeadm join ${inv.cluster.controlPlaneEndpoint} --token ${secret(values.get('token')!)} --discovery-token-ca-cert-hash ${values.get('caHash')!} --node-name ${host.name}`;
    const cp = controlPlane ? sh` --control-plane --certificate-key ${secret(values.get('certificateKey')!)} --apiserver-advertise-address ${host.address}` : sh``;
    const ig = ignore?.length ? sh` --ignore-preflight-errors=${ignore.join(',')}` : sh``;
    return sh`${common}${cp}${ig}`;
  };
}

/**
 * `retry CMD...`: up to 10 tries, 3 s apart. After an interrupted join the VIP may still send a request to
 * the half-joined node's API server (until HAProxy's health check drops it), which then fails.
 */
const RETRY = raw('retry() { n=1; until "$@"; do [ $n -ge 10 ] && return 1; n=$((n+1)); sleep 3; done; };');

/**
 * kubeadm reset empties /var/lib/etcd before it stops the kubelet and removes the containers, so the etcd
 * of an interrupted join or init can write into it again meanwhile (seen on the lab: the next join's
 * preflight found /var/lib/etcd not empty). Once reset has removed the containers, nothing writes there.
 */
const RESET = raw('kubeadm reset -f && { test ! -d /var/lib/etcd || find /var/lib/etcd -mindepth 1 -delete; }');

/** Files an earlier (interrupted) join or init leaves, any of which makes kubeadm's preflight refuse. */
function leftovers(): RemoteCommand {
  return sh`{ test -e /etc/kubernetes/kubelet.conf || test -e /etc/kubernetes/bootstrap-kubelet.conf || test -e /etc/kubernetes/pki/ca.crt || test -n "$(ls -A /etc/kubernetes/manifests 2>/dev/null)"; }`;
}

/** Exits 0 when the API lists `host` with the control-plane label (kubeadm sets it after etcd has joined). */
function isControlPlaneNode(host: HostSpec): RemoteCommand {
  return sh`${KUBECTL} get nodes -l node-role.kubernetes.io/control-plane -o name --request-timeout=15s | grep -qx ${'node/' + host.name}`;
}

/**
 * Waits (5 min at most) until no kubeadm runs on the host: one left by a killed run ends on its own
 * (it finishes, or dies writing to the closed connection) and its result is what the check sees next.
 */
function waitForKubeadmToExit(host: HostSpec): RemoteCommand {
  return sh`i=0; while pgrep -x kubeadm >/dev/null; do if [ $i -ge 300 ]; then echo ${`${host.name}: a kubeadm is still running after 5 minutes:`} $(pgrep -ax kubeadm) >&2; exit 1; fi; sleep 1; i=$((i+1)); done`;
}

/** Exits 0 when init ran to its end: admin.conf and the add-ons, its last phase, through the API. */
function initFinished(): RemoteCommand {
  return sh`test -f ${ADMIN} && ${KUBECTL} -n kube-system get deployment coredns -o name --request-timeout=15s >/dev/null 2>&1`;
}

/**
 * Before init: what an init killed midway left (certificates, manifests, a half-set-up API) is reset so
 * init can run again — but never a cluster that works: once etcd holds data, not when the API cannot be
 * asked (it may only be restarting), not when init in fact finished, and not when any other node has joined.
 */
function resetInterruptedInit(first: HostSpec): RemoteCommand {
  const unknown = `${first.name}: an earlier init left admin.conf here, and the API does not answer; not resetting a cluster that may be working`;
  const joined = `${first.name}: other nodes have joined this cluster; an interrupted init cannot be redone by resetting it`;
  // Without etcd data on this stacked-etcd node there is no cluster to lose (init was killed before etcd
  // ever ran): reset. With it, the API must say that init did not finish and that nobody else has joined.
  const decide = sh`if test -f ${ADMIN} && test -d /var/lib/etcd/member; then ${RETRY} retry ${KUBECTL} get --raw=/readyz --request-timeout=10s >/dev/null || { echo ${unknown} >&2; exit 1; }; if ${initFinished()}; then echo ${`${first.name} is initialised already`}; exit 0; fi; others=$(${KUBECTL} get nodes -o name --request-timeout=15s | grep -vx ${'node/' + first.name}); if test -n "$others"; then echo ${joined} >&2; exit 1; fi; fi`;
  return sh`{ ! { test -e ${ADMIN} || ${leftovers()}; } || { ${decide} && ${RESET}; }; }`;
}

/**
 * Before a control-plane join: what an interrupted join left on the host is reset. Its etcd member and
 * Node were removed by the step before (forgetInterruptedJoin): kubeadm reset wipes etcd's data, and a
 * member still in the cluster without its data can cost the quorum. Only when the API says the host is
 * not a control-plane node: when the API cannot be asked, a working node is never reset on a guess.
 */
function resetInterruptedControlPlaneJoin(host: HostSpec): RemoteCommand {
  const unknown = `${host.name}: an earlier join left files here, and the API cannot tell whether ${host.name} finished joining; not resetting it`;
  const cleanup = and(
    sh`if test -f ${ADMIN}; then ${RETRY} nodes=$(retry ${KUBECTL} get nodes -l node-role.kubernetes.io/control-plane -o name --request-timeout=15s) || { echo ${unknown} >&2; exit 1; }; if echo "$nodes" | grep -qx ${'node/' + host.name}; then echo ${`${host.name} is already a control-plane node`}; exit 0; fi; fi`,
    sh`${RESET}`,
  );
  return sh`{ ! ${leftovers()} || { ${cleanup}; }; }`;
}

/**
 * What an interrupted join of `host` left in the cluster, removed from the first control-plane node
 * while etcd still has its quorum: the host's etcd member (unstarted, a learner, or a voter that the
 * killed run's kubeadm went on to promote) and its Node (kubeadm join refuses a name whose Node is
 * Ready). Never for a host the API lists as a control-plane node (kubeadm labels it once its etcd member
 * has joined): a member of a finished join whose host is down is for a human to decide.
 */
function forgetInterruptedJoin(host: HostSpec, etcdctl: (cmd: string) => RemoteCommand): { check: RemoteCommand; run: RemoteCommand } {
  const node = 'node/' + host.name;
  const peer = `https://${host.address}:2380`;
  const controlPlanes = sh`${KUBECTL} get nodes -l node-role.kubernetes.io/control-plane -o name --request-timeout=15s`;
  return {
    // Skipped when the host is a control-plane node, or nothing of it is in etcd or among the Nodes.
    check: sh`cps=$(${controlPlanes}) && all=$(${KUBECTL} get nodes -o name --request-timeout=15s) && members=$(${etcdctl('member list')}) && { echo "$cps" | grep -qx ${node} || { ! echo "$members" | grep -qF ${peer} && ! echo "$all" | grep -qx ${node}; }; }`,
    run: sh`${RETRY} cps=$(retry ${controlPlanes}) || { echo ${`cannot ask the API whether ${host.name} is a control-plane node; nothing removed`} >&2; exit 1; }; if echo "$cps" | grep -qx ${node}; then echo ${`${host.name} is a control-plane node: nothing to remove`}; exit 0; fi; members=$(retry ${etcdctl('member list')}) || exit 1; for id in $(echo "$members" | grep -F ${peer} | cut -d, -f1); do retry ${etcdctl('member remove')} "$id" || exit 1; done; retry ${KUBECTL} delete ${node} --ignore-not-found --request-timeout=15s`,
  };
}

/**
 * Before a worker join: a kubeadm of a killed run is waited for (when it finished, kubelet.conf is
 * there and nothing is left to do), then what it left is reset. kubelet.conf is a worker's last file, and
 * the check already found it missing, so no joined worker is reset here.
 */
function resetInterruptedWorkerJoin(host: HostSpec): RemoteCommand {
  return sh`${waitForKubeadmToExit(host)}; if test -f /etc/kubernetes/kubelet.conf; then echo ${`${host.name} has joined (an earlier kubeadm finished)`}; exit 0; fi; { ! ${leftovers()} || kubeadm reset -f; }`;
}

export function joinControlPlanePhase(inv: Inventory, sources: PhaseSources): PhasePlan {
  const first = firstControlPlane(inv);
  const others = hostsWithRole(inv, 'control-plane').filter((h) => h.name !== first.name);
  const etcdctl = (cmd: string) =>
    sh`${KUBECTL} -n kube-system exec ${'etcd-' + first.name} -- etcdctl --endpoints=https://127.0.0.1:2379 --cacert=/etc/kubernetes/pki/etcd/ca.crt --cert=/etc/kubernetes/pki/etcd/server.crt --key=/etc/kubernetes/pki/etcd/server.key ${raw(cmd)}`;
  const steps: Step[] = [...tokenStep(inv, 'join-control-plane', true)];
  for (const host of others) {
    steps.push(
      step('join-control-plane', host, 'no-kubeadm-running', {
        title: `No kubeadm of an interrupted run still running on ${host.name}`,
        why: 'A run killed mid-join leaves its kubeadm running on the host (nothing hangs it up); cleaning up etcd beside it would race it.',
        check: sh`! pgrep -x kubeadm >/dev/null`,
        run: waitForKubeadmToExit(host),
      }),
      step('join-control-plane', first, `forget-partial-${host.name}`, {
        title: `Remove what an interrupted join of ${host.name} left in the cluster (its etcd member, its Node)`,
        about: host.name,
        why: 'A join killed after adding its etcd member leaves a member whose data the next join wipes: it leaves etcd first, or two voting members of two become one and the quorum is lost.',
        ...forgetInterruptedJoin(host, etcdctl),
      }),
      step('join-control-plane', host, 'join', {
        title: `kubeadm join --control-plane (${host.name})`,
        // kubelet.conf alone is not enough: it is written before the etcd member is added and promoted,
        // so a join killed there would be skipped. The control-plane label is set once etcd is done.
        check: and(sh`test -f /etc/kubernetes/kubelet.conf`, isControlPlaneNode(host)),
        run: (values) => sh`${resetInterruptedControlPlaneJoin(host)} && ${joinCommand(inv, host, true, sources.ignorePreflightErrors)(values)}`,
        planDisplay: `${resetInterruptedControlPlaneJoin(host).display} && kubeadm join ${inv.cluster.controlPlaneEndpoint} --token *** --discovery-token-ca-cert-hash sha256:<from the CA> --node-name ${host.name} --control-plane --certificate-key *** --apiserver-advertise-address ${host.address}`,
        timeoutMs: 10 * 60_000,
      }),
      step('join-control-plane', first, `etcd-healthy-${host.name}`, {
        title: `etcd member ${host.name} joined and every member is healthy`,
        about: host.name,
        why: 'Join the next node only when etcd is healthy again: two unhealthy members of three is a lost quorum.',
        // A learner that was never promoted is listed as started too: only a voting member (isLearner false) counts.
        verify: and(sh`${etcdctl('member list')} | grep -F ${`, started, ${host.name}, `} | grep -q ', false$'`, etcdctl('endpoint health --cluster')),
        verifyTimeoutMs: 3 * 60_000,
      }),
    );
  }
  // Ready needs the CNI running on the node, which quorum does not: the next join waits for a healthy
  // etcd only, and every joined node's Ready is checked once they have all joined.
  for (const host of others) {
    steps.push(
      step('join-control-plane', first, `ready-${host.name}`, {
        title: `${host.name} is Ready`,
        about: host.name,
        verify: sh`${KUBECTL} wait --for=condition=Ready ${'node/' + host.name} --timeout=10s`,
        verifyTimeoutMs: 5 * 60_000,
      }),
    );
  }
  const warnings = others.length
    ? [`While ${others[0]!.name} joins, etcd has two members and a quorum of two: it tolerates no failure until the third member is healthy. Do not touch ${first.name} during this window.`]
    : [];
  return { phase: 'join-control-plane', title: 'Join the other control-plane nodes, one at a time', order: 'serial', steps, warnings };
}

export function joinWorkersPhases(inv: Inventory, sources: PhaseSources): PhasePlan[] {
  const first = firstControlPlane(inv);
  const workers = hostsWithRole(inv, 'worker').filter((h) => !h.roles.includes('control-plane'));
  if (workers.length === 0) return [];
  const joins = workers.map((host) =>
    step('join-workers', host, 'join', {
      title: `kubeadm join (${host.name})`,
      check: sh`test -f /etc/kubernetes/kubelet.conf`,
      // kubelet.conf is a worker's last file: without it, what an interrupted join left is reset first.
      run: (values) => sh`${resetInterruptedWorkerJoin(host)} && ${joinCommand(inv, host, false, sources.ignorePreflightErrors)(values)}`,
      planDisplay: `${resetInterruptedWorkerJoin(host).display} && kubeadm join ${inv.cluster.controlPlaneEndpoint} --token *** --discovery-token-ca-cert-hash sha256:<from the CA> --node-name ${host.name}`,
      timeoutMs: 10 * 60_000,
    }),
  );
  const ready = workers.map((host) =>
    step('join-workers', first, `ready-${host.name}`, {
      title: `${host.name} is Ready`,
      about: host.name,
      verify: sh`${KUBECTL} wait --for=condition=Ready ${'node/' + host.name} --timeout=10s`,
      verifyTimeoutMs: 5 * 60_000,
    }),
  );
  return [
    { phase: 'join-workers', title: 'Join credentials for the workers', order: 'serial', steps: tokenStep(inv, 'join-workers', false), warnings: [] },
    { phase: 'join-workers', title: 'Join the workers in parallel', order: 'parallel', steps: joins, warnings: [] },
    { phase: 'join-workers', title: 'Workers Ready', order: 'serial', steps: ready, warnings: [] },
  ];
}

// ---------------------------------------------------------------- cluster checks

/** The seed's closing checks, once every node has joined: every node Ready, CoreDNS running. */
export function clusterChecksPhase(inv: Inventory): PhasePlan {
  const first = firstControlPlane(inv);
  const nodes = inv.hosts.filter((h) => h.roles.includes('control-plane') || h.roles.includes('worker'));
  return {
    phase: 'verify',
    title: 'Cluster checks',
    order: 'serial',
    warnings: [],
    steps: [
      ...nodes.filter((h) => h.labels && Object.keys(h.labels).length).map((h) =>
        step('verify', first, `labels-${h.name}`, {
          title: `Label ${h.name} (${Object.keys(h.labels!).join(', ')})`,
          about: h.name,
          why: 'The inventory\'s labels for this host; kubelet cannot set node-role labels on itself, so they are set through the API.',
          run: sh`${KUBECTL} label --overwrite ${'node/' + h.name} ${Object.entries(h.labels!).map(([k, v]) => `${k}=${v}`)} --request-timeout=15s`,
        }),
      ),
      step('verify', first, 'ready', {
        title: `Every node Ready (${nodes.length}) and CoreDNS running`,
        why: 'Nodes stay NotReady and CoreDNS Pending until the CNI routes the pod network on every node.',
        verify: and(sh`${KUBECTL} wait --for=condition=Ready ${nodes.map((h) => 'node/' + h.name)} --timeout=10s`, sh`${KUBECTL} -n kube-system wait --for=condition=Ready pod -l k8s-app=kube-dns --timeout=10s`),
        verifyTimeoutMs: 5 * 60_000,
      }),
    ],
  };
}
