# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers for the congavoid selftests, in the spirit of the kernel's
# tools/testing/selftests/net/lib.sh and forwarding/lib.sh: KTAP output,
# network namespaces that are always cleaned up, veth links with offloads
# off, dumbbell and chain topologies, busywait instead of fixed sleeps.
#
# A script is a list of named tests:
#
#	ALL_TESTS="udp_fill tcp_fill"
#	. "$(dirname "$0")/lib.sh"
#	udp_fill() { ...; check "name" CMD...; defer tc qdisc del ...; }
#	...
#	setup_prepare	# what every test shares (topology), if anything
#	tests_run
#
# tests_run runs the tests named in $TESTS (default: all of $ALL_TESTS, in
# that order), each a KTAP subtest whose checks are nested under it; the
# plan is the number of tests run.  A test cleans up after itself with
# defer (its stack runs when the test returns), so that each one also runs
# alone: TESTS="tcp_fill" selftests/sch_hbh.sh, or in the VM
# tools/check 6.12 -- sch_hbh.sh:tcp_fill.  Temporary files go in $TMP_DIR,
# one directory per run, removed at exit.

# kselftest exit codes
ksft_pass=0
ksft_fail=1
ksft_skip=4

SELFTESTS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP_DIR=$(cd "$SELFTESTS_DIR/.." && pwd)
export TC_LIB_DIR=${TC_LIB_DIR:-$TOP_DIR/build/tc}

KTAP_CNT=0
KTAP_PASS=0
KTAP_FAIL=0
KTAP_SKIP=0
KTAP_XFAIL=0
KTAP_IND=""		# the indentation of results: "    " inside a test
NS_LIST=()
PIDS=()

# one directory per run for temporary files, removed at exit
TMP_DIR=$(mktemp -d "${TMPDIR:-/tmp}/congavoid.XXXXXX")

ktap_header() {
	echo "KTAP version 1"
	echo "1..$1"
}

ktap_result() {	# ktap_result pass|fail|skip "description" [reason]
	KTAP_CNT=$((KTAP_CNT + 1))
	# SELFTEST_TIMES=1: the seconds since the script started, before
	# each result (where a test spends its time)
	[ -z "${SELFTEST_TIMES:-}" ] || echo "$KTAP_IND# at ${SECONDS}s"
	case $1 in
	pass) echo "${KTAP_IND}ok $KTAP_CNT $2"; KTAP_PASS=$((KTAP_PASS + 1)) ;;
	fail) echo "${KTAP_IND}not ok $KTAP_CNT $2${3:+ # $3}"; KTAP_FAIL=$((KTAP_FAIL + 1)) ;;
	skip) echo "${KTAP_IND}ok $KTAP_CNT $2 # SKIP ${3:-}"; KTAP_SKIP=$((KTAP_SKIP + 1)) ;;
	xfail) echo "${KTAP_IND}ok $KTAP_CNT $2 # XFAIL ${3:-}"; KTAP_XFAIL=$((KTAP_XFAIL + 1)) ;;
	esac
}

# check "description" COND-COMMAND...: one result from a command's status
check() {
	local desc=$1
	shift
	if "$@"; then
		ktap_result pass "$desc"
	else
		ktap_result fail "$desc"
	fi
}

# perf_check "description" COND-COMMAND...: a check on a performance
# figure (a rate, a utilisation, a time, a fairness index).  On a machine
# too slow for the figure (KSFT_MACHINE_SLOW=yes, as in the kernel's own
# selftests: make check-debug sets it for its debug kernel) a failure is
# reported as "ok N description # XFAIL slow machine": the figure is still
# printed, but only make check, on the production kernels, asserts it.
perf_check() {
	local desc=$1
	shift
	if "$@"; then
		ktap_result pass "$desc"
	elif [ "${KSFT_MACHINE_SLOW:-}" = yes ]; then
		ktap_result xfail "$desc" "slow machine"
	else
		ktap_result fail "$desc"
	fi
}

ktap_finish() {
	echo "# Totals: pass:$KTAP_PASS fail:$KTAP_FAIL skip:$KTAP_SKIP"
	[ $KTAP_FAIL -eq 0 ] && exit $ksft_pass
	exit $ksft_fail
}

log() { echo "$KTAP_IND# $*"; }

# defer CMD...: run CMD when the current test returns (or, outside a
# test, when the script exits), the last deferred first
DEFER_STACK=()
defer() {
	DEFER_STACK+=("$(printf '%q ' "$@")")
}
# defer_run [DEPTH]: run and drop the deferred commands above DEPTH
defer_run() {
	local keep=${1:-0} i
	for ((i = ${#DEFER_STACK[@]} - 1; i >= keep; i--)); do
		eval "${DEFER_STACK[$i]}" >/dev/null 2>&1
		unset "DEFER_STACK[$i]"
	done
	DEFER_STACK=("${DEFER_STACK[@]}")
}

# A missing prerequisite skips, except under make check, which sets
# KSFT_REQUIRE_ALL=yes: tools/setup and tools/vm provide every prerequisite
# there (tools, modules, tdc.py, NICs), so a missing one is a failure.
#
# skip_test REASON: inside a test, end it as skipped (a failed check
# "prerequisite: REASON" under make check)
SKIP_REASON=""
skip_test() {
	if [ "${KSFT_REQUIRE_ALL:-}" = yes ]; then
		ktap_result fail "prerequisite: $1" "make check needs it; tools/setup provides it"
		return $ksft_fail
	fi
	SKIP_REASON=$1
	return $ksft_skip
}

# skip_script REASON: before any test, skip the whole script (its exit
# status 4 and no plan; exit 1 under make check)
skip_script() {
	if [ "${KSFT_REQUIRE_ALL:-}" = yes ]; then
		echo "# FAIL: $1 (make check needs it; tools/setup provides it)"
		exit $ksft_fail
	fi
	echo "# SKIP: $1"
	exit $ksft_skip
}

# tests_run: run $TESTS (default $ALL_TESTS), each as a KTAP subtest with
# its checks nested; exits with the script's status.  An unknown name is
# refused before anything runs.
tests_run() {
	local sel=${TESTS:-$ALL_TESTS} t n=0 rc depth fail0 cnt0
	local npass=0 nfail=0 nskip=0
	for t in $sel; do
		if ! grep -qw -- "$t" <<<"$ALL_TESTS" || [ "$(type -t "$t")" != function ]; then
			echo "# unknown test \"$t\"; this script has: $ALL_TESTS"
			exit $ksft_fail
		fi
	done
	ktap_header "$(wc -w <<<"$sel")"
	for t in $sel; do
		n=$((n + 1))
		echo "    KTAP version 1"
		echo "    # Subtest: $t"
		cnt0=$KTAP_CNT fail0=$KTAP_FAIL
		KTAP_CNT=0 KTAP_IND="    " SKIP_REASON=""
		depth=${#DEFER_STACK[@]}
		"$t"
		rc=$?
		defer_run "$depth"
		KTAP_IND=""
		if [ $rc = $ksft_skip ] && [ $KTAP_FAIL = "$fail0" ]; then
			echo "ok $n $t # SKIP $SKIP_REASON"
			nskip=$((nskip + 1))
		elif [ $KTAP_FAIL != "$fail0" ] || [ $rc != 0 ]; then
			# a test that fails outside its checks (setup) says so
			[ $KTAP_FAIL != "$fail0" ] || echo "    # $t returned $rc"
			echo "not ok $n $t"
			nfail=$((nfail + 1))
		else
			echo "ok $n $t"
			npass=$((npass + 1))
		fi
		KTAP_CNT=$cnt0
	done
	local xf=""
	[ $KTAP_XFAIL = 0 ] || xf=" xfail:$KTAP_XFAIL"
	echo "# Totals: pass:$npass fail:$nfail skip:$nskip (checks: pass:$KTAP_PASS fail:$KTAP_FAIL skip:$KTAP_SKIP$xf)"
	[ $nfail = 0 ] && exit $ksft_pass
	exit $ksft_fail
}

# Numeric comparison of decimals: fcmp 0.95 '<=' 1.2.  False when either
# side is not a number (an empty or "null" measurement never passes).
fcmp() {
	awk -v a="$1" -v b="$3" "BEGIN { n = \"^[-+]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][-+]?[0-9]+)?\$\"
		exit !(a ~ n && b ~ n && a + 0 $2 b + 0) }"
}

# lines_match TEXT PATTERN...: TEXT has one line per PATTERN, the i-th line
# matching the i-th glob pattern as a whole (an empty TEXT matches none)
lines_match() {
	local text=$1 line i=0
	shift
	local pats=("$@")
	while IFS= read -r line; do
		# shellcheck disable=SC2053 # a pattern
		[ $i -lt ${#pats[@]} ] && [[ $line == ${pats[i]} ]] || return 1
		i=$((i + 1))
	done <<<"$text"
	test "$i" = "${#pats[@]}"
}

# busywait TIMEOUT_MS CMD...: retry CMD until it succeeds or time runs out.
busywait() {
	local tmo=$1 start now
	shift
	start=$(date +%s%3N)
	while true; do
		"$@" && return 0
		now=$(date +%s%3N)
		[ $((now - start)) -ge "$tmo" ] && return 1
		sleep 0.05
	done
}

# setup_ns VAR...: create a namespace named <VAR>-<random> for each VAR,
# with lo up, and set VAR to its name.  All are deleted on exit.
setup_ns() {
	local v name
	for v in "$@"; do
		# (not mktemp -u: a process costs ~50 ms in a TCG guest)
		name="$v-$RANDOM$RANDOM"
		ip netns add "$name" || return 1
		ip -n "$name" link set lo up
		ip netns exec "$name" sysctl -qw net.ipv4.tcp_no_metrics_save=1 \
			net.ipv4.ip_forward=1 net.ipv6.conf.all.disable_ipv6=1
		NS_LIST+=("$name")
		eval "$v=$name"
	done
}

# cleanup: stop the background processes and delete the namespaces (a
# script may call it to start again from nothing)
cleanup() {
	local p ns
	for p in "${PIDS[@]}"; do
		kill "$p" 2>/dev/null
	done
	for p in "${PIDS[@]}"; do
		wait "$p" 2>/dev/null
	done
	for ns in "${NS_LIST[@]}"; do
		ip netns pids "$ns" 2>/dev/null | xargs -r kill 2>/dev/null
		ip netns del "$ns" 2>/dev/null
	done
	NS_LIST=()
	# namespaces are torn down asynchronously: wait for their devices
	busywait 10000 sh -c '! ip netns list | grep -q .' 2>/dev/null || true
}
# lib_exit: at exit, the deferred commands, cleanup, and TMP_DIR goes (a
# script with an EXIT trap of its own calls it there)
lib_exit() {
	defer_run
	cleanup
	rm -rf "$TMP_DIR"
}
trap lib_exit EXIT

# veth_pair NS_A DEV_A NS_B DEV_B ADDR_A ADDR_B: a point-to-point link with
# offloads off, addresses ADDR/24 (none if empty).
veth_pair() {
	local na=$1 da=$2 nb=$3 db=$4 aa=$5 ab=$6
	ip link add name "$da" netns "$na" type veth peer name "$db" netns "$nb" || return 1
	ip netns exec "$na" ethtool -K "$da" tso off gso off gro off >/dev/null 2>&1
	ip netns exec "$nb" ethtool -K "$db" tso off gso off gro off >/dev/null 2>&1
	# each end's address and "up" in one ip process (-force: a command the
	# kernel refuses does not stop the next, as with one process each)
	{ [ -z "$aa" ] || echo "addr add $aa/24 dev $da"; echo "link set dev $da up"; } |
		ip -force -n "$na" -batch -
	{ [ -z "$ab" ] || echo "addr add $ab/24 dev $db"; echo "link set dev $db up"; } |
		ip -force -n "$nb" -batch -
}

# iperf3_servers NS PORT...: an iperf3 server in NS on each PORT (stopped
# with the script's processes); returns once the last one listens
iperf3_servers() {
	local ns=$1 p
	shift
	for p in "$@"; do
		ip netns exec "$ns" iperf3 -s -p "$p" >/dev/null 2>&1 &
		PIDS+=($!)
	done
	busywait 10000 ip netns exec "$ns" sh -c "ss -ltn | grep -q ':${*: -1} '"
}

# allow_cc NAME: let namespaces choose NAME as their default congestion
# control (it must be listed in the init namespace's allowed list)
allow_cc() {
	local allowed
	allowed=$(sysctl -n net.ipv4.tcp_allowed_congestion_control)
	grep -qw "$1" <<<"$allowed" ||
		sysctl -qw net.ipv4.tcp_allowed_congestion_control="$allowed $1"
}

# Large socket buffers (global on 6.1) for TCP tests.
big_buffers() {
	sysctl -qw net.core.rmem_max=33554432 net.core.wmem_max=33554432
	local ns
	for ns in "$@"; do
		ip netns exec "$ns" sysctl -qw net.ipv4.tcp_rmem="4096 131072 33554432" \
			net.ipv4.tcp_wmem="4096 131072 33554432"
	done
}

# dumbbell NSENDERS: senders s1..sN - router r1 - (bottleneck r1:rb0) -
# router r2 - receiver d.  Sets $S1..$SN, $R1, $R2, $D.  The bottleneck is
# r1's egress "rb0" towards r2; delay goes on r2's egress towards d
# ("r2d0") so that the qdisc under test never carries netem.
# Addresses: sender i 10.0.i.1, receiver 10.9.0.2.
dumbbell() {
	local n=$1 i s
	setup_ns R1 R2 D || return 1
	for i in $(seq 1 "$n"); do
		setup_ns "S$i" || return 1
		s=$(eval echo "\$S$i")
		veth_pair "$s" eth0 "$R1" "rs$i" "10.0.$i.1" "10.0.$i.254" || return 1
		ip -n "$s" route add default via "10.0.$i.254"
	done
	veth_pair "$R1" rb0 "$R2" rb1 10.8.0.1 10.8.0.2 || return 1
	veth_pair "$R2" r2d0 "$D" eth0 10.9.0.1 10.9.0.2 || return 1
	ip -n "$R1" route add 10.9.0.0/24 via 10.8.0.2
	ip -n "$R2" route add 10.0.0.0/16 via 10.8.0.1
	ip -n "$D" route add default via 10.9.0.1
}

# chain NROUTERS: host h0 - r1 - r2 - ... - rN - host h1.  Sets $H0, $H1 and
# $R1..$RN.  Link k (k = 0..N) joins hop k to hop k+1 in 10.k.0.0/24
# (.1 upstream, .2 downstream); router k's egress towards h1 is "down".
chain() {
	local n=$1 k prev cur
	setup_ns H0 H1 || return 1
	for k in $(seq 1 "$n"); do
		setup_ns "R$k" || return 1
	done
	prev=$H0
	for k in $(seq 0 "$n"); do
		if [ "$k" -eq "$n" ]; then cur=$H1; else cur=$(eval echo "\$R$((k + 1))"); fi
		veth_pair "$prev" down "$cur" up "10.$k.0.1" "10.$k.0.2" || return 1
		prev=$cur
	done
	ip -n "$H0" route add default via 10.0.0.2
	ip -n "$H1" route add default via "10.$n.0.1"
	for k in $(seq 1 "$n"); do
		cur=$(eval echo "\$R$k")
		ip -n "$cur" route add default via "10.$k.0.2"
		for j in $(seq 0 $((k - 2))); do
			ip -n "$cur" route add "10.$j.0.0/24" via "10.$((k - 1)).0.1"
		done
	done
	return 0
}

# data_tcp NS DST [FIELD]: a "name:value" field of ss -ti (default cwnd;
# e.g. minrtt) for the connection to DST with the most bytes acknowledged
# (an iperf3 data connection, not its control connection) among the
# established ones (a closing connection of an earlier flow keeps its
# counters); 0 if there is none.
data_tcp() {
	ip netns exec "$1" ss -tin state established dst "$2" | awk -v f="${3:-cwnd}:" '/cwnd:/ {
		c = 0; a = 0
		for (i = 1; i <= NF; i++) {
			if (index($i, f) == 1) c = substr($i, length(f) + 1)
			if ($i ~ /^bytes_acked:/) a = substr($i, 13)
		}
		if (a + 0 >= best) { best = a + 0; w = c }
	} END { print w + 0 }'
}
# acked_over NS DST BYTES: the data connection from NS to DST (data_tcp's)
# has more than BYTES acknowledged: its data flows (for a window timed
# from the flow, not from starting a client that may take seconds to run)
acked_over() { [ "$(data_tcp "$1" "$2" bytes_acked)" -gt "$3" ]; }
# now_ms: the time of day in ms, from bash's clock (no process)
now_ms() { local t=${EPOCHREALTIME//[!0-9]/}; echo $((t / 1000)); }

# qdisc_stat NS DEV KEY: a key of the root qdisc's statistics (tc -s -j;
# the root is listed first), "null" if absent.  Parsed by bash: under TCG
# each process costs ~250 ms and jq ~450 ms, and tests read hundreds.
qdisc_stat() {
	local j
	j=$(tc -n "$1" -s -j qdisc show dev "$2" 2>/dev/null) || return 1
	if [[ $j =~ \"$3\":\"?([^\",\}]*) ]]; then
		echo "${BASH_REMATCH[1]}"
	else
		echo null
	fi
}

# nstat_get NS COUNTER: an absolute SNMP counter in a namespace
nstat_get() {
	ip netns exec "$1" nstat -az "$2" | awk -v c="$2" '$1 == c { print $2 }'
}

# stall_start SLACK_MS: start selftests/stall_meter.py (how long the guest
# did not run beyond SLACK_MS at a time) and wait until it samples.
# stall_stop prints its "<excess_ms> <max_gap_ms> <stalls> <seconds>", or
# "null" if it did not run.  One meter at a time.
stall_start() {
	local i
	STALL_OUT=$(mktemp)
	"$SELFTESTS_DIR/stall_meter.py" "$1" >"$STALL_OUT" &
	STALL_PID=$!
	for i in $(seq 1 100); do
		grep -q '^ready$' "$STALL_OUT" && return 0
		sleep 0.1
	done
	return 1
}
stall_stop() {
	local r
	kill -TERM "$STALL_PID" 2>/dev/null
	wait "$STALL_PID" 2>/dev/null
	r=$(sed -n 2p "$STALL_OUT")
	rm -f "$STALL_OUT"
	[[ $r =~ ^[0-9.]+\ [0-9.]+\ [0-9]+\ [0-9.]+$ ]] && echo "$r" || echo null
}

# udp_blast NS ADDR COUNT [TOS]: COUNT 1400-byte datagrams as fast as possible
udp_blast() {
	ip netns exec "$1" python3 -c '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.IPPROTO_IP, socket.IP_TOS, int(sys.argv[3]))
for _ in range(int(sys.argv[2])):
    try:
        s.sendto(bytes(1400), (sys.argv[1], 9))
    except OSError:
        pass
' "$2" "$3" "${4:-0}"
}

# udp_burst NS ADDR COUNT: COUNT bursts of 40 1400-byte datagrams, each
# burst one UDP_SEGMENT send (segmented on the way out, so they arrive
# back to back in one softirq batch)
udp_burst() {
	ip netns exec "$1" python3 -c '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.IPPROTO_UDP, 103, 1400)    # UDP_SEGMENT
for _ in range(int(sys.argv[2])):
    try:
        s.sendto(bytes(1400 * 40), (sys.argv[1], 9))
    except OSError:
        pass
' "$2" "$3"
}

require_cmd() {
	local c
	for c in "$@"; do
		command -v "$c" >/dev/null || skip_script "$c not found"
	done
}

require_module() {
	local m
	for m in "$@"; do
		grep -q "^$m " /proc/modules || modprobe -q "$m" 2>/dev/null ||
			skip_script "module $m not loaded"
	done
}

# between X LO HI: LO <= X <= HI (numbers, awk's comparison)
between() { fcmp "$1" '>=' "$2" && fcmp "$1" '<=' "$3"; }

# nic_dev PAIR SIDE: the guest's name of a real NIC that tools/vm --nics
# gave it (virtio-net, MAC 52:54:00:ca:0P:0S), empty if there is none
nic_dev() {
	ip -o link | awk -v m="52:54:00:ca:0$1:0$2" '$0 ~ "link/ether " m {
		sub(":$", "", $2); sub("@.*", "", $2); print $2; exit }'
}

# nic_router: h0 - r - h1 over two back-to-back pairs of real NICs (pair 0:
# h0 "nic0" 10.50.0.1 - r "nic0" 10.50.0.2; pair 1: r "nic1" 10.51.0.1 -
# h1 "nic0" 10.51.0.2), four queue pairs each, offloads at the driver's
# defaults (GRO, GSO, TSO on).  Sets $H0, $R, $H1; skips the test without
# the NICs (tools/vm --nics 2; fails under make check): call it before
# the tests run (setup_prepare).  The NICs go back to the initial namespace
# when the namespaces are deleted.
nic_router() {
	local d ns name
	setup_ns H0 R H1 || return 1
	for d in "0 0 $H0 nic0 10.50.0.1" "0 1 $R nic0 10.50.0.2" \
		 "1 0 $R nic1 10.51.0.1" "1 1 $H1 nic0 10.51.0.2"; do
		set -- $d
		name=$(nic_dev "$1" "$2")
		[ -n "$name" ] || skip_script "no real NICs (boot with tools/vm --nics 2)"
		ns=$3
		ip link set dev "$name" down
		ip link set dev "$name" netns "$ns" name "$4" || return 1
		ip netns exec "$ns" ethtool -L "$4" combined 4 >/dev/null 2>&1
		ip -n "$ns" addr add "$5/24" dev "$4"
		ip -n "$ns" link set dev "$4" up
	done
	ip -n "$H0" route add default via 10.50.0.2
	ip -n "$H1" route add default via 10.51.0.1
	# the router's neighbours, so that the first packets are not queued
	busywait 5000 ip netns exec "$H0" ping -c1 -W1 10.51.0.2 >/dev/null
}

# the bottleneck sampled over netlink: qdisc_sampler, qdisc_rate
. "$SELFTESTS_DIR/lib_sample.sh"
