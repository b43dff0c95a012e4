#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# sch_decbit with ECN TCP senders: two flows over a "decbit rate 10mbit"
# bottleneck with a 20 ms RTT: the paper's own source (tcp_decbit on both
# ends) at thresholds 1 and 2, then dctcp at threshold 1: ECN is
# negotiated, the queue stays short and nothing is dropped.
#
# tcp_decbit at C = 2 keeps the link about 90 % busy (the paper's figure;
# see floor2 below).  At C = 1 the pair sits lower on a TCG guest: late
# pacing timers bunch arrivals, and the cycle average reaches 1 before the
# knee (see tcp_decbit.sh).
#
# DCTCP is not the source DECbit's marking was designed for: at full
# utilisation the link never idles, so the cycle average stays >= 1 and
# every packet is marked; DCTCP then cuts by up to half every RTT.  It ends
# near half utilisation at C = 1 (docs/testing.md has the figures), which
# is logged, with a floor (0.40, just below 20 runs' 0.410-0.504 of
# 2026-12-07) asserted against stalls.  The 90 % belongs to the paper's
# own source (tcp_decbit).
#
# s1, s2 - r1 =[rb0: decbit rate 10mbit]=> r2 =[r2d0: netem 20ms]=> d

ALL_TESTS="decbit_source dctcp_source"

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_decbit.sh"

require_cmd tc iperf3 jq ethtool
require_module sch_decbit tcp_decbit tcp_dctcp sch_netem

# the measurement (5 s of warm-up, then 12 s, from the moment traffic
# first crosses the link) ends 3 s before the first flow does (the second
# starts later and ends later; 23 s gave 6 s of this for nothing)
secs=20
# run_pair CC PORT THRESHOLD: two CC flows (to PORT and PORT + 1) through
# "decbit rate 10mbit threshold THRESHOLD"; sets util, qmean, samples,
# covered (the window lay inside the sampling), win_from (where it
# began, ms of the sampler), first_end (the sampler's
# time, ms, when the first flow to end had ended), drops, marked, rtx, and
# flows: "<status> <bytes sent>" of each flow
run_pair() {
	local cc=$1 port=$2 c1 c2 rc1 rc2 sp lost lms ended rc
	shift 2
	ip netns exec "$R1" tc qdisc del dev rb0 root 2>/dev/null
	ip netns exec "$R1" tc qdisc add dev rb0 root decbit rate 10mbit threshold "$1"
	# the bottleneck every 100 ms (every 20 ms, the sampler's Python took
	# CPU the flows needed: tcp_decbit.sh's flow) from before the flows;
	# the window skips their first 5 s (slow start) and lasts 12 s
	qdisc_sampler "$R1" rb0 $((secs + 30)) "$TMP_DIR/tq" 100
	sp=$sampler_pid
	ip netns exec "$S1" iperf3 -c 10.9.0.2 -p "$port" -C "$cc" -t $secs -J >"$TMP_DIR/f1.json" 2>&1 &
	c1=$!
	ip netns exec "$S2" iperf3 -c 10.9.0.2 -p $((port + 1)) -C "$cc" -t $secs -J >"$TMP_DIR/f2.json" 2>&1 &
	c2=$!
	# the first flow to end, then the sampler's clock: the window must
	# have closed by then (flows_ran)
	wait -n -p ended "$c1" "$c2"
	rc=$?
	first_end=$(sampler_now "$TMP_DIR/tq")
	if [ "$ended" = "$c1" ]; then
		rc1=$rc
		wait "$c2"
		rc2=$?
	else
		rc2=$rc
		wait "$c1"
		rc1=$?
	fi
	kill "$sp" 2>/dev/null
	wait "$sp" 2>/dev/null
	read -r util qmean samples win_from covered <<<"$(flow_window "$TMP_DIR/tq" 5000 12000 10e6)"
	# the link time late dequeues cost the window (logged)
	read -r lost lms <<<"$(qdisc_lost "${win_from/-/0}" $((${win_from/-/0} + 12000)) <"$TMP_DIR/tq")"
	drops=$(qdisc_stat "$R1" rb0 drops)
	marked=$(qdisc_stat "$R1" rb0 marked)
	# (a figure iperf3 did not report is "null", never 0)
	rtx=$(jq -rs 'map(.end.sum_sent.retransmits) | if length == 2 and all(type == "number") then add else "null" end' \
		"$TMP_DIR/f1.json" "$TMP_DIR/f2.json" 2>/dev/null) || rtx=null
	flows="$rc1 $(jq -r '.end.sum_sent.bytes // "null"' "$TMP_DIR/f1.json" 2>/dev/null || echo null)"
	flows+=" $rc2 $(jq -r '.end.sum_sent.bytes // "null"' "$TMP_DIR/f2.json" 2>/dev/null || echo null)"
	log "$cc threshold $1: link utilisation $util, mean queue $qmean pkts ($samples samples from $win_from ms of the sampler, covered: $covered; the first flow ended at ${first_end:-?} ms), link time lost to late dequeues $lost ($lms ms), drops $drops, marked $marked, retransmits $rtx"
	[ "$rc1$rc2" = 00 ] || log "iperf3 exited $rc1 and $rc2: $(jq -r '.error // empty' "$TMP_DIR/f1.json" "$TMP_DIR/f2.json" 2>&1 | xargs)"
	rm -f "$TMP_DIR/tq"
	ip netns exec "$R1" tc qdisc del dev rb0 root
}
# flows_ran: both flows exited 0 having sent bytes, and the link was
# measured over the whole window, which closed while both flows still ran
# (what every check on the pair's figures needs)
flows_ran() {
	local rc1 b1 rc2 b2
	read -r rc1 b1 rc2 b2 <<<"$flows"
	[ "$rc1" = 0 ] && [ "$rc2" = 0 ] && fcmp "$b1" '>' 0 && fcmp "$b2" '>' 0 && fcmp "$samples" '>' 0 &&
		[ "$covered" = 1 ] && [[ $win_from =~ ^[0-9]+$ ]] && fcmp "$first_end" '>=' $((win_from + 12000))
}

# tcp_decbit: no drops and no retransmissions (the target; 0 in each of
# the 18 measurements logged by 2026-11-27: it was "at most 3", for a
# tail-loss probe or two while the guest stalls), queue <= 3, and the
# utilisation floors, each just below the runs of 2026-12-07 (make
# check's one-vCPU guests side by side, 10 a kernel a series;
# docs/testing.md): at C = 2 three series, 0.900-0.951, 0.836-0.948 and
# 0.898-0.950, and CI's 0.888 and 0.876, so the issue's 90 % is a
# benchmark figure here, 0.83 the floor (0.88, set from the first series,
# failed 3 of the second's 20); at C = 1 0.602-0.872 (the lowest two in
# the same runs of both guests at once: the host, not the kernel; 0.80
# with a CPU to spare).  The qdisc's own shaper is not what moves C = 2:
# it lost 0.001-0.010 of the window to late timers (lost_ns, logged).
decbit_source() {
	local floor1=0.80 floor2=0.83 fb0 c floor
	[ "$(nproc)" -ge 2 ] || floor1=0.60
	log "$(nproc) vCPU: utilisation floors $floor1 at C = 1, $floor2 at C = 2"
	fb0=$(decbit_fallbacks)
	for c in 1 2; do
		run_pair decbit 5211 "$c"
		floor=$floor2
		[ "$c" = 1 ] && floor=$floor1
		check "decbit_threshold_${c}_flows_ran (status, bytes: $flows; $samples samples)" flows_ran
		check "decbit_threshold_${c}_no_drops (rtx $rtx)" eval 'fcmp "$drops" "==" 0 && fcmp "$rtx" "==" 0'
		check "decbit_threshold_${c}_ecn_marks_seen" fcmp "$marked" '>' 100
		perf_check "decbit_threshold_${c}_mean_queue_le_3" fcmp "$qmean" '<=' 3
		perf_check "decbit_threshold_${c}_utilisation ($util >= $floor)" fcmp "$util" '>=' "$floor"
	done
	check "decbit_no_reno_fallback" test "$(decbit_fallbacks)" = "$fb0"
}

# DCTCP at the paper's threshold (at threshold 2 the same checks cost
# half a minute more of make check)
dctcp_source() {
	run_pair dctcp 5201 1
	check "dctcp_threshold_1_flows_ran (status, bytes: $flows; $samples samples)" flows_ran
	check "dctcp_threshold_1_no_drops" fcmp "$drops" '==' 0
	check "dctcp_threshold_1_ecn_marks_seen" fcmp "$marked" '>' 100
	perf_check "dctcp_threshold_1_mean_queue_le_3" fcmp "$qmean" '<=' 3
	perf_check "dctcp_threshold_1_no_stall (util $util >= 0.40)" fcmp "$util" '>=' 0.40
}

# The same CC on both ends: a listener takes the namespace's default when
# it is created, and one whose CC does not ask for ECN refuses an ECT SYN.
# Ports 5201/5202 listen with dctcp, 5211/5212 with decbit.
setup_prepare() {
	local ns port
	allow_cc dctcp
	allow_cc decbit
	dumbbell 2 || return 1
	big_buffers "$S1" "$S2" "$D"
	for ns in "$S1" "$S2" "$D"; do
		ip netns exec "$ns" sysctl -qw net.ipv4.tcp_congestion_control=dctcp
	done
	ip netns exec "$R2" tc qdisc add dev r2d0 root netem delay 20ms limit 10000
	iperf3_servers "$D" 5201 5202
	ip netns exec "$D" sysctl -qw net.ipv4.tcp_congestion_control=decbit
	iperf3_servers "$D" 5211 5212
}

setup_prepare || { echo "# topology setup failed"; exit $ksft_fail; }
tests_run
