#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Run inside the test VM (tools/vm KERNEL -- selftests/run_vm.sh [TEST...]):
# load the modules built for this kernel, run the selftests (default: all
# of TEST_PROGS; SCRIPT.sh:NAME[,NAME...] runs only those tests of a
# script written as a list of tests) each under the timeout in "settings"
# (TEST_TIMEOUT overrides it), fail any test after which dmesg shows a WARN/BUG/Oops/
# lockdep/refcount/leak/KASAN/KFENCE/UBSAN/ODEBUG report, then unload the
# modules.  Output is KTAP with every test's results nested.
#
# On a kernel with kmemleak (the debug kernel of make check-debug), every
# test ends with a kmemleak scan: a new unreferenced object fails it (the
# report is printed), and the leaks known before the test are cleared.
set -u
cd "$(dirname "$0")" || exit 1
. ./lib.sh
. ./ktap.sh
trap - EXIT

krel=$(uname -r)
moddir=$TOP_DIR/build/$krel
timeout=${TEST_TIMEOUT:-$(sed -n 's/^timeout=//p' settings)}
tests=("$@")
[ ${#tests[@]} -gt 0 ] || read -r -a tests <<<"$(make -s print-tests)"

DMESG_BAD='WARNING:|BUG:|Oops|general protection|lockdep|possible recursive locking|circular locking|refcount_t|underflow|use-after-free|memory leak|kmemleak|UBSAN|KASAN|KFENCE|ODEBUG|Call Trace|unregister_netdevice: waiting'

# A kernel-mode single-step #DB, "WARNING: ... at arch/x86/kernel/traps.c:N
# exc_debug_kernel", is the emulator's doing (the kernel's comment there:
# QEMU leaks #DB into the guest; seen once under TCG with reserved RFLAGS
# bits set, in iperf3's recvmsg).  Such a report, from "cut here" to "end
# trace", is left out of the check and named on a line of its own.
EMULATOR_WARN='WARNING: .* at arch/x86/kernel/traps\.c:[0-9]+ exc_debug_kernel'

dmesg_marker=0
dmesg_mark() { dmesg_marker=$(dmesg | wc -l); }
dmesg_new() {
	dmesg | tail -n +$((dmesg_marker + 1)) | awk -v emu="$EMULATOR_WARN" '
		/------------\[ cut here \]------------/ { n = 0; inblk = 1 }
		inblk { blk[++n] = $0; if ($0 ~ emu) skip = 1
			if ($0 ~ /---\[ end trace/) {
				if (!skip) for (i = 1; i <= n; i++) print blk[i]
				inblk = skip = 0
			}
			next }
		{ print }
		END { if (inblk) for (i = 1; i <= n; i++) print blk[i] }'
}
dmesg_new_bad() { dmesg_new | grep -E "$DMESG_BAD"; }
dmesg_emulator() { dmesg | tail -n +$((dmesg_marker + 1)) | grep -E "$EMULATOR_WARN"; }

sysctl -qw kernel.printk="4 4 1 7"

# kmemleak: scan after each test, nothing new may be unreferenced
kml=/sys/kernel/debug/kmemleak
[ -e /sys/kernel/debug/kmemleak ] || mount -t debugfs none /sys/kernel/debug 2>/dev/null
[ -w $kml ] || kml=
kmemleak_clear() {
	[ -n "$kml" ] || return 0
	echo scan=off >$kml		# only the scans asked for here
	echo scan >$kml
	echo clear >$kml
}
# kmemleak_new: the report of objects left unreferenced since the last
# clear.  An object is only reported once it is 5 s old: wait that long.
kmemleak_new() {
	[ -n "$kml" ] || return 0
	sleep 6
	echo scan >$kml
	echo scan >$kml
	cat $kml
	echo clear >$kml
}
kmemleak_clear
mods=()
for ko in "$moddir"/*/*.ko; do
	[ -e "$ko" ] && mods+=("$ko")
done

echo "KTAP version 1"
echo "# kernel $krel${kml:+ (kmemleak: a scan after each test)}"
echo "1..$(( ${#tests[@]} + 2 ))"
n=0

# 1: load the modules
n=$((n + 1))
dmesg_mark
load_ok=1
echo "    KTAP version 1"
echo "    1..$(( ${#mods[@]} + 1 ))"
i=0
for ko in "${mods[@]}"; do
	i=$((i + 1))
	name=$(basename "$ko" .ko)
	if out=$(insmod "$ko" 2>&1); then
		echo "    ok $i insmod $name"
	else
		echo "    not ok $i insmod $name # $out"
		load_ok=0
	fi
done
if bad=$(dmesg_new_bad); then
	echo "    not ok $((i + 1)) dmesg_clean"
	echo "$bad" | sed 's/^/    # dmesg: /'
	load_ok=0
else
	echo "    ok $((i + 1)) dmesg_clean"
fi
if [ $load_ok = 1 ]; then echo "ok $n load_modules"; else echo "not ok $n load_modules"; fi

# the tests: each script's output relayed as a subtest with the runner's
# own checks after it (ktap_script in ktap.sh)
for t in "${tests[@]}"; do
	n=$((n + 1))
	dmesg_mark
	out=$(mktemp)
	start=$(date +%s)
	script=${t%%:*} sel=
	[ "$script" = "$t" ] || sel=${t#*:}
	TESTS=${sel//,/ } timeout --kill-after=10 "$timeout" "./$script" >"$out" 2>&1
	trc=$?
	secs=$(( $(date +%s) - start ))
	# what the script left in the kernel: $out.dmesg (a report, empty if
	# clean), $out.leaks (kmemleak's, when there is kmemleak), $out.emu
	if [ -n "$(dmesg_new_bad | head -n 5)" ]; then
		dmesg | tail -n +$((dmesg_marker + 1)) | head -n 200 >"$out.dmesg"
	else
		: >"$out.dmesg"
	fi
	[ -z "$kml" ] || kmemleak_new | head -n 200 >"$out.leaks"
	dmesg_emulator >"$out.emu"
	ktap_script "$n" "$t" "$out" "$trc" "$secs" "$timeout"
	rm -f "$out" "$out.dmesg" "$out.leaks" "$out.emu"
done

# last: unload the modules (in reverse order)
n=$((n + 1))
dmesg_mark
unload_ok=1
echo "    KTAP version 1"
echo "    1..$(( ${#mods[@]} + 1 + ${kml:+1}0 / 10 ))"
i=0
for ((j = ${#mods[@]} - 1; j >= 0; j--)); do
	i=$((i + 1))
	name=$(basename "${mods[$j]}" .ko)
	if out=$(rmmod "$name" 2>&1); then
		echo "    ok $i rmmod $name"
	else
		echo "    not ok $i rmmod $name # $out"
		unload_ok=0
	fi
done
if bad=$(dmesg_new_bad); then
	echo "    not ok $((i + 1)) dmesg_clean"
	echo "$bad" | sed 's/^/    # dmesg: /'
	unload_ok=0
else
	echo "    ok $((i + 1)) dmesg_clean"
fi
if [ -n "$kml" ]; then
	# what the modules allocated and never freed is unreferenced now
	leaks=$(kmemleak_new)
	if [ -n "$leaks" ]; then
		echo "    not ok $((i + 2)) kmemleak_clean"
		echo "$leaks" | sed 's/^/    # kmemleak: /' | head -n 200
		unload_ok=0
	else
		echo "    ok $((i + 2)) kmemleak_clean"
	fi
fi
if [ $unload_ok = 1 ]; then echo "ok $n unload_modules"; else echo "not ok $n unload_modules"; fi
