# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# sch_hbh's selftest helpers (sourced after lib.sh): the chain of wire
# links with real delays, and shorthands for the qdisc on it.

# wire_link NS_A DEV_A NS_B DEV_B ADDR_A ADDR_B DELAY: a point-to-point link
# A - W - B through a "wire" namespace W that delays both directions by
# DELAY (netem on W's egresses, mirred between W's two ends), so that A's
# and B's root qdiscs stay free for the qdisc under test.  Ethernet frames
# of any type cross it.  Addresses ADDR/24.
wire_link() {
	local na=$1 da=$2 nb=$3 db=$4 aa=$5 ab=$6 delay=$7 w d
	setup_ns W || return 1
	w=$W
	veth_pair "$na" "$da" "$w" wa "" "" || return 1
	veth_pair "$w" wb "$nb" "$db" "" "" || return 1
	ip -n "$na" addr add "$aa/24" dev "$da"
	ip -n "$nb" addr add "$ab/24" dev "$db"
	for d in wa wb; do
		ip netns exec "$w" tc qdisc add dev "$d" root netem delay "$delay" limit 100000
		ip netns exec "$w" tc qdisc add dev "$d" clsact
	done
	ip netns exec "$w" tc filter add dev wa ingress matchall action mirred egress redirect dev wb
	ip netns exec "$w" tc filter add dev wb ingress matchall action mirred egress redirect dev wa
}

# hbh_chain: the sch_hbh chain, every link on its own wire namespace with
# 10 ms each way (W01 and W12 name the first two wires):
#   h0 => r1 => r2 => r3 => h1,   x => r2
# with routes, a large backlog and large socket buffers on the hosts
hbh_chain() {
	setup_ns H0 H1 X R1 R2 R3 || return 1
	# shellcheck disable=SC2034 # the callers use W01 and W12
	wire_link "$H0" down "$R1" up 10.0.0.1 10.0.0.2 10ms && W01=$W &&
	wire_link "$R1" down "$R2" up 10.1.0.1 10.1.0.2 10ms && W12=$W &&
	wire_link "$R2" down "$R3" up 10.2.0.1 10.2.0.2 10ms &&
	wire_link "$R3" down "$H1" up 10.3.0.1 10.3.0.2 10ms &&
	wire_link "$X" down "$R2" x 10.20.0.1 10.20.0.2 10ms || return 1
	ip -n "$H0" route add default via 10.0.0.2
	ip -n "$X" route add default via 10.20.0.2
	ip -n "$R1" route add default via 10.1.0.2
	ip -n "$R2" route add default via 10.2.0.2
	ip -n "$R2" route add 10.0.0.0/24 via 10.1.0.1
	ip -n "$R3" route add default via 10.3.0.2
	ip -n "$R3" route add 10.0.0.0/8 via 10.2.0.1
	ip -n "$H1" route add default via 10.3.0.1
	sysctl -qw net.core.netdev_max_backlog=200000
	big_buffers "$H0" "$H1" "$X"
}

# hbh_ard: the plain-veth topology a (eth0) --- (up) r (down) --- (eth0) d
# of sch_hbh_hostile.sh and sch_hbh_keyed.sh, routed a -> d through r
hbh_ard() {
	setup_ns A R D || return 1
	veth_pair "$A" eth0 "$R" up 10.1.0.1 10.1.0.2 || return 1
	veth_pair "$R" down "$D" eth0 10.2.0.1 10.2.0.2 || return 1
	ip -n "$A" route add 10.2.0.0/24 via 10.1.0.2
	ip -n "$D" route add default via 10.2.0.1
}

# hoprtt_of NS ADDR: the round trip of one link (its netem plus the
# guest's timer latency), as an operator would set hoprtt, e.g. 20512us:
# the least of ten pings, so that a guest that stalls during one of them
# (TCG) does not set it (the mean of five once read 46 ms on a 20 ms link,
# and the hop's queue settled 42 % above its setpoint); "null" if no ping
# came back
hoprtt_of() {
	local r
	r=$(ip netns exec "$1" ping -c 10 -i 0.1 -q "$2" | sed -n 's|.*= \([0-9.]*\)/.*|\1|p')
	[ -n "$r" ] || { echo null; return; }
	awk -v r="$r" 'BEGIN { printf "%dus", r * 1000 }'
}

# rtt_ms NS ADDR: the mean of three pings, ms
rtt_ms() {
	ip netns exec "$1" ping -c 3 -i 0.2 -q "$2" | sed -n 's|.*= [0-9.]*/\([0-9.]*\)/.*|\1|p'
}

# hbh_down NS RATE [OPTIONS]: a fresh root hbh on NS's "down", its hoprtt
# $HOPRTT (the caller measures it with hoprtt_of)
hbh_down() {
	local ns=$1 rate=$2
	shift 2
	ip netns exec "$ns" tc qdisc del dev down root 2>/dev/null
	ip netns exec "$ns" tc qdisc add dev down root hbh rate "$rate" hoprtt "$HOPRTT" "$@"
}

# The shaper-bypass case of sch_hbh_hostile.sh and nic_router.sh: frames of
# the feedback Ethertype (0x88b5) from a local raw socket must be shaped
# like any other traffic, and both scripts first show that they flowed.
#
# fb_counter NS DEV: count and drop the feedback frames arriving at NS's
# DEV (clsact ingress, matchall at pref 1; removed when the test ends)
fb_counter() {
	tc -n "$1" qdisc add dev "$2" clsact || return 1
	defer tc -n "$1" qdisc del dev "$2" clsact
	tc -n "$1" filter add dev "$2" ingress pref 1 protocol 0x88b5 matchall action drop
}

# fb_count NS DEV: the frames fb_counter counted, "null" without its filter
fb_count() {
	tc -n "$1" -s -j filter show dev "$2" ingress pref 1 |
		jq -r '[.[] | select(.options) | .options.actions[0].stats.packets][0] // "null"'
}

# fb_blast NS DEV SECS: the blaster (hbh_frames.py: ~42 Mbit/s of
# 1500-byte frames) out of NS's DEV for SECS seconds, in the background;
# fb_blast_wait then sets blrc (its exit status), blsent (frames sent) and
# blline (its whole line: sent and refused)
fb_blast() {
	ip netns exec "$1" "$SELFTESTS_DIR/hbh_frames.py" blast "$2" "$3" 3500 1500 >"$TMP_DIR/blast" &
	fb_pid=$!
}
fb_blast_wait() {
	wait "$fb_pid"
	# shellcheck disable=SC2034	# set for the caller
	blrc=$?
	blline=$(cat "$TMP_DIR/blast")
	# shellcheck disable=SC2034
	read -r blsent _ <<<"$blline"
}
