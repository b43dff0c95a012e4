#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Run inside the test VM (tools/vm KERNEL -- selftests/run_vm.sh [TEST...]):
# load the modules built for this kernel, run the selftests (default: all
# of TEST_PROGS) each under the timeout in "settings", fail any test after
# which dmesg shows a WARN/BUG/Oops/lockdep/refcount/leak report, then
# unload the modules.  Output is KTAP with every test's results nested.
set -u
cd "$(dirname "$0")"
. ./lib.sh
trap - EXIT

krel=$(uname -r)
moddir=$TOP_DIR/build/$krel
timeout=$(sed -n 's/^timeout=//p' settings)
tests=("$@")
[ ${#tests[@]} -gt 0 ] || read -r -a tests <<<"$(make -s print-tests)"

DMESG_BAD='WARNING:|BUG:|Oops|general protection|lockdep|possible recursive locking|circular locking|refcount_t|underflow|use-after-free|memory leak|kmemleak|UBSAN|KASAN|Call Trace|unregister_netdevice: waiting'

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
mods=()
for ko in "$moddir"/*/*.ko; do
	[ -e "$ko" ] && mods+=("$ko")
done

echo "KTAP version 1"
echo "# kernel $krel"
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

# the tests
for t in "${tests[@]}"; do
	n=$((n + 1))
	dmesg_mark
	out=$(mktemp)
	start=$(date +%s)
	timeout --kill-after=10 "$timeout" "./$t" >"$out" 2>&1
	rc=$?
	secs=$(( $(date +%s) - start ))
	sed 's/^/    /' "$out"
	sub=$(grep -cE '^(not )?ok ' "$out")
	subfail=$(grep -cE '^not ok ' "$out")
	bad=$(dmesg_new_bad | head -n 5)
	if [ -n "$bad" ]; then
		echo "    not ok $((sub + 1)) dmesg_clean"
		dmesg | tail -n +$((dmesg_marker + 1)) | sed 's/^/    # dmesg: /' | head -n 60
		rc=$ksft_fail
	else
		echo "    ok $((sub + 1)) dmesg_clean"
	fi
	dmesg_emulator | sed 's/^/    # dmesg, emulator (not counted): /'
	if [ $rc = 124 ] || [ $rc = 137 ]; then
		echo "    not ok $((sub + 2)) completed # timeout after ${timeout}s"
	elif [ $rc != 0 ] && [ $rc != $ksft_skip ] && [ "$subfail" = 0 ] && [ -z "$bad" ]; then
		echo "    not ok $((sub + 2)) completed # exit status $rc"
	fi
	case $rc in
	0) echo "ok $n $t # ${secs}s" ;;
	"$ksft_skip") echo "ok $n $t # SKIP" ;;
	*) echo "not ok $n $t # ${secs}s" ;;
	esac
	rm -f "$out"
done

# last: unload the modules (in reverse order)
n=$((n + 1))
dmesg_mark
unload_ok=1
echo "    KTAP version 1"
echo "    1..$(( ${#mods[@]} + 1 ))"
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
if [ $unload_ok = 1 ]; then echo "ok $n unload_modules"; else echo "not ok $n unload_modules"; fi
