#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# tcp_bimodal: selection, parameter bounds, the tracepoint, four flows on
# a 20 Mbit/s / 40 ms dumbbell over drop-tail (0.25 BDP) and over RED
# marking ECN (the experiment runner's check-bimodal scenario), and a
# timeout in the middle of a flow (a 2.5 s blackhole).

. "$(dirname "$0")/lib.sh"

require_cmd tc iperf3 jq ethtool
require_module tcp_bimodal sch_netem sch_htb sch_red

ktap_header 17

exp=$TOP_DIR/tools/experiment
out=$(mktemp -d)
trap 'echo 0 >"$tr/events/tcp_bimodal/enable" 2>/dev/null; rm -rf "$out"; cleanup' EXIT
allow_cc bimodal

# 1-3: selectable, bounded parameters
check "listed_available" grep -qw bimodal /proc/sys/net/ipv4/tcp_available_congestion_control
setup_ns X
check "sysctl_selects_bimodal" ip netns exec "$X" sysctl -qw net.ipv4.tcp_congestion_control=bimodal
p=/sys/module/tcp_bimodal/parameters
check "params_bounded" sh -c "! echo 0 >$p/beta 2>/dev/null && ! echo 1024 >$p/epsilon 2>/dev/null &&
	! echo 0 >$p/tolerance 2>/dev/null && echo 512 >$p/beta && [ \$(cat $p/beta) = 512 ] &&
	[ \$(cat $p/epsilon) = 128 ]"

# the tracepoint
tr=/sys/kernel/tracing
[ -d "$tr/events" ] || mount -t tracefs nodev "$tr" 2>/dev/null
echo 4096 >"$tr/buffer_size_kb"
echo >"$tr/trace"
echo 1 >"$tr/events/tcp_bimodal/enable"

# 4-13: the runner's scenario
"$exp" run check-bimodal --no-plots --out "$out/r" >"$out/log" 2>&1
rc=$?
grep '^|' "$out/log" | sed 's/^/# /'
cat "$tr/trace" >"$out/trace"
r=$out/r/results.json
check "scenario_ran" test $rc = 0 -a -s "$r"
arm() { jq -r --arg a "$1" ".arms[] | select(.name == \$a) | .summary.$2 // \"null\"" "$r"; }
flows() { jq -r --arg a "$1" '.arms[] | select(.name == $a) | .runs[0].flows[].throughput_bps' "$r"; }
ev() { grep -c "bimodal_event: .*reason=$1" "$out/trace"; }
log "trace: $(grep -c bimodal_event "$out/trace") events: begin $(ev begin) measured $(ev measured) void $(ev void) at_fair $(ev at_fair) left $(ev left) joined $(ev joined) timeout $(ev timeout)"
check "trace_events" test "$(grep -c bimodal_event "$out/trace")" -ge 8
check "trace_measured_every_flow" test "$(grep 'reason=measured' "$out/trace" | sed 's/.*sport=\([0-9]*\).*/\1/' | sort -u | wc -l)" -ge 4
check "trace_known_mode_reached" grep -q 'mode=known->known' "$out/trace"
# The measured share against the capacity: B = BDP + buffer = 66 + 17
# packets, so B/4 = 21; a share within a factor of two (the paper's model
# assumes every flow sees every event; drop-tail does not synchronise).
fairs=$(grep 'reason=measured' "$out/trace" | sed 's/.*fair=\([0-9]*\)\..*/\1/' | sort -n)
med=$(awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }' <<<"$fairs")
log "measured fair shares: $(echo $fairs) (median $med, B/n = 21)"
check "fair_share_near_B_over_n" sh -c "[ ${med:-0} -ge 10 ] && [ ${med:-0} -le 42 ]"
# drop-tail: the link is used, nobody starves
min=$(flows bimodal+pfifo | sort -g | head -1)
mean=$(flows bimodal+pfifo | awk '{ s += $1 } END { print s / NR }')
log "drop-tail: util $(arm bimodal+pfifo utilization) jain $(arm bimodal+pfifo jain) drops $(arm bimodal+pfifo drops); flow min $min mean $mean bit/s"
check "droptail_utilization_ge_0.6" fcmp "$(arm bimodal+pfifo utilization)" '>=' 0.6
check "droptail_no_starvation" fcmp "$min" '>=' "$(awk -v m="$mean" 'BEGIN { print m / 4 }')"
check "droptail_losses" fcmp "$(arm bimodal+pfifo drops)" '>' 0
# ECN: reacts to CE, no loss
log "red ecn: util $(arm bimodal+red-ecn utilization) jain $(arm bimodal+red-ecn jain) marks $(arm bimodal+red-ecn marks) drops $(arm bimodal+red-ecn drops) rtx $(arm bimodal+red-ecn retransmits) queue $(arm bimodal+red-ecn queue_mean)"
# RED drops the few non-ECT packets (SYNs, pure ACKs of the control
# connection, retransmissions) while marking: measured 8-12 drops against
# 2900-3400 marks.
check "ecn_marks_exceed_drops" sh -c "[ $(arm bimodal+red-ecn marks) -gt $(arm bimodal+red-ecn drops) ]"
# (a retransmission is not ECT, so RED drops it while marking: measured
# 0-4 retransmissions with ECN against ~900-1000 on drop-tail, and once,
# after a timeout, 346 against 958)
check "ecn_retransmits_below_half_droptail" sh -c "[ \$((2 * $(arm bimodal+red-ecn retransmits))) -lt $(arm bimodal+pfifo retransmits) ]"
check "ecn_queue_short" fcmp "$(arm bimodal+red-ecn queue_mean)" '<' 20

# 14-16: a timeout: blackhole the path for 2.5 s in the middle of a flow
dumbbell 1 || { echo "# topology setup failed"; exit $ksft_fail; }
big_buffers "$S1" "$D"
for ns in "$S1" "$D"; do
	ip netns exec "$ns" sysctl -qw net.ipv4.tcp_congestion_control=bimodal
done
ip netns exec "$R1" tc qdisc add dev rb0 root tbf rate 10mbit burst 1600 limit 20000
ip netns exec "$R2" tc qdisc add dev r2d0 root netem delay 20ms limit 10000
ip netns exec "$D" iperf3 -s -1 -p 5301 >/dev/null 2>&1 &
PIDS+=($!)
busywait 5000 ip netns exec "$D" sh -c 'ss -ltn | grep -q ":5301 "'
echo >"$tr/trace"
# (bounded: a client stuck in the results exchange fails the checks below
# instead of hanging the suite)
timeout 60 ip netns exec "$S1" iperf3 -c 10.9.0.2 -p 5301 --cport 5302 -t 14 -i 1 -J >"$out/rto.json" 2>/dev/null &
cl=$!
sleep 5
ip -n "$R1" route add blackhole 10.9.0.2/32
sleep 2.5
ip -n "$R1" route del blackhole 10.9.0.2/32
wait $cl
cat "$tr/trace" >"$out/trace2"
tail_bytes=$(jq '[.intervals[-4:][].sum.bytes] | add' "$out/rto.json")
after=$(sed -n '/reason=timeout/,$p' "$out/trace2" | grep -c 'reason=\(begin\|measured\|void\)')
log "timeout: $(grep -c 'reason=timeout' "$out/trace2") timeout events, $after events after the first; last 4 s sent $tail_bytes bytes"
check "rto_traced" grep -q 'sport=5302 .*reason=timeout' "$out/trace2"
check "rto_recovers" fcmp "${tail_bytes:-0}" '>' 2000000
check "rto_remeasures" test "$after" -ge 1

ktap_finish
