# The lab's network: a namespace with a bridge (the datacenter's L2 segment 10.3.60.0/24) and one veth into the
# machine's root namespace so kubectl, ssh and the extension reach the lab hosts directly.
# Containment: the namespace has no default route and does not forward, the root namespace gets only a connected
# /24 route on the veth: nothing from the lab can leave the machine.
# shellcheck shell=bash

net_up() {
  if [[ ! -e "/run/netns/$NETNS" ]]; then
    ip netns add "$NETNS"
  fi
  ip -n "$NETNS" link set lo up
  if ! ip -n "$NETNS" link show "$BRIDGE" >/dev/null 2>&1; then
    ip -n "$NETNS" link add "$BRIDGE" type bridge
    ip -n "$NETNS" addr add "$GW_IP/24" dev "$BRIDGE"
  fi
  ip -n "$NETNS" link set "$BRIDGE" up
  in_netns sysctl -qw net.ipv4.ip_forward=0 net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
  if ! ip link show "$HOST_VETH" >/dev/null 2>&1; then
    ip link add "$HOST_VETH" type veth peer name "$HOST_VETH-br" netns "$NETNS"
    sysctl -qw "net.ipv6.conf.$HOST_VETH.disable_ipv6=1" || true
    ip addr add "$HOST_IP/24" dev "$HOST_VETH"
  fi
  ip -n "$NETNS" link set "$HOST_VETH-br" master "$BRIDGE" up
  ip link set "$HOST_VETH" up
}

net_down() {
  ip link del "$HOST_VETH" 2>/dev/null || true
  [[ -e "/run/netns/$NETNS" ]] && ip netns del "$NETNS" 2>/dev/null || true
}

# The node's cable: systemd-nspawn creates a veth pair, ens192 inside the node and kw-SHORT here in the lab
# namespace; once it appears, plug it into the bridge.
net_plug_node() {
  local s i; s=$(host_short "$1")
  for i in $(seq 1 100); do
    if ip -n "$NETNS" link set "kw-$s" master "$BRIDGE" up 2>/dev/null; then return 0; fi
    sleep 0.05
  done
  die "$1: its network interface kw-$s never appeared"
}

net_cut() { ip -n "$NETNS" link set "kw-$(host_short "$1")" down; }
net_restore() { ip -n "$NETNS" link set "kw-$(host_short "$1")" up; }
