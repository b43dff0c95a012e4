#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs as root inside a clean Debian 12 system booted by tools/check-deb
# (make check-deb), with the packages of "make deb" in the current
# directory: install them, use them, remove them.  Standalone (the project
# tree is not visible in that system).  KTAP output.
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
echo "KTAP version 1"
echo "1..12"
log "kernel $krel, $(grep PRETTY_NAME /etc/os-release | cut -d= -f2)"

# 1: both packages install; DKMS builds the modules for the running kernel
t0=$(date +%s)
ok "packages_install" sh -c 'apt-get install -y -q ./congavoid-dkms_*.deb ./congavoid-tc_*.deb >install.log 2>&1 || { tail -n 40 install.log; false; }'
log "install (DKMS build included) took $(($(date +%s) - t0)) s"
dkms status | sed 's/^/# dkms: /'
ok "dkms_built_for_running_kernel" sh -c "dkms status | grep -q '^congavoid/.*, $krel, .*: installed'"
ok "modules_installed_for_running_kernel" sh -c \
	"for m in sch_decbit sch_hbh tcp_decbit tcp_bimodal tcp_fixedwin; do modinfo -k $krel -n \$m | grep -q /updates/dkms/ || exit 1; done"

# 4-8: autoload, no modprobe; tc finds the plugins where it looks for them
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

# 9: the man pages
ok "man_pages_render" sh -c 'for p in tc-decbit tc-hbh congavoid; do MANWIDTH=80 man "$p" 2>/dev/null | grep -q . || exit 1; done'
log "man tc-decbit: $(MANWIDTH=80 man tc-decbit 2>/dev/null | wc -l) lines"

# 10-12: removal leaves nothing behind
tc qdisc del dev dummy0 root
ip link del dummy0
rmmod sch_hbh sch_decbit tcp_decbit tcp_bimodal 2>/dev/null
ok "packages_purge" sh -c 'apt-get purge -y -q congavoid-dkms congavoid-tc >purge.log 2>&1 || { tail -n 40 purge.log; false; }'
left=$( (ls -d /usr/src/congavoid-* /var/lib/dkms/congavoid /usr/lib/*/tc/q_decbit.so /usr/lib/*/tc/q_hbh.so /usr/lib/tc/q_*.so \
	/usr/share/man/man8/tc-decbit.8.gz /usr/share/man/man8/tc-hbh.8.gz /usr/share/man/man7/congavoid.7.gz 2>/dev/null
	find /lib/modules -name 'sch_decbit.ko*' -o -name 'sch_hbh.ko*' -o -name 'tcp_decbit.ko*' \
		-o -name 'tcp_bimodal.ko*' -o -name 'tcp_fixedwin.ko*') | xargs)
log "left after purge: ${left:-nothing}"
ok "purge_leaves_no_file" test -z "$left"
ok "purge_leaves_no_dkms_entry" sh -c '! dkms status | grep -q congavoid'

echo "# Totals: pass:$((n - fail)) fail:$fail skip:0"
[ $fail = 0 ]
