#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The experiment runner end to end: a broken scenario is refused with its
# file, line and field and builds nothing; the short "check" scenario
# (two reno flows over drop-tail, two decbit flows over the decbit
# router; 10 Mbit/s, 20 ms) produces results.json, a table and plots
# whose figures are within physical bounds, and leaves no namespace; the
# short graph scenario "check-lamlien" (Lam & Lien's network, buffer
# pools with and without an input buffer limit) keeps its pools bounded
# and empty afterwards, and the input limit protects transit packets.

ALL_TESTS="bad_scenario dumbbell_run graph_run"

. "$(dirname "$0")/lib.sh"

require_cmd tc iperf3 jq ethtool
require_module sch_decbit tcp_decbit sch_netem sch_htb

exp=$TOP_DIR/tools/experiment
out=$TMP_DIR

# a broken scenario: exit 2, "file:line: field: message", no namespace
bad_scenario() {
	local bad msg rc
	bad=$out/bad.toml
	sed 's/^rate = "10mbit"/rate = "10 furlongs"/' "$TOP_DIR/tools/scenarios/check.toml" >"$bad"
	msg=$("$exp" run "$bad" 2>&1)
	rc=$?
	log "bad scenario: rc $rc: $msg"
	check "bad_scenario_refused" sh -c "[ $rc = 2 ] && echo '$msg' | grep -q '^$bad:[0-9]*: topology.rate: bad rate'"
	check "bad_scenario_builds_nothing" sh -c '! ip netns list | grep -q .'
}

# arm NAME KEY, nflows NAME: the dumbbell run's summary and flows ($r)
arm() { jq -r --arg a "$1" ".arms[] | select(.name == \$a) | .summary.$2 // \"null\"" "$r"; }
nflows() { jq -r --arg a "$1" '.arms[] | select(.name == $a) | .runs[0].flows | map(select(.throughput_bps > 0)) | length' "$r"; }
# g ARM KEY: a graph run's figure ($r)
g() { jq -r --arg a "$1" ".arms[] | select(.name == \$a) | .runs[0].$2 // \"null\"" "$r"; }

# marks_not_drops MARKS DROPS: MARKS > 0 and MARKS > 10 x DROPS (numbers)
marks_not_drops() { fcmp "$1" '>' 0 && fcmp "$2" '>=' 0 && fcmp "$1" '>' "$(awk -v d="$2" 'BEGIN { print 10 * d }')"; }
# sum X...: the sum of numbers, "null" if one is not a number
sum() {
	awk 'BEGIN { n = "^[-+]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][-+]?[0-9]+)?$"
		for (i = 1; i < ARGC; i++) { if (ARGV[i] !~ n) { print "null"; exit } s += ARGV[i] }
		print s }' "$@"
}

# the short scenario
dumbbell_run() {
	local rc r tb
	# (plots are made on the host: matplotlib takes minutes under TCG; the
	# unit tests cover them)
	"$exp" run check --no-plots --out "$out/check" >"$out/log" 2>&1
	rc=$?
	sed "s/^/$KTAP_IND# /" "$out/log" | grep -v "^ *# *$" | tail -n 12
	r=$out/check/results.json
	check "run_exit_0" test $rc = 0
	check "outputs_written" test -s "$r" -a -s "$out/check/table.md" \
		-a -s "$out/check/reno_pfifo/rep1/samples.jsonl" -a -s "$out/check/decbit_decbit/rep1/iperf-2.json"
	check "no_namespace_left" sh -c '! ip netns list | grep -q .'

	log "reno+pfifo: util $(arm reno+pfifo utilization) jain $(arm reno+pfifo jain) queue $(arm reno+pfifo queue_mean)/$(arm reno+pfifo queue_max) drops $(arm reno+pfifo drops) rtt $(arm reno+pfifo rtt_mean_ms)"
	log "decbit+decbit: util $(arm decbit+decbit utilization) jain $(arm decbit+decbit jain) queue $(arm decbit+decbit queue_mean) marks $(arm decbit+decbit marks) drops $(arm decbit+decbit drops)"
	# Reno fills a 1-BDP drop-tail buffer: the link stays busy, losses occur,
	# the queue never exceeds the buffer (17 packets) and adds delay.
	# Utilisation: Reno's floor is 0.75 even with no buffer; with it, 20
	# runs (10 a kernel, 2026-11-29) measured 0.90-0.98 and Jain
	# 0.977-1.000: floors just below them (docs/testing.md).  The busy fraction after
	# warm-up is wire bytes, so it is at least the goodput's share of the
	# link over the whole flow (start-up included): a second, independent
	# measurement of the same link.  (It assumes both flows and the
	# sampler keep to the scenario's 8 s; a debug kernel's guest, ten
	# times slower, gave util 0.25 against goodput 5.11 Mbit/s: a
	# perf_check.)
	check "reno_two_flows_delivered" test "$(nflows reno+pfifo)" = 2
	perf_check "reno_utilization_0.87_to_1.02" between "$(arm reno+pfifo utilization)" 0.87 1.02
	perf_check "reno_utilization_covers_goodput" fcmp "$(arm reno+pfifo utilization)" '>=' \
		"$(awk -v t="$(arm reno+pfifo throughput_bps)" 'BEGIN { if (t ~ /^[0-9.eE+-]+$/) print 0.97 * t / 10e6; else print "null" }')"
	perf_check "reno_jain_ge_0.96" fcmp "$(arm reno+pfifo jain)" '>=' 0.96
	perf_check "reno_drops_seen" fcmp "$(arm reno+pfifo drops)" '>' 0
	check "reno_queue_within_buffer" fcmp "$(arm reno+pfifo queue_max)" '<=' 17
	check "reno_rtt_above_base" fcmp "$(arm reno+pfifo rtt_mean_ms)" '>' "$(jq '.arms[0].runs[0].base_rtt_ms' "$r")"
	# DECbit keeps the queue short by marks instead of losses.
	check "decbit_two_flows_delivered" test "$(nflows decbit+decbit)" = 2
	# (a slow-start overshoot of the 17-packet buffer may cost a drop)
	check "decbit_marks_not_drops" marks_not_drops "$(arm decbit+decbit marks)" "$(arm decbit+decbit drops)"
	check "decbit_queue_below_reno" fcmp "$(arm decbit+decbit queue_mean)" '<' "$(arm reno+pfifo queue_mean)"
	# The queue and each packet's wait come from a trace of the
	# bottleneck's packets.  Every packet sent after the warm-up has its
	# wait: as many as the bytes the qdisc sent make full packets (within
	# 3 %) and every packet counted as queued was seen leaving; the 100
	# ms samples of Reno's standing queue,
	# an independent measure, agree with the trace's time average within
	# a third.
	local a from n unseen qm qs p50 p99 max exp_n
	for a in reno+pfifo decbit+decbit; do
		read -r from n unseen qm qs p50 p99 max <<<"$(jq -r --arg a "$a" '.arms[] | select(.name == $a) | .runs[0] | "\(.queue_from) \(.qdelay_packets) \(.queue_unseen) \(.queue_mean) \(.queue_mean_sampled) \(.qdelay_p50_ms) \(.qdelay_p99_ms) \(.qdelay_max_ms)"' "$r")"
		# (the window is 2-8 s)
		exp_n=$(awk -v u="$(arm "$a" utilization)" 'BEGIN { if (u ~ /^[0-9.eE+-]+$/) printf "%d", u * 10e6 * 6 / (1514 * 8); else print "null" }')
		log "$a: queue from $from: $n waits (the bytes sent make $exp_n full packets), $unseen never seen leaving, mean $qm (samples $qs), wait p50 $p50 ms, p99 $p99 ms, max $max ms"
		check "${a}_queue_from_packets" test "$from" = packets
		# (the link carried packets and the trace has waits: without them
		# the counts below agree with nothing)
		check "${a}_packets_traced ($exp_n sent, $n waits)" eval 'fcmp "$exp_n" ">" 0 && fcmp "$n" ">" 0'
		# (a slow guest's senders also send segments shorter than the
		# MSS: more waits than full packets, never fewer)
		check "${a}_every_packet_waited ($n >= $exp_n - 3 %)" fcmp "$n" '>=' "$(( exp_n * 97 / 100 ))"
		perf_check "${a}_packets_full_sized ($n <= $exp_n + 3 %)" fcmp "$n" '<=' "$(( exp_n * 103 / 100 + 1 ))"
		check "${a}_every_packet_left" fcmp "$unseen" '==' 0
		# (no bound on the waits from the buffer's size: htb, Reno's
		# shaper, falls below its rate on a TCG guest, whose timers run
		# late; Reno's 17 packets took p99 22.5 ms, max 26-27 ms, against
		# 20.6 ms at 10 Mbit/s, in make check's guests)
		[ "$a" = reno+pfifo ] || continue
		# within a third, or half a packet where the queue is nearly
		# empty (a 100 ms sample rarely catches a packet waiting then)
		# (bounds from a sampled figure that is not a number are "null")
		check "reno_trace_and_samples_agree ($qm ~ $qs)" between "$qm" "$(awk -v s="$qs" 'BEGIN { if (s !~ /^[0-9.eE+-]+$/) print "null"; else print (s * 2 / 3 < s - 0.5) ? s * 2 / 3 : s - 0.5 }')" "$(awk -v s="$qs" 'BEGIN { if (s !~ /^[0-9.eE+-]+$/) print "null"; else print (s * 4 / 3 > s + 0.5) ? s * 4 / 3 : s + 0.5 }')"
	done
	# What the result needs to be reproduced from its folder: where it ran
	# (kernel, project revision, command) and the scenario file itself; per
	# run the module parameters, each namespace's sysctls and offloads, and
	# its qdiscs with their counters before and after the traffic
	tb='.arms[] | select(.name == "decbit+decbit") | .runs[0].testbed'
	log "provenance: $(jq -c '.meta | del(.scenario_file)' "$r")"
	check "results_record_provenance" jq -e --arg k "$(uname -r)" \
		'.meta.kernel == $k and (.meta.git | length > 0) and (.meta.command | test("tools/experiment run check")) and (.meta.scenario_file.text | test("name = \"check\""))' "$r"
	check "results_record_sysctls_offloads" jq -e "$tb"' | .before.s1.sysctl["net.ipv4.tcp_congestion_control"] == "decbit" and .before.r1.offloads.up0["generic-receive-offload"] == "off" and .module_params.tcp_decbit.cutoff != null' "$r"
	check "results_record_qdiscs_before_after" jq -e "$tb"' | ([.before.r1.qdiscs[] | select(.dev == "up0" and .kind == "decbit") | .packets] == [0]) and ([.after.r1.qdiscs[] | select(.dev == "up0") | .marked > 0] == [true])' "$r"
}

# Lam & Lien's 7-node network (14 namespaces, 168 window-limited Poisson
# virtual channels in overload), N_T = 20 per router, without an input
# buffer limit and with IBL = 0.4 / H (N_I = 2)
graph_run() {
	local rc r a ra ia da
	"$exp" run check-lamlien --no-plots --out "$out/ll" >"$out/ll.log" 2>&1
	rc=$?
	sed "s/^/$KTAP_IND# /" "$out/ll.log" | grep -v "^ *# *$" | grep -v '# *delivered:' | tail -n 8
	r=$out/ll/results.json
	check "graph_run_exit_0" test $rc = 0 -a -s "$r"
	check "graph_no_namespace_left" sh -c '! ip netns list | grep -q .'
	for a in "no IBL" "alpha=0.4"; do
		log "$a: delivered $(g "$a" delivered_pps) of $(g "$a" offered_pps) pkt/s, lost in net $(g "$a" net_loss_frac), refused at entry $(g "$a" refused_all), ibl/pool/limit drops $(g "$a" ibl_dropped_all)/$(g "$a" pool_dropped_all)/$(g "$a" overlimit_dropped_all), pool max $(g "$a" pool_used_max), input max $(g "$a" pool_input_max)/$(g "$a" pool_input_limit), left $(g "$a" pool_left), send errors $(g "$a" send_errors)"
	done
	# Both deliver, and the pool never holds more than N_T; overload fills it.
	# Nothing is left once the traffic stops.
	# Packets get through (a check); both arms carrying more than 50
	# pkt/s needs a guest fast enough to run 168 senders (a perf_check: a
	# debug kernel's one-vCPU guest once delivered 0 without IBL, 70 with)
	check "graph_delivers" fcmp "$(sum "$(g "no IBL" delivered_pps)" "$(g "alpha=0.4" delivered_pps)")" '>' 0
	perf_check "graph_both_deliver_50pps" eval 'fcmp "$(g "no IBL" delivered_pps)" ">" 50 && fcmp "$(g "alpha=0.4" delivered_pps)" ">" 50'
	# Each arm's checks below hold trivially for an arm that carried
	# nothing: each must have admitted packets into the network (over the
	# measurement window) and had its pool sampled
	for a in "no IBL" "alpha=0.4"; do
		check "graph_traffic_admitted ($a: $(g "$a" admitted_pps) pkt/s, pool max $(g "$a" pool_used_max))" \
			eval 'fcmp "$(g "$a" admitted_pps)" ">" 0 && fcmp "$(g "$a" pool_used_max)" ">=" 0'
	done
	# Two independent counts of the refusals at entry: the senders' ENOBUFS
	# (IP_RECVERR) and the routers' drop counters.  Every ibl drop is a local
	# packet refused; every refusal is some drop.
	for a in "no IBL" "alpha=0.4"; do
		ra=$(g "$a" refused_all) ia=$(g "$a" ibl_dropped_all)
		da=$(sum "$(g "$a" ibl_dropped_all)" "$(g "$a" pool_dropped_all)" "$(g "$a" overlimit_dropped_all)")
		check "graph_refusals_match_drops ($a: $ia <= $ra <= $da)" eval 'fcmp "$ia" "<=" "$ra" && fcmp "$ra" "<=" "$da"'
		perf_check "graph_refusals_seen ($a: $ra)" fcmp "$ra" '>' 0
	done
	check "graph_pool_bounded" eval 'fcmp "$(g "no IBL" pool_used_max)" "<=" 20 && fcmp "$(g "alpha=0.4" pool_used_max)" "<=" 20'
	perf_check "graph_pool_filled ($(g "no IBL" pool_used_max) >= 18)" fcmp "$(g "no IBL" pool_used_max)" '>=' 18
	check "graph_pool_empty_after" eval 'fcmp "$(g "no IBL" pool_left)" "==" 0 && fcmp "$(g "alpha=0.4" pool_left)" "==" 0'
	check "graph_no_send_errors" eval 'fcmp "$(g "no IBL" send_errors)" "==" 0 && fcmp "$(g "alpha=0.4" send_errors)" "==" 0'
	# Without IBL only the full pool refuses (IBL 1 is no input limit)
	check "graph_no_ibl_no_input_drops" fcmp "$(g "no IBL" ibl_dropped_all)" '==' 0
	perf_check "graph_no_ibl_counts_pool_drops" fcmp "$(g "no IBL" pool_dropped_all)" '>' 0
	# With IBL, input packets never hold more than N_I = floor(0.4 / 3.31 * 20)
	# = 2 buffers, and the refusals are input ones
	check "graph_input_limit_2" eval 'fcmp "$(g "alpha=0.4" pool_input_limit)" "==" 2 && fcmp "$(g "alpha=0.4" pool_input_max)" "<=" 2 && fcmp "$(g "alpha=0.4" ibl_dropped_all)" ">" 0'
	# Lam & Lien's point: packets already in the network are protected, so
	# fewer admitted packets are lost inside it
	perf_check "graph_ibl_protects_transit" fcmp "$(g "alpha=0.4" net_loss_frac)" '<' "$(g "no IBL" net_loss_frac)"
}

tests_run
