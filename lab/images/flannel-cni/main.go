// A minimal flannel CNI plugin for the lab (flannel-io/cni-plugin is not served by the Go module proxy).
//
// It does what flannel's plugin does for the vxlan setup the lab uses: read the node's lease that flanneld
// writes to /run/flannel/subnet.env, turn it into a "bridge" + "host-local" configuration (the flannel
// network config's "delegate" entries win), remember that configuration per container so DEL can undo exactly
// what ADD did, and hand the work to the bridge plugin.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/containernetworking/cni/pkg/invoke"
	"github.com/containernetworking/cni/pkg/skel"
	"github.com/containernetworking/cni/pkg/types"
	"github.com/containernetworking/cni/pkg/version"
)

const (
	defaultSubnetFile = "/run/flannel/subnet.env"
	defaultDataDir    = "/var/lib/cni/flannel"
)

type netConf struct {
	types.NetConf
	SubnetFile string                 `json:"subnetFile"`
	DataDir    string                 `json:"dataDir"`
	Delegate   map[string]interface{} `json:"delegate"`
}

type lease struct {
	networks []string // FLANNEL_NETWORK (comma separated when several)
	subnet   string   // FLANNEL_SUBNET: this node's pod range
	mtu      int
	ipMasq   bool // flanneld masquerades itself, so the bridge must not
}

func loadConf(stdin []byte) (*netConf, error) {
	n := &netConf{SubnetFile: defaultSubnetFile, DataDir: defaultDataDir}
	if err := json.Unmarshal(stdin, n); err != nil {
		return nil, fmt.Errorf("flannel: bad network configuration: %w", err)
	}
	if n.Delegate == nil {
		n.Delegate = map[string]interface{}{}
	}
	return n, nil
}

func readLease(path string) (*lease, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("flannel: %w (is flanneld running on this node?)", err)
	}
	defer f.Close()
	l := &lease{}
	s := bufio.NewScanner(f)
	for s.Scan() {
		k, v, ok := strings.Cut(strings.TrimSpace(s.Text()), "=")
		if !ok {
			continue
		}
		switch k {
		case "FLANNEL_NETWORK":
			l.networks = strings.Split(v, ",")
		case "FLANNEL_SUBNET":
			l.subnet = v
		case "FLANNEL_MTU":
			l.mtu, _ = strconv.Atoi(v)
		case "FLANNEL_IPMASQ":
			l.ipMasq = v == "true"
		}
	}
	if l.subnet == "" || len(l.networks) == 0 || l.mtu == 0 {
		return nil, fmt.Errorf("flannel: %s lacks FLANNEL_NETWORK, FLANNEL_SUBNET or FLANNEL_MTU", path)
	}
	return l, s.Err()
}

// delegateConf builds the bridge plugin's configuration from the lease.
func delegateConf(n *netConf, l *lease) ([]byte, error) {
	d := n.Delegate
	d["name"] = n.Name
	d["cniVersion"] = n.CNIVersion
	if _, ok := d["type"]; !ok {
		d["type"] = "bridge"
	}
	if _, ok := d["ipMasq"]; !ok {
		d["ipMasq"] = !l.ipMasq
	}
	if _, ok := d["mtu"]; !ok {
		d["mtu"] = l.mtu
	}
	if d["type"] == "bridge" {
		if _, ok := d["isGateway"]; !ok {
			d["isGateway"] = true
		}
	}
	// The subnet on the bridge is this node's; the rest of the cluster network is reached through the bridge's
	// gateway (unless the pod's default route already goes there).
	routes := []map[string]string{}
	if gw, _ := d["isDefaultGateway"].(bool); !gw {
		for _, nw := range l.networks {
			if _, _, err := net.ParseCIDR(nw); err == nil {
				routes = append(routes, map[string]string{"dst": nw})
			}
		}
	}
	ipam, _ := d["ipam"].(map[string]interface{})
	if ipam == nil {
		ipam = map[string]interface{}{}
	}
	if _, ok := ipam["type"]; !ok {
		ipam["type"] = "host-local"
	}
	// flanneld writes the bridge's own address (10.244.1.1/24); host-local wants the network (10.244.1.0/24)
	_, sn, err := net.ParseCIDR(l.subnet)
	if err != nil {
		return nil, fmt.Errorf("flannel: FLANNEL_SUBNET %q: %w", l.subnet, err)
	}
	ipam["ranges"] = [][]map[string]string{{{"subnet": sn.String()}}}
	if len(routes) > 0 {
		ipam["routes"] = routes
	}
	d["ipam"] = ipam
	return json.Marshal(d)
}

func cniContext() context.Context { return context.TODO() }

func savedPath(n *netConf, containerID string) string { return filepath.Join(n.DataDir, containerID) }

func cmdAdd(args *skel.CmdArgs) error {
	n, err := loadConf(args.StdinData)
	if err != nil {
		return err
	}
	l, err := readLease(n.SubnetFile)
	if err != nil {
		return err
	}
	conf, err := delegateConf(n, l)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(n.DataDir, 0o700); err != nil {
		return err
	}
	if err := os.WriteFile(savedPath(n, args.ContainerID), conf, 0o600); err != nil {
		return err
	}
	res, err := invoke.DelegateAdd(cniContext(), n.Delegate["type"].(string), conf, nil)
	if err != nil {
		return err
	}
	return types.PrintResult(res, n.CNIVersion)
}

func cmdDel(args *skel.CmdArgs) error {
	n, err := loadConf(args.StdinData)
	if err != nil {
		return err
	}
	p := savedPath(n, args.ContainerID)
	conf, err := os.ReadFile(p)
	if os.IsNotExist(err) {
		return nil // never added, or already deleted: DEL must be idempotent
	} else if err != nil {
		return err
	}
	var d struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(conf, &d); err != nil {
		return err
	}
	if err := invoke.DelegateDel(cniContext(), d.Type, conf, nil); err != nil {
		return err
	}
	return os.Remove(p)
}

func cmdCheck(args *skel.CmdArgs) error {
	n, err := loadConf(args.StdinData)
	if err != nil {
		return err
	}
	conf, err := os.ReadFile(savedPath(n, args.ContainerID))
	if err != nil {
		return err
	}
	var d struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(conf, &d); err != nil {
		return err
	}
	return invoke.DelegateCheck(cniContext(), d.Type, conf, nil)
}

func main() {
	skel.PluginMainFuncs(skel.CNIFuncs{Add: cmdAdd, Del: cmdDel, Check: cmdCheck}, version.All, "flannel (kubeadm-workbench lab)")
}
