#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# tcp_decbit_echo: the receiver's ECE echo when a CWR segment arrives
# while the ACK of CE-marked segments is delayed (issue #19 item 3).
#
#   s (AF_PACKET, no address) - d (listener with the CC under test)
#
# ece_echo.py sends by hand: a handshake asking for ECN, 40 ECT(0)
# segments, then cycles of "CE, CE (ACK delayed), ECT(0) with CWR, ECT(0),
# ECT(0)", and checks every ACK: one CE state per ACK, ECE iff CE.  The
# stack clears the demand for CWR before it sees the CE state of the same
# segment; the delayed ACK of the two CE segments then left without ECE.
# dctcp, whose echo restores the state first, is the control.

ALL_TESTS="decbit_echo dctcp_control"

. "$(dirname "$0")/lib.sh"

require_cmd python3 ethtool jq
require_module tcp_decbit

CYCLES=6

# echo_run CC PORT: key=value words of one run against a listener with CC
# (which gives up after 20 s)
echo_run() {
	ip netns exec "$D" python3 -S "$SELFTESTS_DIR/ece_echo.py" serve 10.92.0.2 "$2" "$1" 20 &
	busywait 10000 ip netns exec "$D" sh -c "ss -ltn | grep -q ':$2 '"
	ip netns exec "$S" python3 -S "$SELFTESTS_DIR/ece_echo.py" send s0 10.92.0.1 10.92.0.2 \
		"$DMAC" "$2" "$CYCLES" 2>&1
}
# val WORDS KEY
val() { tr ' ' '\n' <<<"$1" | sed -n "s/^$2=//p"; }
# echo_seen NAME WORDS RC: the precondition of the checks on the ACKs, each
# a plain check of its own: the sender ended well (exit status RC) and saw
# the receiver's ACKs (>= 2 per warm-up pair and 3 per cycle), and the
# case under test happened: a delayed ACK of CE segments sent at a CWR in
# (almost) every cycle
echo_seen() {
	check "$1_sender_ran (exit $3, $(val "$2" acks) ACKs)" \
		test "$3" = 0 -a "$(val "$2" acks)" -ge $((20 + 3 * CYCLES))
	check "$1_delayed_ack_at_cwr ($(val "$2" at_cwr) of $CYCLES)" \
		test "$(val "$2" at_cwr)" -ge $((CYCLES - 2))
}

decbit_echo() {
	local d rc
	d=$(echo_run decbit 6100)
	rc=$?
	log "decbit (exit $rc): $d"
	echo_seen decbit "$d" "$rc"
	check "decbit_ce_acks_carry_ece_across_cwr (without: $(val "$d" ce_no_ece), at a CWR: $(val "$d" ce_no_ece_cwr))" \
		test "$(val "$d" ce_no_ece)" = 0
	check "decbit_ect_acks_no_ece ($(val "$d" ect_ece)) one_state_per_ack ($(val "$d" mixed) mixed)" \
		test "$(val "$d" ect_ece)" = 0 -a "$(val "$d" mixed)" = 0
}

# dctcp, whose echo restores the state first, is the control
dctcp_control() {
	local c rc
	modprobe -q tcp_dctcp 2>/dev/null || { skip_test "no tcp_dctcp"; return; }
	c=$(echo_run dctcp 6101)
	rc=$?
	log "dctcp (exit $rc): $c"
	echo_seen dctcp_control "$c" "$rc"
	check "dctcp_control_ce_acks_carry_ece ($(val "$c" ce_no_ece) without)" \
		test "$(val "$c" ce_no_ece)" = 0 -a "$(val "$c" mixed)" = 0
}

setup_prepare() {
	local x
	setup_ns S D || return 1
	ip link add s0 netns "$S" type veth peer name d0 netns "$D" || return 1
	for x in "$S s0" "$D d0"; do
		set -- $x
		ip netns exec "$1" ethtool -K "$2" tso off gso off gro off >/dev/null 2>&1
		ip -n "$1" link set "$2" up
	done
	# s's kernel has no address and forwards nothing: it never answers
	ip netns exec "$S" sysctl -qw net.ipv4.ip_forward=0
	ip -n "$D" addr add 10.92.0.2/24 dev d0
	ip -n "$D" neigh add 10.92.0.1 lladdr "$(ip -n "$S" -j link show s0 | jq -r '.[0].address')" \
		dev d0 nud permanent
	DMAC=$(ip -n "$D" -j link show d0 | jq -r '.[0].address')
}

setup_prepare || exit $ksft_fail
tests_run
