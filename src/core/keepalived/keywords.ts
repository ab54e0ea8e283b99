/**
 * Keepalived 2.2 keywords (Debian 12's keepalived) per block, for the unknown-keyword rule. A block that is not
 * listed here (LVS virtual_server, bfd_instance...) is not checked for unknown keywords.
 */
const words = (s: string): string[] => s.trim().split(/\s+/);

export const TOP_LEVEL = new Set(
  words(`global_defs vrrp_script vrrp_instance vrrp_sync_group virtual_server virtual_server_group static_ipaddress
  static_routes static_rules vrrp_track_process vrrp_track_file track_file garp_group linkbeat_interfaces bfd_instance
  include net_namespace net_namespace_ipvs namespace_with_ipsets use_pid_dir instance interface_up_down_delays`),
);

/** Blocks whose keyword must open a `{ }` block. */
export const BLOCK_KEYWORDS = new Set(
  words(`global_defs vrrp_script vrrp_instance vrrp_sync_group virtual_server virtual_server_group static_ipaddress
  static_routes static_rules vrrp_track_process vrrp_track_file track_file garp_group linkbeat_interfaces bfd_instance
  authentication virtual_ipaddress virtual_ipaddress_excluded virtual_routes virtual_rules track_script track_interface
  track_process track_bfd unicast_peer notification_email group real_server`),
);

export const GLOBAL_DEFS = new Set(
  words(`router_id notification_email notification_email_from smtp_server smtp_helo_name smtp_connect_timeout
  smtp_alert smtp_alert_vrrp smtp_alert_checker checker_log_all_failures no_email_faults enable_script_security
  script_user enable_traps enable_dbus dbus_service_name enable_snmp_vrrp enable_snmp_checker enable_snmp_rfc
  enable_snmp_rfcv2 enable_snmp_rfcv3 enable_snmp_keepalived snmp_socket vrrp_skip_check_adv_addr vrrp_strict
  vrrp_garp_interval vrrp_gna_interval vrrp_mcast_group4 vrrp_mcast_group6 vrrp_iptables  nftables
  nftables_priority nftables_ifindex nftables_counters vrrp_version vrrp_check_unicast_src vrrp_garp_master_delay
  vrrp_garp_master_repeat vrrp_garp_lower_prio_delay vrrp_garp_lower_prio_repeat vrrp_garp_master_refresh
  vrrp_garp_master_refresh_repeat vrrp_lower_prio_no_advert vrrp_higher_prio_send_advert vrrp_min_garp
  vrrp_priority checker_priority bfd_priority vrrp_no_swap checker_no_swap bfd_no_swap vrrp_rt_priority
  checker_rt_priority bfd_rt_priority vrrp_rlimit_rttime checker_rlimit_rttime bfd_rlimit_rttime
  vrrp_cpu_affinity checker_cpu_affinity bfd_cpu_affinity notify_fifo notify_fifo_script vrrp_notify_fifo
  vrrp_notify_fifo_script lvs_notify_fifo lvs_notify_fifo_script vrrp_startup_delay  lvs_timeouts
  lvs_sync_daemon lvs_flush lvs_flush_on_stop dynamic_interfaces max_auto_priority min_auto_priority_delay
  default_interface disable_local_igmp vrrp_netlink_cmd_rcv_bufs vrrp_netlink_cmd_rcv_bufs_force
  vrrp_netlink_monitor_rcv_bufs vrrp_netlink_monitor_rcv_bufs_force vrrp_rx_bufs_policy vrrp_rx_bufs_multiplier
  vrrp_down_timer_adverts vrrp_process_name checker_process_name bfd_process_name config_save_dir
  tmp_config_directory umask random_seed process_names reload_check_config reload_time_file reload_repeat
  reload_file fifo_write_vrrp_states_on_reload script_user vmac_prefix vmac_addr_prefix data_use_instance
  startup_script startup_script_timeout shutdown_script shutdown_script_timeout vrrp_garp_extra_if
  vrrp_notify_priority_changes include    
   vrrp_skip_check_adv_addr`),
);

export const VRRP_INSTANCE = new Set(
  words(`state interface virtual_router_id priority advert_int authentication virtual_ipaddress
  virtual_ipaddress_excluded virtual_routes virtual_rules track_script track_interface track_file track_process
  track_bfd track_src_ip nopreempt preempt preempt_delay unicast_src_ip unicast_peer unicast_ttl
  unicast_fault_no_peer mcast_src_ip notify notify_master notify_backup notify_fault notify_stop notify_deleted
  notify_master_rx_lower_pri smtp_alert dont_track_primary use_vmac vmac_xmit_base native_ipv6 garp_master_delay
  garp_master_repeat garp_lower_prio_delay garp_lower_prio_repeat garp_master_refresh garp_master_refresh_repeat
  lower_prio_no_advert higher_prio_send_advert strict_mode version accept no_accept skip_check_adv_addr debug
  linkbeat_use_polling promote_secondaries kernel_rx_buf_size use_ipvlan check_unicast_src old_unicast_checksum
  down_timer_adverts notify_priority_changes include`),
);

export const VRRP_SCRIPT = new Set(words('script interval timeout weight rise fall user init_fail include'));
export const AUTHENTICATION = new Set(words('auth_type auth_pass include'));
export const VRRP_SYNC_GROUP = new Set(
  words(`group notify notify_master notify_backup notify_fault notify_stop smtp_alert global_tracking
  sync_group_tracking_weight track_interface track_script track_file track_process track_bfd include`),
);

export const BLOCK_SCHEMAS: Record<string, Set<string>> = {
  '': TOP_LEVEL,
  global_defs: GLOBAL_DEFS,
  vrrp_instance: VRRP_INSTANCE,
  vrrp_script: VRRP_SCRIPT,
  authentication: AUTHENTICATION,
  vrrp_sync_group: VRRP_SYNC_GROUP,
};

/** Tools every Debian balancer has, so a check script using them exists there. */
export const SYSTEM_TOOLS = new Set(
  words(`/usr/bin/killall /bin/killall /usr/bin/pgrep /bin/pgrep /usr/bin/pidof /bin/pidof /bin/kill /usr/bin/kill
  /usr/bin/curl /bin/sh /bin/bash /usr/bin/sh /usr/bin/bash /usr/bin/test /bin/true /usr/bin/true /bin/false
  /usr/bin/false /usr/bin/nc /bin/nc /usr/bin/systemctl /bin/systemctl /usr/bin/ss /bin/ss /usr/sbin/haproxy
  /usr/bin/wget /usr/bin/timeout`),
);

/** Keywords that must be followed by a value (keepalived stops with "missing a parameter" otherwise). */
export const NEEDS_ARGUMENT: Record<string, Set<string>> = {
  global_defs: new Set(words(`router_id script_user notification_email_from smtp_server smtp_connect_timeout smtp_helo_name
    vrrp_mcast_group4 vrrp_mcast_group6 vrrp_garp_interval vrrp_gna_interval vrrp_version vrrp_garp_master_delay
    vrrp_garp_master_repeat vrrp_startup_delay dynamic_interfaces_delay lvs_id default_interface`)),
  vrrp_instance: new Set(words(`state interface virtual_router_id priority advert_int preempt_delay unicast_src_ip mcast_src_ip
    garp_master_delay garp_master_repeat garp_master_refresh garp_master_refresh_repeat garp_lower_prio_delay
    garp_lower_prio_repeat notify notify_master notify_backup notify_fault notify_stop notify_deleted version
    unicast_ttl kernel_rx_buf_size down_timer_adverts`)),
  vrrp_script: new Set(words('script interval timeout weight rise fall user')),
  authentication: new Set(words('auth_type auth_pass')),
};

/** Blocks that take exactly one name. */
export const NAMED_BLOCKS = new Set(words('vrrp_instance vrrp_script vrrp_sync_group'));
