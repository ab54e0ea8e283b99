module kwlab.local/flannel-cni

go 1.24

require github.com/containernetworking/cni v1.3.0
