#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs as root inside a clean Debian 12 system booted by tools/check-deb
# (make check-deb), with the packages of "make deb" in the current
# directory.  Standalone (the project tree is not visible in that
# system).  KTAP output.
#
#   deb_install.sh                first boot: install the packages, use
#                                 them, configure them to come back after
#                                 a reboot (ifupdown, sysctl.d)
#   deb_install.sh after-reboot   second boot, systemd as init: they came
#                                 back; then remove them, leaving nothing
set -u
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export DEBIAN_FRONTEND=noninteractive
unset TC_LIB_DIR

n=0 fail=0
ok() {	# ok "description" COMMAND...
	local d=$1
	shift
	n=$((n + 1))
	if "$@"; then
		echo "ok $n $d"
	else
		echo "not ok $n $d"
		fail=$((fail + 1))
	fi
}
log() { echo "# $*"; }

krel=$(uname -r)

# What an administrator writes to have them back after a reboot (the
# README's "Install on a router"): ifupdown's post-up in the interfaces'
# stanzas (decbit as a root qdisc, one decbit per transmit queue under
# mq, hbh) and the CC in a sysctl.d file.  The devices are dummies made
# by pre-up, as the guest has no NIC to spare.
persistent_config() {
	mkdir -p /etc/network/interfaces.d /etc/sysctl.d || return 1
	cat >/etc/network/interfaces.d/congavoid <<'EOF'
auto cav0
iface cav0 inet manual
	pre-up ip link add $IFACE type dummy
	up ip link set $IFACE up
	post-up tc qdisc replace dev $IFACE root decbit threshold 1
	post-down ip link del $IFACE

auto cav1
iface cav1 inet manual
	pre-up ip link add $IFACE numtxqueues 4 type dummy
	up ip link set $IFACE up
	post-up tc qdisc replace dev $IFACE root handle 1: mq
	post-up for q in 1 2 3 4; do tc qdisc replace dev $IFACE parent 1:$q decbit threshold 1 || exit 1; done
	post-down ip link del $IFACE

auto cav2
iface cav2 inet manual
	pre-up ip link add $IFACE type dummy
	up ip link set $IFACE up
	post-up tc qdisc replace dev $IFACE root hbh rate 10mbit
	post-down ip link del $IFACE
EOF
	grep -qs '^source /etc/network/interfaces.d/\*' /etc/network/interfaces ||
		echo 'source /etc/network/interfaces.d/*' >>/etc/network/interfaces
	echo "net.ipv4.tcp_congestion_control = bimodal" >/etc/sysctl.d/90-congavoid.conf
}

install_and_use() {
	log "kernel $krel, $(grep PRETTY_NAME /etc/os-release | cut -d= -f2)"
	# both packages install; DKMS builds the modules for the running kernel
	local t0
	t0=$(date +%s)
	ok "packages_install" sh -c 'apt-get install -y -q ./congavoid-dkms_*.deb ./congavoid-tc_*.deb >install.log 2>&1 || { tail -n 40 install.log; false; }'
	log "install (DKMS build included) took $(($(date +%s) - t0)) s"
	dkms status | sed 's/^/# dkms: /'
	ok "dkms_built_for_running_kernel" sh -c "dkms status | grep -q '^congavoid/.*, $krel, .*: installed'"
	ok "modules_installed_for_running_kernel" sh -c \
		"for m in sch_decbit sch_hbh tcp_decbit tcp_bimodal tcp_fixedwin; do modinfo -k $krel -n \$m | grep -q /updates/dkms/ || exit 1; done"

	# autoload, no modprobe; tc finds the plugins where it looks for them
	# (Debian: /usr/lib/x86_64-linux-gnu/tc)
	ip link add dummy0 type dummy && ip link set dummy0 up
	ok "qdisc_decbit_autoloads" sh -c 'tc qdisc add dev dummy0 root decbit threshold 2 && grep -q "^sch_decbit " /proc/modules'
	log "$(tc -s qdisc show dev dummy0 | head -n 1)"
	ok "tc_shows_decbit_options_without_TC_LIB_DIR" sh -c 'tc qdisc show dev dummy0 | grep -q "threshold 2 hysteresis 0"'
	ok "qdisc_hbh_autoloads" sh -c 'tc qdisc replace dev dummy0 root hbh rate 10mbit && grep -q "^sch_hbh " /proc/modules && tc qdisc show dev dummy0 | grep -q "rate 10Mbit"'
	ok "cc_decbit_autoloads_by_sysctl" sh -c 'sysctl -qw net.ipv4.tcp_congestion_control=decbit && grep -q "^tcp_decbit " /proc/modules && [ "$(sysctl -n net.ipv4.tcp_congestion_control)" = decbit ]'
	sysctl -qw net.ipv4.tcp_congestion_control=cubic
	ok "cc_bimodal_autoloads_by_sysctl" sh -c 'sysctl -qw net.ipv4.tcp_congestion_control=bimodal && grep -q "^tcp_bimodal " /proc/modules'
	sysctl -qw net.ipv4.tcp_congestion_control=cubic

	ok "man_pages_render" sh -c 'for p in tc-decbit tc-hbh congavoid; do MANWIDTH=80 man "$p" 2>/dev/null | grep -q . || exit 1; done'
	log "man tc-decbit: $(MANWIDTH=80 man tc-decbit 2>/dev/null | wc -l) lines"
	tc qdisc del dev dummy0 root
	ip link del dummy0

	# the configuration that must survive the reboot; ifup applies it
	# now too, as an administrator would check it before rebooting
	ok "persistent_config_written_and_applies" config_and_ifup
	ifdown cav0 cav1 cav2 >/dev/null 2>&1
}

config_and_ifup() {
	persistent_config || return 1
	mkdir -p /run/network	# (systemd makes it at boot; this init does not)
	ifup cav0 cav1 cav2 >ifup.log 2>&1 || { sed 's/^/# /' ifup.log; return 1; }
	tc qdisc show dev cav1 | grep -c "^qdisc decbit" | grep -qx 4
}

# the second boot: systemd as init, so ifupdown's networking.service and
# systemd-sysctl ran as on any Debian router; nobody ran tc or sysctl
after_reboot() {
	log "kernel $krel, init $(cat /proc/1/comm), system $(systemctl is-system-running 2>&1)"
	ok "booted_by_systemd" test "$(cat /proc/1/comm)" = systemd
	log "networking.service: $(systemctl is-active networking.service 2>&1)"
	ok "networking_service_ran" systemctl -q is-active networking.service
	local d
	for d in cav0 cav1 cav2; do
		log "$d: $(tc qdisc show dev $d 2>&1 | tr '\n' '|')"
	done
	ok "decbit_back_after_reboot" sh -c 'tc qdisc show dev cav0 | grep -q "^qdisc decbit [0-9a-f]*: root .*threshold 1 "'
	ok "mq_decbit_back_after_reboot" sh -c '[ "$(tc qdisc show dev cav1 | grep -c "^qdisc decbit [0-9a-f]*: parent 1:[1-4] .*threshold 1 ")" = 4 ]'
	ok "hbh_back_after_reboot" sh -c 'tc qdisc show dev cav2 | grep -q "^qdisc hbh [0-9a-f]*: root .*rate 10Mbit"'
	log "tcp_congestion_control: $(sysctl -n net.ipv4.tcp_congestion_control)"
	ok "cc_back_after_reboot" test "$(sysctl -n net.ipv4.tcp_congestion_control)" = bimodal
	ok "modules_loaded_on_demand_at_boot" sh -c 'for m in sch_decbit sch_hbh tcp_bimodal; do grep -q "^$m " /proc/modules || exit 1; done'
	systemctl --failed --no-legend --plain 2>&1 | sed 's/^/# failed unit: /'

	# removal leaves nothing behind (the configuration is the
	# administrator's: removed first, by hand)
	for d in cav0 cav1 cav2; do
		[ -e /sys/class/net/$d ] && ip link del $d
	done
	rm -f /etc/network/interfaces.d/congavoid /etc/sysctl.d/90-congavoid.conf
	sysctl -qw net.ipv4.tcp_congestion_control=cubic
	rmmod sch_hbh sch_decbit tcp_decbit tcp_bimodal 2>/dev/null
	ok "packages_purge" sh -c 'apt-get purge -y -q congavoid-dkms congavoid-tc >purge.log 2>&1 || { tail -n 40 purge.log; false; }'
	local left
	left=$( (ls -d /usr/src/congavoid-* /var/lib/dkms/congavoid /usr/lib/*/tc/q_decbit.so /usr/lib/*/tc/q_hbh.so /usr/lib/tc/q_*.so \
		/usr/share/man/man8/tc-decbit.8.gz /usr/share/man/man8/tc-hbh.8.gz /usr/share/man/man7/congavoid.7.gz 2>/dev/null
		find /lib/modules -name 'sch_decbit.ko*' -o -name 'sch_hbh.ko*' -o -name 'tcp_decbit.ko*' \
			-o -name 'tcp_bimodal.ko*' -o -name 'tcp_fixedwin.ko*') | xargs)
	log "left after purge: ${left:-nothing}"
	ok "purge_leaves_no_file" test -z "$left"
	ok "purge_leaves_no_dkms_entry" sh -c '! dkms status | grep -q congavoid'
}

echo "KTAP version 1"
if [ "${1:-}" = after-reboot ]; then
	after_reboot
else
	install_and_use
fi
echo "1..$n"
echo "# Totals: pass:$((n - fail)) fail:$fail skip:0"
[ $fail = 0 ]
