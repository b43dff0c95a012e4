#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Autoload: with the modules installed where modprobe looks (here a
# private module tree, through a kernel.modprobe wrapper, so that the
# host's /lib/modules is not touched), "tc qdisc add ... decbit" loads
# sch_decbit (6.1 asks for "sch_decbit", 6.12 for the "net-sch-decbit"
# alias) and "sysctl net.ipv4.tcp_congestion_control=decbit|bimodal" and
# "ip route ... congctl decbit" load the TCP modules.

ALL_TESTS="module_tree tc_autoload sysctl_autoload route_autoload wrapper_removed"

. "$(dirname "$0")/lib.sh"

require_cmd depmod modprobe tc

krel=$(uname -r)
mods=()
for m in sch_decbit tcp_decbit tcp_bimodal; do
	[ -e "$TOP_DIR/build/$krel/$m/$m.ko" ] && mods+=("$m")
done
[ ${#mods[@]} = 3 ] || skip_script "modules not built for $krel"

base=$TMP_DIR/root
old_modprobe=$(cat /proc/sys/kernel/modprobe)
old_cc=$(sysctl -n net.ipv4.tcp_congestion_control)

# the private module tree is indexed; nothing of it is loaded yet
module_tree() {
	check "aliases_indexed" sh -c "grep -q 'net-sch-decbit\|sch_decbit' $base/lib/modules/$krel/modules.alias $base/lib/modules/$krel/modules.dep"
	check "modules_unloaded" sh -c '! grep -qE "^(sch_decbit|tcp_decbit|tcp_bimodal) " /proc/modules'
}

tc_autoload() {
	rmmod sch_decbit 2>/dev/null
	check "tc_qdisc_add_autoloads" sh -c "ip netns exec $A tc qdisc add dev lo root decbit limit 10 &&
		grep -q '^sch_decbit ' /proc/modules"
	ip netns exec "$A" tc qdisc del dev lo root 2>/dev/null
}

sysctl_autoload() {
	defer sysctl -qw net.ipv4.tcp_congestion_control="$old_cc"
	rmmod tcp_decbit tcp_bimodal 2>/dev/null
	check "sysctl_autoloads_decbit" sh -c "sysctl -qw net.ipv4.tcp_congestion_control=decbit &&
		grep -q '^tcp_decbit ' /proc/modules && [ \$(sysctl -n net.ipv4.tcp_congestion_control) = decbit ]"
	check "sysctl_autoloads_bimodal" sh -c "sysctl -qw net.ipv4.tcp_congestion_control=bimodal &&
		grep -q '^tcp_bimodal ' /proc/modules"
}

# ip route congctl loads the CC it names
route_autoload() {
	rmmod tcp_decbit 2>/dev/null
	defer ip -n "$A" route del 10.78.0.0/24
	check "route_congctl_autoloads" sh -c "ip -n $A route add 10.78.0.0/24 via 10.77.0.2 congctl decbit &&
		grep -q '^tcp_decbit ' /proc/modules && ip -n $A route show 10.78.0.0/24 | grep -q 'congctl decbit'"
}

wrapper_removed() {
	echo "$old_modprobe" >/proc/sys/kernel/modprobe
	check "modprobe_restored" test "$(cat /proc/sys/kernel/modprobe)" = "$old_modprobe"
}

# the modules in a private tree, found through a kernel.modprobe wrapper;
# what the runner loaded is unloaded, for each user interface to load
# reload: what the tests unloaded and left so goes back (the runner
# unloads every module at the end)
reload() {
	local m
	for m in "${mods[@]}"; do
		grep -q "^$m " /proc/modules || insmod "$TOP_DIR/build/$krel/$m/$m.ko"
	done
}

setup_prepare() {
	local m
	defer reload
	defer sh -c "echo $old_modprobe >/proc/sys/kernel/modprobe"
	mkdir -p "$base/lib/modules/$krel/extra"
	for m in "${mods[@]}"; do
		cp "$TOP_DIR/build/$krel/$m/$m.ko" "$base/lib/modules/$krel/extra/"
	done
	depmod -b "$base" "$krel" 2>/dev/null
	cat >"$base/modprobe" <<EOT
#!/bin/sh
/sbin/modprobe -d $base "\$@" 2>/dev/null || exec /sbin/modprobe "\$@"
EOT
	chmod +x "$base/modprobe"
	echo "$base/modprobe" >/proc/sys/kernel/modprobe
	for m in "${mods[@]}"; do
		rmmod "$m" 2>/dev/null
	done
	setup_ns A || return 1
	ip -n "$A" link add name d0 type dummy &&
	ip -n "$A" link set dev d0 up &&
	ip -n "$A" addr add 10.77.0.1/24 dev d0
}

setup_prepare || exit $ksft_fail
tests_run
