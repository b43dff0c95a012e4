#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Netlink fuzzing of decbit's and hbh's TCA_OPTIONS (nl_fuzz.py): random
# and mutated option sets (every attribute, wrong sizes, truncated, nested
# garbage, boundary values, duplicates) for add, change and replace, on a
# down and an up dummy, a veth's root and an htb class's child on another
# veth, while pings cross both veths.  Each request must be accepted or
# refused as the model of the netlink contract says, refused ones change
# nothing, accepted ones dump what they set, dumps replay.  Afterwards the
# fuzzed qdisc on the veth still passes traffic, and what tc prints of it
# replays on a fresh device.
#
# FUZZ_CASES cases per qdisc (default 2000; make check-debug: 100000),
# FUZZ_SEED a seed to reproduce a run (default: random, printed); one
# qdisc alone: TESTS=decbit_fuzz (or hbh_fuzz).

ALL_TESTS="decbit_fuzz hbh_fuzz hbh_rate_change"

. "$(dirname "$0")/lib.sh"

require_cmd tc python3 ping jq
require_module sch_decbit sch_hbh

cases=${FUZZ_CASES:-2000}
t() { tc -n "$A" "$@"; }

# opts DEV [PARENT]: the options tc prints for DEV's root (or PARENT's child)
opts() {
	local where=${2:+parent $2}
	t qdisc show dev "$1" ${where:-root} | head -n 1 |
		sed 's/^qdisc [a-z_]* [0-9a-f]*: \(root\|parent [0-9a-f:]*\) refcnt [0-9]* //;
		     s/^qdisc [a-z_]* [0-9a-f]*: \(root\|parent [0-9a-f:]*\) //; s/ *$//'
}
jopts() { t -j qdisc show dev "$1" | jq -c '[.[] | select(.root == true)][0].options'; }
kind_of() { t qdisc show dev "$1" root | awk '{ print $2; exit }'; }
sent() { t -s -j qdisc show dev "$1" | jq '[.[] | select(.root == true)][0].packets'; }

# same_opts JSON1 JSON2: the same options; numbers within the precision
# of tc's text (rates and times are printed to 3-4 significant digits: the
# exact values replay through netlink, which nl_fuzz.py checks)
same_opts() {
	python3 - "$1" "$2" <<'EOF'
import json, sys
a, b = (json.loads(x) for x in sys.argv[1:3])
def same(x, y):
    if isinstance(x, (int, float)) and isinstance(y, (int, float)):
        return abs(x - y) <= max(1, 0.01 * max(abs(x), abs(y)))
    return x == y
sys.exit(not (isinstance(a, dict) and isinstance(b, dict) and a.keys() == b.keys()
              and all(same(a[k], b[k]) for k in a)))
EOF
}

# passes DEV PEER_ADDR: 20 pings answered, and the root qdisc counted them
passes() {
	local before after got
	before=$(sent "$1")
	got=$(ip netns exec "$A" ping -c 20 -i 0.05 -W 2 -q "$2" |
		sed -n 's/.* \([0-9]*\) received.*/\1/p')
	after=$(sent "$1")
	log "$1: $got of 20 pings answered, its qdisc sent $((after - before)) packets"
	[ "${got:-0}" -ge 19 ] && [ $((after - before)) -ge 20 ]
}

# a change of rate restarts hbh's link clock.  At 1 byte/s the first
# packets put the link's next departure minutes ahead (the rest queue);
# after "change rate 10mbit" what is queued and what comes next leave at
# once.  (Found by the fuzzer: the clock of an earlier tiny rate survived
# the change and the qdisc sent nothing for minutes.)
rate_change_unstalls() {
	local q1 got left
	t qdisc replace dev a1 root hbh rate 8bit
	# (the link's clock lets two packets go at once after idle: its
	# burst bound, slack or one packet's time, plus one)
	ip netns exec "$A" ping -c 5 -i 0.2 -W 1 -q 10.0.1.2 >/dev/null 2>&1
	q1=$(qdisc_stat "$A" a1 qlen)
	t qdisc change dev a1 root hbh rate 10mbit
	got=$(ip netns exec "$A" ping -c 20 -i 0.05 -W 2 -q 10.0.1.2 |
		sed -n 's/.* \([0-9]*\) received.*/\1/p')
	left=$(qdisc_stat "$A" a1 qlen)
	log "hbh at 1 byte/s: $q1 packets queued; changed to 10mbit: ${got:-0} of 20 pings answered, $left left queued"
	t qdisc del dev a1 root
	[ "${q1:-0}" -ge 2 ] && [ "${got:-0}" -ge 19 ] && [ "$left" = 0 ]
}

declare -A sane=(
	[decbit]="limit 1000 threshold 1 hysteresis 0 rate 0 catchup 4ms nonect pass pool 0 noinput"
	[hbh]="rate 100mbit limit 10000 flow_limit 100 setpoint 20 rise default rate_min default mode hbh"
)

# fuzz KIND: the fuzzer on d0 (down), d1 (up), a1's root and the htb
# class's child on a0, while pings cross both veths; then the fuzzed
# qdisc's dump replays and, set to pass traffic, it does
fuzz() {
	local kind=$1 secs start out rc got mism fuzzed j1 j2
	secs=$(( cases / 10 + 120 ))
	ip netns exec "$A" ping -i 0.01 -w "$secs" -q 10.0.0.2 >/dev/null 2>&1 &
	defer kill $!
	ip netns exec "$A" ping -i 0.01 -w "$secs" -q 10.0.1.2 >/dev/null 2>&1 &
	defer kill $!
	start=$(date +%s)
	out=$(ip netns exec "$A" "$SELFTESTS_DIR/nl_fuzz.py" "$kind" --cases "$cases" \
		${FUZZ_SEED:+--seed "$FUZZ_SEED"} d0 d1 a1 a0:1:1 2>&1)
	rc=$?
	grep '^# ' <<<"$out" | head -n 30 | sed "s/^/$KTAP_IND/"
	grep -q '^cases=' <<<"$out" || tail -n 20 <<<"$out" | sed "s/^/$KTAP_IND# /"
	got=$(sed -n 's/^cases=\([0-9]*\) .*/\1/p' <<<"$out")
	mism=$(sed -n 's/^cases=.* mismatches=\([0-9]*\) .*/\1/p' <<<"$out")
	log "$kind: ${got:-0} cases in $(( $(date +%s) - start )) s, ${mism:-?} mismatches"
	check "${kind}_fuzz_${cases}_cases_as_the_model_says" \
		test "$rc" = 0 -a "${got:-0}" -ge "$cases" -a "${mism:-1}" = 0

	# the fuzzed qdisc on a1, if the last case left one of this kind
	[ "$(kind_of a1)" = "$kind" ] || t qdisc replace dev a1 root "$kind" rate 10mbit
	fuzzed=$(opts a1)
	log "a1 after fuzzing: $kind $fuzzed"
	# what tc prints of it replays on a fresh device, and dumps the same
	t qdisc del dev d2 root 2>/dev/null
	# shellcheck disable=SC2086
	t qdisc add dev d2 root "$kind" $fuzzed 2>&1 | head -n 3
	j1=$(jopts a1) j2=$(jopts d2)
	[ "$j1" = "$j2" ] || log "a1 $j1, replayed on d2 $j2"
	check "${kind}_fuzzed_dump_replays" same_opts "$j1" "$j2"
	t qdisc del dev d2 root 2>/dev/null

	# the same instance, set to pass traffic, passes it
	# shellcheck disable=SC2086
	t qdisc change dev a1 root "$kind" ${sane[$kind]}
	check "${kind}_fuzzed_root_passes_traffic" passes a1 10.0.1.2
	# the htb class's child: this kind, set the same way
	# shellcheck disable=SC2086
	t qdisc replace dev a0 parent 1:1 "$kind" ${sane[$kind]}
	check "${kind}_fuzzed_child_passes_traffic" sh -c "ip netns exec $A ping -c 20 -i 0.05 -W 2 -q 10.0.0.2 |
		grep -Eq ' (19|20) received'"
	t qdisc del dev a1 root 2>/dev/null
	t qdisc del dev d0 root 2>/dev/null
	t qdisc del dev d1 root 2>/dev/null
	t qdisc del dev a0 parent 1:1 2>/dev/null
}
decbit_fuzz() { fuzz decbit; }
hbh_fuzz() { fuzz hbh; }

hbh_rate_change() {
	check "hbh_rate_change_restarts_link_clock" rate_change_unstalls
}

setup_prepare() {
	local d
	setup_ns A B || return 1
	veth_pair "$A" a0 "$B" b0 10.0.0.1 10.0.0.2 || return 1
	veth_pair "$A" a1 "$B" b1 10.0.1.1 10.0.1.2 || return 1
	for d in d0 d1 d2; do
		ip -n "$A" link add "$d" type dummy || return 1
	done
	ip -n "$A" link set d1 up
	ip -n "$A" link set d2 up
	t qdisc add dev a0 root handle 1: htb default 1 &&
		t class add dev a0 parent 1: classid 1:1 htb rate 100mbit
}

setup_prepare || exit $ksft_fail
tests_run
