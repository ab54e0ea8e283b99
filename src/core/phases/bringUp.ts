/**
 * The seed's bring-up procedure as plans: prepare hosts (and pull their images) beside the load
 * balancer → init the first control-plane node and its CNI → join the other control-plane nodes one
 * at a time, and beside them the workers in parallel (joins.ts). Every step has a check that asks the host whether its effect is there (and is then a
 * no-op), or says why it runs every time (`rerun`), so a plan can be re-run or resumed at any point
 * without trusting what an earlier run remembers.
 */
import { t } from '../l10n';
import { hostsWithRole, splitEndpoint, type Inventory } from '../inventory/types';
import { and, raw, sh } from '../ssh/command';
import { INSTALL_MARKER, WRITE_INSTALL_MARKER } from '../plan/hostIdentity';
import type { PhasePlan, Step } from '../plan/types';
import { aptSourceSteps, keyringInstalled } from './aptSources';
import { auditPolicyStep } from './auditPolicy';
import { imagePullStep } from './imagePull';
import { generateCrictlConfig } from '../generate/containerd';
import { all, packagesInstalled, sameContent, serviceConfigured, sourcesOffer, sysctlApplied, type OfferedPackage } from './checks';
import type { PhaseConfigs, PhaseSources } from './configs';
import { ADMIN, initFinished, KUBECTL, resetInterruptedInit, waitForKubeadmToExit } from './interrupted';
import { APT, file, firstControlPlane, GATE, nodesOf, pinned, step } from './steps';

export { sameContent } from './checks';
export { firstControlPlane, GATE, nodesOf } from './steps';
// The joins (token, control-plane joins one at a time, workers beside them) are in joins.ts.
export { caCertHash, joinControlPlanePhases, joinWorkersPhases, votingMemberHealthy } from './joins';

/**
 * The CNI manifest is applied with the admin kubeconfig: from the inventory's file (uploaded), from an https URL, or
 * from a URL pinned by its sha256 — downloaded to /root/cni.yaml first and applied only when its digest matches
 * (an http URL must be pinned: inventory/downloads.ts). `kubectl diff` asks the API (a server-side dry run): exit 0
 * when every object is there as the manifest says.
 */
function cniManifestStep(sources: PhaseSources): Pick<Step, 'files' | 'check' | 'run'> {
  const { cniManifestUrl: url, cniManifestSha256: pin } = sources;
  const diff = (ref: string) => sh`${KUBECTL} diff -f ${ref} >/dev/null 2>&1`;
  if (!url) return { files: [file('/root/cni.yaml', sources.cniManifest)], check: all(sameContent('/root/cni.yaml', sources.cniManifest), diff('/root/cni.yaml')), run: sh`${KUBECTL} apply -f /root/cni.yaml` };
  if (pin === undefined) {
    if (url.startsWith('http://')) throw new Error(t('the CNI manifest {0} is plain http without cniManifestSha256: it would be applied with the admin kubeconfig unchecked', url));
    return { check: diff(url), run: sh`${KUBECTL} apply -f ${url}` };
  }
  if (!/^[0-9a-f]{64}$/.test(pin)) throw new Error(t('cniManifestSha256 is not a SHA-256'));
  const pinned = sh`echo ${`${pin}  /root/cni.yaml`} | sha256sum -c --status`;
  const fetch = sh`u=${url}; curl -fsSL --retry 5 --retry-connrefused --retry-delay 2 -o /root/cni.yaml.kw-tmp "$u" && s=$(sha256sum < /root/cni.yaml.kw-tmp) && if [ "\${s%% *}" != ${pin} ]; then rm -f /root/cni.yaml.kw-tmp; echo "the CNI manifest from $u has sha256 \${s%% *}, not the one cniManifestSha256 pins:" ${pin} >&2; exit 1; fi && mv -f /root/cni.yaml.kw-tmp /root/cni.yaml`;
  return { check: all(pinned, diff('/root/cni.yaml')), run: and(fetch, sh`${KUBECTL} apply -f /root/cni.yaml`) };
}

// ---------------------------------------------------------------- prepare

/**
 * Source lists and their keys (aptSources.ts). Done when the lists have our content, the keyrings are
 * there and apt's lists offer what the host installs next from them (`debianPackages` from the Debian
 * source; the pinned Kubernetes packages from the Kubernetes one) — files alone are not enough: a host
 * whose lists were never updated cannot install anything from them.
 */
function aptSourcesStep(inv: Inventory, sources: PhaseSources, debianPackages: string[]): Omit<Step, 'id' | 'phase' | 'host'> | undefined {
  const { files, keys, keyrings } = aptSourceSteps(sources);
  if (!files.length) return undefined;
  const offered: OfferedPackage[] = [
    ...(sources.kubernetesApt ? ['kubeadm', 'kubelet', 'kubectl'].map((name) => ({ name, version: inv.cluster.kubernetesVersion })) : []),
    ...(sources.debianApt ? debianPackages.map((name) => ({ name })) : []),
  ];
  return {
    title: t('Package sources'),
    check: all(...files.map((f) => sameContent(f.path, f.content)), ...keyrings.map(keyringInstalled), sourcesOffer(offered)),
    files,
    run: and(...keys, sh`${APT} update`),
  };
}

/** The prepare phase's first step on every host: the marker a resumed run looks for to tell a rebuilt host. */
function installMarkerStep(): Omit<Step, 'id' | 'phase' | 'host'> {
  return {
    title: t('Install marker (tells a later run that this host is the one it prepared)'),
    why: t('A host re-imaged with the same name, address and even host keys has no marker: a resumed run then starts it over.'),
    check: sh`test -s ${INSTALL_MARKER}`,
    run: WRITE_INSTALL_MARKER,
  };
}

export function preparePhase(inv: Inventory, configs: PhaseConfigs, sources: PhaseSources): PhasePlan {
  const steps: Step[] = [];
  const first = hostsWithRole(inv, 'control-plane')[0]?.name;
  for (const host of nodesOf(inv)) {
    const s = (key: string, rest: Omit<Step, 'id' | 'phase' | 'host'>): number => steps.push(step('prepare', host, key, rest));
    s('install-marker', installMarkerStep());
    s('swap', {
      title: t('Turn swap off now and at boot'),
      why: t('kubelet refuses to run with swap on by default, and swapping breaks memory guarantees.'),
      check: sh`test "$(awk 'NR>1' /proc/swaps | wc -l)" -eq 0 && ! grep -Eq '^[^#].*[[:space:]]swap[[:space:]]' /etc/fstab`,
      run: sh`swapoff -a && sed -i.kubeadm-workbench.bak -E '/^[^#].*[[:space:]]swap[[:space:]]/s/^/#/' /etc/fstab`,
      verify: sh`test "$(awk 'NR>1' /proc/swaps | wc -l)" -eq 0`,
    });
    s('modules', {
      title: t('Load overlay and br_netfilter now and at boot'),
      why: t('containerd needs overlayfs; br_netfilter makes bridged pod traffic visible to iptables.'),
      files: [file('/etc/modules-load.d/k8s.conf', configs.modules)],
      check: and(sameContent('/etc/modules-load.d/k8s.conf', configs.modules), sh`grep -qw overlay /proc/filesystems && test -d /proc/sys/net/bridge`),
      // A module built into the kernel cannot be modprobed; its presence is what counts.
      run: sh`(modprobe overlay || grep -qw overlay /proc/filesystems) && (modprobe br_netfilter || test -d /proc/sys/net/bridge)`,
      verify: sh`grep -qw overlay /proc/filesystems && test -d /proc/sys/net/bridge`,
    });
    s('sysctl', {
      title: t('Bridge netfilter and IP forwarding'),
      why: t('Pods on the bridge must pass through iptables and the node must route between pods and Services.'),
      files: [file('/etc/sysctl.d/99-kubernetes-cri.conf', configs.nodeSysctl)],
      check: all(sameContent('/etc/sysctl.d/99-kubernetes-cri.conf', configs.nodeSysctl), sysctlApplied(configs.nodeSysctl)),
      // Only our file: another file's key the host refuses (containers) must not fail this step.
      run: sh`sysctl -q -p /etc/sysctl.d/99-kubernetes-cri.conf`,
      verify: sh`test "$(sysctl -n net.ipv4.ip_forward)" = 1 && test "$(sysctl -n net.bridge.bridge-nf-call-iptables)" = 1`,
    });
    const sourcesStep = aptSourcesStep(inv, sources, ['containerd', 'runc']);
    if (sourcesStep) s('apt-sources', sourcesStep);
    const containerdFiles = [file('/etc/containerd/config.toml', configs.containerdConfig), ...Object.entries(configs.containerdHosts).map(([p, c]) => file(p, c))];
    s('containerd', {
      title: t('containerd with SystemdCgroup and the right sandbox image'),
      why: t('kubelet uses the systemd cgroup driver; containerd must too, or the node is unstable under memory pressure.'),
      // Installed, our files, and running with them (started after they were written); hosts.toml is read per pull.
      check: all(packagesInstalled(['containerd']), ...containerdFiles.map((f) => sameContent(f.path, f.content)), serviceConfigured('containerd', ['/etc/containerd/config.toml'])),
      files: containerdFiles,
      // Recommends (criu, python3) are not what a node needs: leaving them out saves ~36 MB and time per node.
      run: and(sh`dpkg -s containerd >/dev/null 2>&1 || ${APT} install --no-install-recommends containerd runc`, sh`systemctl enable -q containerd && systemctl restart containerd`),
      verify: sh`systemctl is-active -q containerd && test -S /run/containerd/containerd.sock`,
      verifyTimeoutMs: 30_000,
    });
    const crictl = generateCrictlConfig();
    s('crictl', {
      title: t('crictl talks to containerd (/etc/crictl.yaml)'),
      why: t('Without it every crictl call on the node (debugging, the certificate renewal\'s restarts) tries deprecated default endpoints and warns about each first.'),
      files: [file('/etc/crictl.yaml', crictl)],
      check: sameContent('/etc/crictl.yaml', crictl),
    });
    s('kube-packages', {
      title: t('kubeadm, kubelet and kubectl {0}, held', inv.cluster.kubernetesVersion),
      why: t('All nodes run the same pinned version; a held package is never upgraded by a routine apt upgrade.'),
      check: all(
        ...['kubeadm', 'kubelet', 'kubectl'].map((p) => sh`test "$(dpkg-query -W -f='${raw('${Status} ${Version}')}' ${p} 2>/dev/null | cut -d- -f1)" = ${`install ok installed ${inv.cluster.kubernetesVersion}`}`),
        sh`test "$(apt-mark showhold kubelet kubeadm kubectl | sort | tr '\n' ' ')" = ${'kubeadm kubectl kubelet '}`,
        sh`systemctl is-enabled -q kubelet`,
      ),
      run: and(
        sh`${APT} install --no-install-recommends --allow-downgrades --allow-change-held-packages ${pinned(inv, 'kubelet')} ${pinned(inv, 'kubeadm')} ${pinned(inv, 'kubectl')}`,
        sh`apt-mark hold kubelet kubeadm kubectl >/dev/null`,
        sh`systemctl enable kubelet >/dev/null 2>&1`,
      ),
      verify: sh`kubeadm version -o short | grep -qx ${'v' + inv.cluster.kubernetesVersion}`,
      timeoutMs: 15 * 60_000,
    });
    // The first control-plane node's images are pulled here, beside the other hosts' preparation: init needs
    // them. The other nodes pull theirs beside init (imagesBesideInitPhase): on a small machine or a slow registry
    // five nodes pulling at once would hold up init, which waits for the whole of prepare.
    if (host.name === first) s('images', imagePullStep(inv, true, sources));
  }
  return { phase: 'prepare', title: t('Prepare hosts'), order: 'parallel', steps, warnings: [] };
}

/**
 * Every node but the first control-plane one pulls its images while that one is initialised (kubeadm init waits
 * mostly for its own static pods), so the control-plane joins, one at a time, and the worker joins pull nothing.
 * Part of preparation (phase `prepare`), placed after init in the plan: the joins wait for it, init does not.
 */
export function imagesBesideInitPhase(inv: Inventory, sources: PhaseSources): PhasePlan {
  const first = hostsWithRole(inv, 'control-plane')[0]?.name;
  const steps = nodesOf(inv)
    .filter((h) => h.name !== first)
    .map((host) => step('prepare', host, 'images', imagePullStep(inv, host.roles.includes('control-plane'), sources)));
  return { phase: 'prepare', title: t('Pull the other nodes\' images (beside the init)'), order: 'parallel', steps, warnings: [], overlaps: ['init'] };
}

// ---------------------------------------------------------------- load balancer

export function loadBalancerPhase(inv: Inventory, configs: PhaseConfigs, sources: PhaseSources): PhasePlan {
  const endpoint = splitEndpoint(inv.cluster.controlPlaneEndpoint)!;
  const steps: Step[] = [];
  const balancers = hostsWithRole(inv, 'loadbalancer');
  for (const host of balancers) {
    const keepalived = configs.keepalivedConfig[host.name];
    if (!keepalived) throw new Error(t('no keepalived.conf was generated for {0}', host.name));
    const listens = sh`ss -Hltn | grep -q ${`${endpoint.host}:${endpoint.port}`}`;
    // Balancers are not prepared by the prepare phase: they get their install marker here.
    steps.push(step('loadbalancer', host, 'install-marker', installMarkerStep()));
    const sourcesStep = aptSourcesStep(inv, sources, ['haproxy', 'keepalived', 'psmisc']);
    if (sourcesStep) steps.push(step('loadbalancer', host, 'apt-sources', sourcesStep));
    steps.push(
      step('loadbalancer', host, 'packages', {
        title: t('HAProxy, Keepalived and killall'),
        check: packagesInstalled(['haproxy', 'keepalived', 'psmisc']),
        run: sh`${APT} install --no-install-recommends haproxy keepalived psmisc`,
      }),
      step('loadbalancer', host, 'nonlocal-bind', {
        title: t('Allow binding the VIP before it is up (ip_nonlocal_bind)'),
        why: t('HAProxy may start before Keepalived brings the VIP up; without non-local bind it crash-loops at boot.'),
        files: [file('/etc/sysctl.d/99-haproxy-vip.conf', configs.balancerSysctl)],
        check: all(sameContent('/etc/sysctl.d/99-haproxy-vip.conf', configs.balancerSysctl), sysctlApplied(configs.balancerSysctl)),
        run: sh`sysctl -q -p /etc/sysctl.d/99-haproxy-vip.conf`,
        verify: sh`test "$(sysctl -n net.ipv4.ip_nonlocal_bind)" = 1`,
      }),
      step('loadbalancer', host, 'haproxy', {
        title: t('HAProxy in TCP mode on {0}:{1}', endpoint.host, endpoint.port),
        check: all(sameContent('/etc/haproxy/haproxy.cfg', configs.haproxyConfig), serviceConfigured('haproxy', ['/etc/haproxy/haproxy.cfg']), listens),
        files: [file('/etc/haproxy/haproxy.cfg.kubeadm-workbench', configs.haproxyConfig)],
        // Validate with the real parser before replacing the running config.
        run: sh`haproxy -c -q -f /etc/haproxy/haproxy.cfg.kubeadm-workbench && mv /etc/haproxy/haproxy.cfg.kubeadm-workbench /etc/haproxy/haproxy.cfg && systemctl enable -q haproxy && systemctl restart haproxy`,
        verify: and(sh`systemctl is-active -q haproxy`, listens),
        verifyTimeoutMs: 15_000,
      }),
      step('loadbalancer', host, 'keepalived', {
        title: t('Keepalived {0} holding {1}', host.vrrp?.state ?? '', endpoint.host).trim(),
        check: all(sameContent('/etc/keepalived/keepalived.conf', keepalived), serviceConfigured('keepalived', ['/etc/keepalived/keepalived.conf'])),
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
      title: t('VIP {0} is up on the MASTER and {1} listens', endpoint.host, endpoint.port),
      why: t('The seed checks `ip a` for the VIP as a secondary address and `ss -tlnp` for HAProxy on it.'),
      rerun: GATE,
      verify: sh`ip -o -4 addr show | grep -q ${` ${endpoint.host}/`} && ss -Hltn | grep -q ${`${endpoint.host}:${endpoint.port}`}`,
      verifyTimeoutMs: 30_000,
    }));
  }
  // The balancers share no host with the nodes: they are set up while the nodes are prepared.
  return { phase: 'loadbalancer', title: t('Load balancer (HAProxy + Keepalived VIP)'), order: 'parallel', steps, warnings: [], alongsidePrevious: true };
}

// ---------------------------------------------------------------- init

export interface InitHooks {
  /** Merges the cluster's admin.conf into the user's kubeconfig (0600, a new context). */
  saveAdminKubeconfig(adminConf: string): Promise<void>;
  /**
   * Waits, within a bound, until the cluster is healthy by the health model `status` uses (naming what still
   * converges), and fails past it: the last step of a bring-up (engine/clusterHealthy.ts). Absent: no such step.
   */
  clusterHealthy?(signal?: AbortSignal): Promise<void>;
}

export function initPhase(inv: Inventory, configs: PhaseConfigs, sources: PhaseSources, hooks: InitHooks): PhasePlan {
  const first = firstControlPlane(inv);
  const ignore = sources.ignorePreflightErrors?.length ? sh` --ignore-preflight-errors=${sources.ignorePreflightErrors.join(',')}` : sh``;
  const steps: Step[] = [
    step('init', first, 'no-kubeadm-running', {
      title: t('No kubeadm of an interrupted run still running on {0}', first.name),
      why: t('A run killed mid-init leaves its kubeadm running on the host; judging or resetting the node beside it would race it.'),
      check: sh`! pgrep -x kubeadm >/dev/null`,
      run: waitForKubeadmToExit(first),
    }),
    ...(configs.auditPolicy ? [step('init', first, 'audit-policy', auditPolicyStep(configs.auditPolicy))] : []),
    step('init', first, 'kubeadm-init', {
      title: t('kubeadm init --upload-certs'),
      why: t('--upload-certs puts the CA and keys, encrypted, into a Secret so the other control-plane nodes can join without copying /etc/kubernetes/pki by hand.'),
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
      title: t('Fetch admin.conf into your kubeconfig (0600, new context)'),
      rerun: 'admin.conf is a secret the ledger never keeps, and the cluster (its CA, its keys) may be a new one: it is read again and merged into your kubeconfig',
      run: sh`cat ${ADMIN}`,
      capture: (out) => ({ adminConf: out }),
      secretCaptures: ['adminConf'],
      action: async (values) => hooks.saveAdminKubeconfig(values.get('adminConf')!),
    }),
    step('init', first, 'cni', {
      title: t('Apply the {0} network', inv.cluster.cni),
      why: t('Nodes stay NotReady and CoreDNS Pending until a CNI plugin routes the pod network.'),
      ...cniManifestStep(sources),
    }),
    // Joins need the API, not a Ready first node: Ready and CoreDNS are checked once, at the end
    // (the cluster checks), while the other nodes join — as the seed's procedure does.
    step('init', first, 'api-ready', {
      title: t('The API server answers /readyz'),
      rerun: GATE,
      verify: sh`${KUBECTL} get --raw=/readyz --request-timeout=10s`,
      verifyTimeoutMs: 2 * 60_000,
    }),
  ];
  return { phase: 'init', title: t('Initialise the first control-plane node ({0})', first.name), order: 'serial', steps, warnings: [] };
}

// ---------------------------------------------------------------- join
