#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# sch_decbit on a router with offloads on: GRO at the router's ingress
# builds super-packets of up to 64 KB, TSO/GSO at the senders.  Every count
# of the qdisc is in packets on the wire (a GSO skb counts its segments;
# paced, it is split at enqueue), so the CE-marked packets the receiver
# counts (IpExtInCEPkts) equal the qdisc's "marked".
#
#   s1, s2 =(veth, TSO/GSO on)=> r (GRO on rs*, decbit on rd0) =(veth)=> d
#
# Paced: two cubic ECN flows through decbit rate 40mbit threshold 2.
# Unpaced: decbit threshold 0.001 as the root of rd0 (no bottleneck: it
# marks nearly every packet), the same two flows.

ALL_TESTS="paced unpaced split_under_parent"

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_decbit.sh"

require_cmd tc iperf3 nstat ethtool jq
require_module sch_decbit

# two_flows SECS: one cubic ECN flow from each sender; sets FLOWS_RC to
# their exit statuses ("0 0": both ran)
two_flows() {
	local p1 rc2
	ip netns exec "$S1" iperf3 -c 10.9.0.2 -p 5201 -t "$1" >"$TMP_DIR/f1" 2>&1 &
	p1=$!
	ip netns exec "$S2" iperf3 -c 10.9.0.2 -p 5202 -t "$1" >"$TMP_DIR/f2" 2>&1
	rc2=$?
	wait $p1
	FLOWS_RC="$? $rc2"
	[ "$FLOWS_RC" = "0 0" ] || log "iperf3 exited $FLOWS_RC: $(tail -qn 1 "$TMP_DIR/f1" "$TMP_DIR/f2" | xargs)"
}
ce() { nstat_get "$D" IpExtInCEPkts; }
# packets r's ingress received, less the skbs it passed up: what GRO merged
gro_skbs() {
	ip netns exec "$R" cat /sys/class/net/rs1/statistics/rx_packets /sys/class/net/rs2/statistics/rx_packets |
		awk '{ s += $1 } END { print s }'
}
no_root() { tc -n "$R" qdisc del dev rd0 root 2>/dev/null; return 0; }

# phase QDISC-OPTIONS...: the receiver's CE count against the qdisc's
# (P_CE, P_MARKED; "null" unless both counts were read) and the packets
# it sent (P_SENT), the qdisc left in place
phase() {
	local ce0 ce1 m0 m1 gro0 gro1
	no_root
	defer no_root
	tc -n "$R" qdisc add dev rd0 root decbit "$@"
	ce0=$(ce) m0=$(qdisc_stat "$R" rd0 marked) gro0=$(gro_skbs)
	two_flows 4
	ce1=$(ce) m1=$(qdisc_stat "$R" rd0 marked) gro1=$(gro_skbs)
	P_CE=$(count_diff "$ce0" "$ce1") P_MARKED=$(count_diff "$m0" "$m1")
	P_SENT=$(qdisc_stat "$R" rd0 packets)
	log "decbit $*: receiver CE $P_CE, qdisc marked $P_MARKED of $P_SENT packets; r's ingress merged $((gro1 - gro0)) super-packets"
}
# flows_ran: both senders exited 0 and the qdisc sent packets
flows_ran() { [ "$FLOWS_RC" = "0 0" ] && fcmp "$P_SENT" '>' 0; }

paced() {
	phase rate 40mbit threshold 2
	check "paced_flows_ran (iperf3 status $FLOWS_RC, $P_SENT packets)" flows_ran
	check "paced_marks_some ($P_MARKED)" fcmp "$P_MARKED" '>' 0
	perf_check "paced_marks_many ($P_MARKED > 100)" fcmp "$P_MARKED" '>' 100
	check "paced_marked_equals_receiver_ce ($P_MARKED = $P_CE)" fcmp "$P_MARKED" '==' "$P_CE"
	check "paced_no_drops" fcmp "$(qdisc_stat "$R" rd0 drops)" '==' 0
}

unpaced() {
	phase threshold 0.001
	check "unpaced_flows_ran (iperf3 status $FLOWS_RC, $P_SENT packets)" flows_ran
	check "unpaced_marks_some ($P_MARKED)" fcmp "$P_MARKED" '>' 0
	perf_check "unpaced_marks_many ($P_MARKED > 1000)" fcmp "$P_MARKED" '>' 1000
	check "unpaced_marked_equals_receiver_ce ($P_MARKED = $P_CE)" fcmp "$P_MARKED" '==' "$P_CE"
	check "unpaced_no_drops" fcmp "$(qdisc_stat "$R" rd0 drops)" '==' 0
}

# paced under a parent (htb), local UDP GSO bursts of 40 segments into
# "limit 1": the first segment of a burst may queue, the rest are dropped,
# and a burst arriving while one is queued is dropped whole.  The parent
# counts a burst whose segments all dropped as never queued: its qlen must
# come back to 0 (the split used to take one skb off the parent's count
# for such a burst, which it never counted).  Then TSO TCP from s1, merged
# again by GRO at r's ingress: a super-packet of which exactly one segment
# is admitted must leave the parent's byte backlog holding that segment's
# bytes, not the super-packet's (it used to keep the difference for
# ever): htb's qdisc and class backlog come back to 0 bytes.
split_under_parent() {
	local j pq pb cb cq cd cp d0 rc
	no_root
	defer no_root
	tc -n "$R" qdisc add dev rd0 root handle 1: htb default 1
	tc -n "$R" class add dev rd0 parent 1: classid 1:1 htb rate 1gbit
	tc -n "$R" qdisc add dev rd0 parent 1:1 handle 10: decbit rate 10mbit limit 1
	udp_burst "$R" 10.9.0.2 50
	parent_stats
	log "UDP: htb parent qlen $pq, backlog $pb B, class 1:1 backlog $cb; decbit child qlen $cq, drops $cd, sent $cp"
	check "split_drops_counted ($cd)" fcmp "$cd" '>' 1000
	check "parent_qlen_back_to_0 ($pq)" fcmp "$pq" '==' 0
	check "parent_backlog_back_to_0 (qdisc $pb, class $cb)" \
		sh -c "[ '$pb' = 0 ] && [ '$cb' = 0b ]"

	d0=$cd
	ip netns exec "$S1" iperf3 -c 10.9.0.2 -p 5201 -t 2 >"$TMP_DIR/f1" 2>&1
	rc=$?
	parent_stats
	log "TCP: iperf3 status $rc; htb parent qlen $pq, backlog $pb B, class 1:1 backlog $cb; decbit child drops $((cd - d0)), sent $cp"
	check "split_tcp_ran (iperf3 status $rc, $((cd - d0)) segments dropped at the child)" \
		sh -c "[ $rc = 0 ] && [ $((cd - d0)) -gt 0 ]"
	check "parent_backlog_back_to_0_after_tcp (qdisc $pb, class $cb, qlen $pq)" \
		sh -c "[ '$pb' = 0 ] && [ '$cb' = 0b ] && [ '$pq' = 0 ]"
}
# parent_stats: once the child's queue is empty, htb's qlen and backlog
# (pq, pb), class 1:1's backlog as tc prints it (cb: "0b" when empty; its
# JSON with -s is not valid JSON in this iproute2), the child's qlen,
# drops, packets (cq, cd, cp); "null" or empty where not read
parent_stats() {
	busywait 3000 sh -c "[ \$(tc -n $R -s -j qdisc show dev rd0 | jq '.[] | select(.kind == \"decbit\") | .qlen') = 0 ]"
	sleep 0.2
	j=$(tc -n "$R" -s -j qdisc show dev rd0)
	pq=$(jq '.[] | select(.kind == "htb") | .qlen' <<<"$j")
	pb=$(jq '.[] | select(.kind == "htb") | .backlog' <<<"$j")
	cb=$(tc -n "$R" -s class show dev rd0 classid 1:1 |
		awk '{ for (i = 1; i < NF; i++) if ($i == "backlog") { print $(i + 1); exit } }')
	cq=$(jq '.[] | select(.kind == "decbit") | .qlen' <<<"$j")
	cd=$(jq '.[] | select(.kind == "decbit") | .drops' <<<"$j")
	cp=$(jq '.[] | select(.kind == "decbit") | .packets' <<<"$j")
}

setup_prepare() {
	local i s
	setup_ns S1 S2 R D || return 1
	for i in 1 2; do
		s=$(eval echo "\$S$i")
		ip link add name eth0 netns "$s" type veth peer name "rs$i" netns "$R" &&
		ip -n "$s" addr add "10.0.$i.1/24" dev eth0 &&
		ip -n "$R" addr add "10.0.$i.254/24" dev "rs$i" &&
		ip -n "$s" link set eth0 up && ip -n "$R" link set "rs$i" up &&
		ip -n "$s" route add default via "10.0.$i.254" || return 1
		# a router's default: GRO on its ingress (veth needs it asked for)
		ip netns exec "$R" ethtool -K "rs$i" gro on >/dev/null
		ip netns exec "$s" sysctl -qw net.ipv4.tcp_ecn=1 net.ipv4.tcp_congestion_control=cubic
	done
	ip link add name rd0 netns "$R" type veth peer name eth0 netns "$D" &&
	ip -n "$R" addr add 10.9.0.1/24 dev rd0 && ip -n "$D" addr add 10.9.0.2/24 dev eth0 &&
	ip -n "$R" link set rd0 up && ip -n "$D" link set eth0 up &&
	ip -n "$D" route add default via 10.9.0.1 || return 1
	ip netns exec "$D" sysctl -qw net.ipv4.tcp_ecn=1
	big_buffers "$S1" "$S2" "$D"
	log "offloads at r's ingress: $(ip netns exec "$R" ethtool -k rs1 | grep -E '^(generic-receive|tcp-segmentation)-offload' | tr '\n' ' ')"
	iperf3_servers "$D" 5201 5202
}

setup_prepare || exit $ksft_fail
tests_run
