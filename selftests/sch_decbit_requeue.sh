#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# sch_decbit with packets the driver handed back: when a transmit queue is
# stopped the core parks dequeued packets on the qdisc's requeue list
# (still counted in its qlen, already released from the pool).  ifb stops
# its queue once txqueuelen packets wait for its tasklet, so with
# txqueuelen 2 a loaded decbit root on a four-queue ifb requeues all the
# time, on any kernel.
#
#   s =eth0/rs0=> r (ingress of rs0 redirected to ifb0, decbit root) => d
#
# Under UDP load: limit shrunk to 1 and back, the qdisc moved between two
# pools, the ifb taken down and up, the qdisc replaced; no oops, no
# warning, and both pools back at 0 buffers once the traffic stops.

. "$(dirname "$0")/lib.sh"

require_cmd tc python3
require_module sch_decbit ifb

ktap_header 6

setup_ns S R D || exit $ksft_fail
veth_pair "$S" eth0 "$R" rs0 10.1.0.1 10.1.0.254 &&
veth_pair "$R" rd0 "$D" eth0 10.2.0.1 10.2.0.2 || exit $ksft_fail
ip -n "$S" route add default via 10.1.0.254
ip -n "$D" route add default via 10.2.0.1
# segment the bursts in s (veth would carry them whole)
ip netns exec "$S" ethtool -K eth0 tx-udp-segmentation off >/dev/null
ip -n "$R" link add ifb0 numtxqueues 4 txqueuelen 2 type ifb || exit $ksft_fail
ip -n "$R" link set ifb0 up
# each pool keeps a member of its own (a dummy device that carries no
# traffic), so that it lives on while ifb0's qdisc moves between them
for d in dum1 dum2; do
	ip -n "$R" link add $d type dummy && ip -n "$R" link set $d up || exit $ksft_fail
done

rt() { tc -n "$R" "$@"; }
st() { qdisc_stat "$R" ifb0 "$1"; }

rt qdisc add dev dum1 root decbit pool 1 pool_limit 300
rt qdisc add dev dum2 root decbit pool 2 pool_limit 300
rt qdisc add dev ifb0 root decbit pool 1 limit 200
rt qdisc add dev rs0 handle ffff: ingress
rt filter add dev rs0 parent ffff: matchall action mirred egress redirect dev ifb0

# load: two senders of bursts of 40 datagrams
load() {
	local i
	for i in 1 2; do
		udp_burst "$S" 10.2.0.2 1000000 >/dev/null 2>&1 &
		PIDS+=($!)
	done
}
load
busywait 10000 sh -c "[ \$(tc -n $R -s -j qdisc show dev ifb0 | jq '.[0].requeues') -gt 100 ]"
rq=$(st requeues)
log "requeues under load: $rq"
check "requeues_happen ($rq)" test "${rq:-0}" -gt 100

# 2: limit 1 while packets wait on the requeue list, 80 times
shrink() {
	local i
	for i in $(seq 1 40); do
		rt qdisc change dev ifb0 root decbit limit 1 || return 1
		rt qdisc change dev ifb0 root decbit limit 200 || return 1
	done
}
check "change_limit_1_under_requeues" shrink

# 3: the qdisc moves between pools 1 and 2, 80 times
move() {
	local i
	for i in $(seq 1 40); do
		rt qdisc change dev ifb0 root decbit pool 2 || return 1
		rt qdisc change dev ifb0 root decbit pool 1 || return 1
	done
}
check "pool_moves_under_requeues" move

# 4: link down and up (the core resets the qdisc), 20 times
flap() {
	local i
	for i in $(seq 1 20); do
		ip -n "$R" link set ifb0 down && ip -n "$R" link set ifb0 up || return 1
	done
}
check "link_flaps_under_requeues" flap
log "requeues at the end of the load: $(st requeues)"

# 5-6: traffic stops: nothing is left in either pool (a packet released
# twice wraps the u32 count and makes the pool refuse everything)
ip netns pids "$S" | xargs -r kill 2>/dev/null
busywait 5000 sh -c "[ \$(tc -n $R -s -j qdisc show dev ifb0 | jq '.[0].qlen') = 0 ]"
u1=$(qdisc_stat "$R" dum1 pool_used); u2=$(qdisc_stat "$R" dum2 pool_used)
log "after the load: pool 1 used $u1 (qlen $(st qlen)), pool 2 used $u2, pool_dropped $(st pool_dropped)"
check "pools_empty_after_load (pool 1: $u1, pool 2: $u2)" test "$u1" = 0 -a "$u2" = 0
rt qdisc replace dev ifb0 root decbit pool 2
u2=$(qdisc_stat "$R" dum2 pool_used)
check "pool_empty_after_replace ($u2)" test "$u2" = 0

ktap_finish
