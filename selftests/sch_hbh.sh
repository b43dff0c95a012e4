#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# sch_hbh: hop-by-hop rate control on a chain with real link delays.
#
#   h0 =[50M]=> r1 =[50M]=> r2 =[10M]=> r3 =[50M]=> h1
#                           ^
#                 x =[50M]==+  (cross traffic)
#
# Every "=>" is an hbh root qdisc on the upstream node's egress ("down")
# and a wire namespace that delays both directions by 10 ms, so each hop's
# round trip is 20 ms (hoprtt) and feedback crosses the same delay as data.
# Options, bad options, one UDP flow (no loss anywhere, link filled, queue
# at the setpoint, against the drop-tail baseline; the same with a key on
# every hop, every report authenticated), bad and spoofed
# feedback on a live link, TCP, cross traffic, end-to-end mode, 10 000
# flows and garbage collection, change/delete under traffic.

ALL_TESTS="options bad_options udp_fill keyed_fill hostile_feedback tcp_fill
	cross_traffic e2e_mode flow_table change_delete"

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_hbh.sh"

require_cmd tc iperf3 jq ethtool python3
require_module sch_hbh

# The paper's Config 1: setpoint 50 in a 100-packet per-flow buffer.  The
# queue settles m^ x (hoprtt - true loop delay) away from the setpoint
# (a smaller share of a larger setpoint as timer latency varies the loop
# under TCG).
SP=50			# setpoint at the bottleneck, packets
C=10000000		# bottleneck, bit/s
# Bounds against the configured C, not against hbh's own figures: r2's
# utilisation under one UDP flow, the share of C the fill time is measured
# to (within 5 RTTs), TCP's goodput (a share of C x 1448/1514).  These are
# the targets (the paper's "95 % busy after 4.7 RTTs"), except UDP's
# utilisation: 0.943-0.997 on 6.1 and 0.997-1.000 on 6.12 (9 runs each,
# 2026-11-27, docs/testing.md), so a floor just below them; the 0.95
# target is met in 17 of 18.  TCP's retransmissions: none, the target
# (hbh loses nothing; 0 in each of the 6 runs logged by 2026-11-27; it
# was "at most 8").
UDP_UTIL_MIN=0.94
UDP_FILL_FRAC=0.95
TCP_UTIL_MIN=0.95
TCP_RTX_MAX=0

# sample NS SECONDS [SLOW_MS AFTER_S]: r2's root qdisc every 20 ms into
# $TMP_DIR/samples (background, pid in $smp), returning once the sampler
# runs; with SLOW_MS and AFTER_S, every SLOW_MS ms from AFTER_S s after
# the traffic began (qdisc_sample.py)
sample() {
	rm -f "$TMP_DIR/samples"
	"$SELFTESTS_DIR/qdisc_sample.py" "$1" down "$2" 20 ${3:+"$3" "$4"} >"$TMP_DIR/samples" &
	smp=$!
	busywait 20000 test -s "$TMP_DIR/samples"
}
# analyse FILE [FULL]: from the sampler's output, "<fill ms> <utilisation>
# <mean queue> <max queue>": fill from the first 20 ms with data (> 1
# Mbit/s: not iperf3's control connection) to the first 100 ms window at
# >= 95% of FULL (default C, bit/s);
# utilisation and queue from 1 s after the start to the end of the flow
analyse() {
	awk -v c=$C -v full="${2:-$C}" '
	!/^#/ { n0++; t[n0] = $1; b[n0] = $2; q[n0] = $3 }
	END {
		NR = n0
		for (i = 2; i <= NR; i++) if ((b[i] - b[i - 1]) * 8 / ((t[i] - t[i - 1]) / 1000) > 1e6) { s = i; break }
		fill = -1
		for (i = s; i <= NR; i++) {
			for (j = i; j <= NR && t[j] - t[i] < 100; j++) ;
			if (j > NR) break
			if ((b[j] - b[i]) * 8 / ((t[j] - t[i]) / 1000) >= 0.95 * full) { fill = t[i] - t[s - 1]; break }
		}
		for (i = s; i <= NR && t[i] - t[s] < 1000; i++) ;
		for (k = NR; k > i && b[k] == b[k - 1]; k--) ;
		util = (b[k] - b[i]) * 8 / ((t[k] - t[i]) / 1000) / c
		n = 0
		for (m = i; m <= k; m++) { qs += q[m]; n++; if (q[m] > qmax) qmax = q[m] }
		printf "%d %.3f %.2f %d\n", fill, util, qs / n, qmax
	}' "$1"
}

# all_hbh [OPTIONS]: hbh on every node's "down", removed when the test ends
all_hbh() {
	defer no_hbh
	hbh_down "$H0" 50mbit flow_limit 2000 limit 10000 "$@" &&
	hbh_down "$X" 50mbit flow_limit 2000 limit 10000 "$@" &&
	hbh_down "$R1" 50mbit "$@" &&
	hbh_down "$R2" 10mbit setpoint $SP "$@" &&
	hbh_down "$R3" 50mbit "$@"
}
no_hbh() {
	local ns
	for ns in "$H0" "$X" "$R1" "$R2" "$R3"; do
		ip netns exec "$ns" tc qdisc del dev down root 2>/dev/null
	done
	return 0
}
hstat() { qdisc_stat "$1" "${3:-down}" "$2"; }
drops_each() {
	local ns
	for ns in "$H0" "$X" "$R1" "$R2" "$R3"; do
		printf '%s ' "${ns%%-*}:$(hstat "$ns" drops)"
	done
}
# drops_all: the drops of all five qdiscs, "null" if one has no figure
drops_all() {
	local ns s=0 d
	for ns in "$H0" "$X" "$R1" "$R2" "$R3"; do
		d=$(hstat "$ns" drops)
		[[ $d =~ ^[0-9]+$ ]] || { echo null; return; }
		s=$((s + d))
	done
	echo $s
}

# udp_run SECONDS RATE [PORT] [NS]: an iperf3 UDP flow to h1, JSON to
# $TMP_DIR/udp.PORT
udp_run() {
	ip netns exec "${4:-$H0}" iperf3 -c 10.3.0.2 -p "${3:-5201}" -u -b "$2" -l 1400 -w 2M \
		-t "$1" -J >"$TMP_DIR/udp.${3:-5201}" 2>/dev/null
}
udp_lost() { jq -r '.end.sum.lost_packets // -1' "$TMP_DIR/udp.${1:-5201}"; }
udp_bps() { jq -r '.end.sum_received.bits_per_second // .end.sum.bits_per_second // 0' "$TMP_DIR/udp.${1:-5201}"; }
udp_sent() { jq -r '.end.sum.packets // 0' "$TMP_DIR/udp.${1:-5201}"; }
# udp_ran RC [PORT]: the flow's iperf3 exited 0 and its JSON counts
# datagrams sent and bits received (not missing, not 0)
udp_ran() {
	[ "$1" = 0 ] && fcmp "$(udp_sent "$2")" '>' 0 && fcmp "$(udp_bps "$2")" '>' 0
}

# the plugin sets and shows every option, text and JSON
options() {
	local shown j
	defer no_hbh
	ip netns exec "$R2" tc qdisc add dev down root hbh rate 10mbit limit 500 flow_limit 80 \
		setpoint 30 period 5ms alpha 0.5 beta 0.25 rise 1mbit rate_min 100kbit hoprtt 30ms mode e2e
	shown=$(ip netns exec "$R2" tc qdisc show dev down)
	log "$shown"
	check "options_shown" grep -q 'hbh .*rate 10Mbit limit 500p flow_limit 80p setpoint 30p period 5ms alpha 0.5 beta 0.25 rise 1Mbit rate_min 100Kbit hoprtt 30ms mode e2e' <<<"$shown"
	j=$(ip netns exec "$R2" tc -j qdisc show dev down | jq -c '.[0].options')
	log "$j"
	check "options_json" test "$(jq -r '[.limit, .flow_limit, .setpoint, .mode] | @tsv' <<<"$j")" = "$(printf '500\t80\t30\te2e')"
}

# bad_tc "expected message" OPTIONS...: changing r2's hbh must fail saying it
bad_tc() {
	local want=$1 out
	shift
	out=$(ip netns exec "$R2" tc qdisc change dev down root hbh "$@" 2>&1) && return 1
	grep -q "$want" <<<"$out" || { log "unexpected: $out"; return 1; }
}
nl_replace() { ip netns exec "$R2" "$SELFTESTS_DIR/nl_qdisc.py" down hbh replace "$@"; }

# bad options are refused with a message and change nothing
bad_options() {
	local raw_out out
	defer no_hbh
	ip netns exec "$R2" tc qdisc add dev down root hbh rate 10mbit limit 500 flow_limit 80 \
		setpoint 30 period 5ms alpha 0.5 beta 0.25 rise 1mbit rate_min 100kbit hoprtt 30ms mode e2e
	check "bad_setpoint_over_flow_limit" bad_tc "setpoint must not exceed" setpoint 81
	check "bad_rate_min_over_rate" bad_tc "rate_min must not exceed" rate_min 20mbit
	check "bad_alpha_plugin" bad_tc "illegal alpha" alpha 1.5
	check "bad_period_plugin" bad_tc "illegal period" period 10us
	check "bad_mode_plugin" bad_tc "illegal mode" mode red
	# each attribute's range is the policy's: netlink refuses the value
	# (ERANGE), names the attribute and gives the range; derived (13) is
	# dump-only
	raw_out=$( { nl_replace 11:B:7; nl_replace 6:I:2000; nl_replace 1:Q:0; nl_replace 5:I:0
		nl_replace 13:B:1; nl_replace 4:I:81; } 2>&1)
	log "raw netlink: $(tr '\n' ' ' <<<"$raw_out")"
	check "bad_raw_netlink_refused" lines_match "$raw_out" \
		"errno=34 *attr=11 policy=0..2" "errno=34 *attr=6 policy=1..1024" \
		"errno=34 *attr=1 policy=1..1099511627776" \
		"errno=34 *attr=5 policy=100000..1000000000" "errno=22 *attr=13*" \
		"errno=22 *hbh: setpoint must not exceed flow_limit or limit' attr=4"
	check "unchanged_after_bad" grep -q 'limit 500p flow_limit 80p setpoint 30p period 5ms alpha 0.5' \
		<<<"$(ip netns exec "$R2" tc qdisc show dev down)"
	ip netns exec "$R2" tc qdisc del dev down root
	out=$(ip netns exec "$R2" tc qdisc add dev down root hbh limit 10 2>&1)
	check "rate_required" grep -q "rate is required" <<<"$out"
}

# one UDP flow offered at 40 Mbit/s into the 10 Mbit/s bottleneck: no
# loss, the queue at the setpoint, feedback reaching the source, the link
# filled: utilisation and fill time against the configured rate C (a TCG
# guest's late timers hold a shaper below the 0.95 target: the floors are
# just below what this testbed measured, docs/testing.md); then the same
# flow through mode fifo, the drop-tail baseline, loses packets
udp_fill() { hbh_fill; }
# keyed_fill: the same with a key on every hop (issue 38): no loss, the
# same utilisation and fill time, every report authenticated
keyed_fill() { hbh_fill key "$(od -An -N32 -tx1 /dev/urandom | tr -d ' \n')"; }
# hbh_fill [HBH OPTIONS]: udp_fill's checks with OPTIONS on every hop; the
# fifo baseline only without OPTIONS
hbh_fill() {
	local base_rtt u urc h0_controlled fill util qset qmax lost drops sent softnet_drops d
	local util_fifo fill90 fill85 ns keyed bad
	base_rtt=$(rtt_ms "$H0" 10.3.0.2)
	all_hbh "$@"
	# (every 20 ms while the link fills, every 100 ms from 0.9 s on:
	# the window of the utilisation and the queue begins at 1 s, and a
	# sampler every 20 ms takes a slow guest CPU the hops need)
	sample "$R2" 8 100 0.9
	udp_run 6 40M &
	u=$!
	sleep 3
	h0_controlled=$(hstat "$H0" controlled)
	wait $u
	urc=$?
	wait $smp
	read -r fill util qset qmax <<<"$(analyse "$TMP_DIR/samples")"
	read -r fill90 _ <<<"$(analyse "$TMP_DIR/samples" "$(awk -v c=$C 'BEGIN { print 0.90 * c }')")"
	read -r fill85 _ <<<"$(analyse "$TMP_DIR/samples" "$(awk -v c=$C 'BEGIN { print 0.85 * c }')")"
	lost=$(udp_lost)
	drops=$(drops_all)
	sent=$(udp_sent)
	softnet_drops=0
	while read -r _ d _; do softnet_drops=$((softnet_drops + 0x$d)); done </proc/net/softnet_stat
	log "h1: $(ip netns exec "$H1" nstat -az UdpRcvbufErrors UdpInErrors IpInDiscards | awk '{ printf "%s %s ", $1, $2 }')"
	log "udp 40M offered: base RTT $base_rtt ms; bottleneck at 95/90/85% of $C bit/s after $fill/$fill90/$fill85 ms; utilisation $util of $C bit/s; queue mean $qset (setpoint $SP) max $qmax; lost $lost; qdisc drops $drops"
	log "drops per node: $(drops_each)"
	log "r2: $(ip netns exec "$R2" tc -s qdisc show dev down | tr '\n' ' ')"
	log "outside the qdiscs: iperf3 (exit $urc) lost $lost of $sent; softnet backlog drops $softnet_drops (whole guest, since boot)"
	# the flow ran and the sampler saw r2 carry it
	# the precondition of the queue's check: hoprtt is the hop's round
	# trip (two 10 ms netem delays and the guest's latency)
	check "hoprtt_is_the_hops ($HOPRTT: 20000-25000us)" eval '[[ $HOPRTT =~ ^[0-9]+us$ ]] && test "${HOPRTT%us}" -ge 20000 -a "${HOPRTT%us}" -le 25000'
	check "udp_flow_ran (iperf3 exit $urc, $sent datagrams, $(udp_bps) bit/s received, r2 utilisation $util)" \
		eval 'udp_ran "$urc" && fcmp "$util" ">" 0'
	# No hop's queue drops a packet.  iperf3 on 6.1 has counted a few
	# lost of ~5000 with no drop in any qdisc, socket or backlog counter:
	# allow 0.2% outside the hops' queues, none in them.
	check "udp_no_loss_anywhere (qdisc drops $drops, iperf3 lost $lost of $sent)" test "$drops" = 0 -a "$lost" -ge 0 -a "$sent" -gt 0 -a $((500 * lost)) -le "$sent"
	perf_check "udp_queue_within_20pct_of_setpoint (mean $qset of $SP)" fcmp "$(awk -v a="$qset" -v s=$SP 'BEGIN { d = a - s; if (d < 0) d = -d; print d / s }')" '<=' 0.20
	check "feedback_flowing" test "$(hstat "$R2" fb_sent)" -gt 100 -a "$(hstat "$R1" fb_received)" -gt 100 -a "$(hstat "$H0" fb_received)" -gt 100
	check "source_controlled" test "$h0_controlled" -ge 1
	check "receiver_side_uncontrolled" test "$(hstat "$R3" controlled)" = 0
	perf_check "udp_utilisation ($util >= $UDP_UTIL_MIN of the configured $C bit/s)" fcmp "$util" '>=' "$UDP_UTIL_MIN"
	# fill: from the first data to the first 100 ms at UDP_FILL_FRAC of C
	# (-1 if it never gets there: a failure)
	read -r fill _ <<<"$(analyse "$TMP_DIR/samples" "$(awk -v f="$UDP_FILL_FRAC" -v c=$C 'BEGIN { print f * c }')")"
	log "udp fill: $fill ms to $UDP_FILL_FRAC of $C bit/s; 5 end-to-end RTTs: $(awk -v r="$base_rtt" 'BEGIN { print 5 * r }') ms"
	perf_check "udp_fills_within_5_rtt ($fill ms to $UDP_FILL_FRAC x C, -1: never)" eval 'fcmp "$fill" ">=" 0 && fcmp "$fill" "<=" "$(awk -v r="$base_rtt" "BEGIN { print 5 * r }")"'
	if [ $# -gt 0 ]; then
		keyed=0 bad=0
		for ns in "$H0" "$X" "$R1" "$R2" "$R3"; do
			ip netns exec "$ns" tc qdisc show dev down | grep -q ' keyed ' && keyed=$((keyed + 1))
			bad=$((bad + $(hstat "$ns" fb_badauth) + $(hstat "$ns" fb_replay)))
		done
		log "keyed: $keyed of 5 hops; reports refused (fb_badauth + fb_replay) $bad"
		check "keyed_every_hop ($keyed of 5)" test "$keyed" = 5
		check "keyed_none_refused ($bad)" test "$bad" = 0
		no_hbh
		return
	fi
	no_hbh

	all_hbh mode fifo
	hbh_down "$R2" 10mbit mode fifo limit 100
	sample "$R2" 5
	udp_run 3 40M
	urc=$?
	wait $smp
	read -r _ util_fifo _ _ <<<"$(analyse "$TMP_DIR/samples")"
	log "fifo: iperf3 exit $urc, lost $(udp_lost) of $(udp_sent), r2 drops $(hstat "$R2" drops), utilisation $util_fifo; hbh's $util"
	check "fifo_flow_ran (iperf3 exit $urc, $(udp_sent) datagrams)" udp_ran "$urc"
	# (40 Mbit/s offered into 10: a guest that cannot send that much
	# overloads nothing)
	perf_check "fifo_baseline_drops" test "$(hstat "$R2" drops)" -gt 0
}

# flow_class NS: the flow's three lines of "tc -s class show" as one (tc
# has no JSON for classes)
flow_class() {
	ip netns exec "$1" tc -s class show dev down |
		awk '/ flow 10\.0\.0\.1:[0-9]+ > 10\.3\.0\.2:5201 / { l = $0; getline; l = l " " $0; getline; print l " " $0 }'
}
# cf FILE KEY: the value after KEY, rates in bit/s
cf() {
	awk -v k="$2" '{ for (i = 1; i < NF; i++) if ($i == k) { v = $(i + 1); break } }
	END {
		m = 1
		if (v ~ /Gbit$/) m = 1e9; else if (v ~ /Mbit$/) m = 1e6; else if (v ~ /Kbit$/) m = 1e3
		if (v ~ /bit$/) { sub(/[GMK]?bit$/, "", v); printf "%.0f\n", v * m } else print v
	}' "$1"
}
# r1 paces the flow at the rate the bottleneck's reports set: m^ is r2's
# service rate, about C (one snapshot: m^ and the rate move around C from
# report to report); r3 has no reports, the link rate
flow_dump_ok() {
	local c1=$TMP_DIR/class.r1 c3=$TMP_DIR/class.r3
	test -s "$c1" -a -s "$c3" &&
	grep -q ' proto 17 controlled ' "$c1" && test "$(cf "$c1" fb_age)" != never &&
	grep -q ' proto 17 free ' "$c3" && test "$(cf "$c3" fb_age)" = never &&
	test "$(cf "$c3" rate)" = 50000000 -a "$(cf "$c3" qlen)" != ""
}
# ... and r1's rates near the link's: the flow moves at full speed (a
# guest too slow to send 40 Mbit/s of UDP measures far less)
flow_dump_rates_ok() {
	local c1=$TMP_DIR/class.r1
	between "$(cf "$c1" mhat)" $((C / 5)) $((2 * C)) &&
	between "$(cf "$c1" rate)" $((C / 5)) $((2 * C))
}
# flows are listed, not configurable
class_refused() {
	! ip netns exec "$R1" tc class add dev down parent "$(hstat "$R1" handle)" classid "$(hstat "$R1" handle)7" 2>/dev/null &&
	! ip netns exec "$R1" tc class del dev down classid "$(hstat "$R1" handle)1" 2>/dev/null
}
# blast ETHERTYPE COUNT SPORT SEED: bad frames drawn from SEED into r1's
# "down" (from the wire's end, through its netem); prints r2's utilisation
# meanwhile, the time taken and hbh_frames.py's "<malformed frames>
# <unknown-flow frames> <distinct frames> <seed>"
blast() {
	local b0 b1 t0 t1 n
	# on the console too: a guest that dies meanwhile loses the script's
	# output, not the kernel log
	echo "<3>sch_hbh.sh: blast of $2 frames of type $1, HBH_FUZZ_SEED=$4" >/dev/kmsg
	b0=$(hstat "$R2" bytes)
	t0=$(date +%s%N)
	n=$(ip netns exec "$W12" env HBH_ETHERTYPE="$1" HBH_FUZZ_SEED="$4" \
		"$SELFTESTS_DIR/hbh_frames.py" fuzz wa "$2" 10.0.0.1 10.3.0.2 "$3" 5201)
	b1=$(hstat "$R2" bytes)
	t1=$(date +%s%N)
	awk -v b=$((b1 - b0)) -v t=$((t1 - t0)) -v c=$C -v n="$n" \
		'BEGIN { printf "%.3f %d %s\n", b * 8 / (t / 1e9) / c, t / 1e6, n }'
}

# On a live link, while one flow runs: the flow in the class dump; bad
# frames r2 -> r1 (rejected, counted, traffic unaffected: 30 000 frames,
# HBH_FUZZ_FRAMES sets another count, make check-debug sends 100 000;
# drawn afresh each run from a random seed, which is logged:
# HBH_FUZZ_SEED=<seed> sends the same frames again);
# reports for the flow arriving where it does not leave (r1's interface
# towards h0: ignored); then absurd reports for it on the right interface
# (the rate stays within its bounds, nothing breaks, the flow keeps
# flowing)
hostile_feedback() {
	local u sport nfuzz=${HBH_FUZZ_FRAMES:-30000} seed
	local drops_pre p_pre util_ctl ms_ctl nbad_ctl drops_ctl p_ctl rej0 ign0
	local util_fuzz ms_fuzz nbad nunknown ndistinct drops_fuzz p_fuzz b2 t2 b3 t3
	local nabsurd kbps_absurd rej ign spoof_ign
	seed=${HBH_FUZZ_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
	all_hbh
	ip netns exec "$R1" tc qdisc add dev up root hbh rate 50mbit
	defer ip netns exec "$R1" tc qdisc del dev up root
	# (killed once measured: the frames take 40-80 s to build and send,
	# over 130 s on a debug kernel)
	udp_run 600 40M &
	u=$!
	defer ip netns exec "$H0" pkill -f "iperf3 -c 10.3.0.2 -p 5201"
	sleep 2
	sport=$(ip netns exec "$H0" ss -Hun | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^10\.0\.0\.1:/) { n = split($i, a, ":"); print a[n]; exit } }')
	sport=${sport:-1}
	# the flow as "tc -s class show" lists it, where it is controlled (r1)
	# and where it leaves towards a host without hbh (r3)
	flow_class "$R1" >"$TMP_DIR/class.r1"
	flow_class "$R3" >"$TMP_DIR/class.r3"
	log "r1's class for the flow: $(cat "$TMP_DIR/class.r1")"
	log "r3's class for the flow: $(cat "$TMP_DIR/class.r3")"
	check "flow_state_in_class_dump" flow_dump_ok
	perf_check "flow_rates_in_class_dump" flow_dump_rates_ok
	check "class_add_del_refused" class_refused

	drops_pre=$(drops_all)
	p_pre=$(hstat "$R2" packets)
	read -r util_ctl ms_ctl nbad_ctl _ <<<"$(blast 0x88B6 "$nfuzz" "$sport" "$seed")"
	drops_ctl=$(($(drops_all) - drops_pre))
	p_ctl=$(($(hstat "$R2" packets) - p_pre))
	drops_pre=$(drops_all)
	p_pre=$(hstat "$R2" packets)
	rej0=$(hstat "$R1" fb_rejected)
	ign0=$(hstat "$R1" fb_entries_ignored)
	read -r util_fuzz ms_fuzz nbad nunknown ndistinct _ <<<"$(blast 0x88B5 "$nfuzz" "$sport" "$seed")"
	drops_fuzz=$(($(drops_all) - drops_pre))
	p_fuzz=$(($(hstat "$R2" packets) - p_pre))
	ip netns exec "$W01" "$SELFTESTS_DIR/hbh_frames.py" report wb 2000 10.0.0.1 10.3.0.2 "$sport" 5201 >/dev/null
	log "drops while frames of a type nobody handles went in: $drops_ctl of $p_ctl packets; while the fuzz frames went in: $drops_fuzz of $p_fuzz; per node: $(drops_each); flows set free for lack of reports: h0 $(hstat "$H0" fb_expired), r1 $(hstat "$R1" fb_expired)"
	nabsurd=$(ip netns exec "$W12" "$SELFTESTS_DIR/hbh_frames.py" absurd wa 2000 10.0.0.1 10.3.0.2 "$sport" 5201)
	sleep 1
	b2=$(hstat "$R2" bytes)
	t2=$(date +%s%N)
	sleep 2
	b3=$(hstat "$R2" bytes)
	t3=$(date +%s%N)
	kbps_absurd=$(((b3 - b2) * 8 * 1000000 / (t3 - t2)))
	ip netns exec "$H0" pkill -f "iperf3 -c 10.3.0.2 -p 5201" 2>/dev/null
	wait $u 2>/dev/null
	rej=$(($(hstat "$R1" fb_rejected) - rej0))
	ign=$(($(hstat "$R1" fb_entries_ignored) - ign0))
	spoof_ign=$(hstat "$R1" fb_entries_ignored up)
	log "fuzz ($nfuzz frames, $ndistinct distinct, HBH_FUZZ_SEED=$seed, $ms_fuzz ms): $nbad malformed sent, $rej rejected; $nunknown frames naming unknown flows, $ign entries ignored; bottleneck utilisation meanwhile $util_fuzz, with as many of an unhandled type ($ms_ctl ms) $util_ctl; drops $drops_fuzz"
	log "udp source port $sport; 2000 reports for it on r1/up: $(hstat "$R1" fb_received up) received, $spoof_ign entries ignored; after 2000 absurd reports: $kbps_absurd kbit/s at r2"
	# the frames went out: every one of both runs, malformed and not
	check "fuzz_frames_sent ($nbad + $nunknown of $nfuzz, $ndistinct distinct; unhandled type: $nbad_ctl malformed)" \
		eval 'fcmp "$nbad" ">" 0 && fcmp "$nunknown" ">" 0 && test $((nbad + nunknown)) = "$nfuzz" -a "$nbad_ctl" = "$nbad"'
	check "fuzz_malformed_all_rejected" test "$rej" = "$nbad"
	check "fuzz_unknown_flows_ignored" test "$ign" -ge "$nunknown"
	# the frames cost a TCG guest CPU time whatever they carry: compare
	# with the same load of a type nobody handles, measured in the same run
	perf_check "fuzz_traffic_unaffected (>= 0.9 x unhandled-type run)" fcmp "$util_fuzz" '>=' "$(awk -v u="$util_ctl" 'BEGIN { print 0.9 * u }')"
	# Frames of a type nobody handles, at the same rate, cost a TCG guest
	# some drops of the flow at r1 (CPU, not the receiver: no flow is set
	# free); both phases are logged.  The fuzz phase may lose no more
	# than 1% (a receiver that let bad frames through loses far more: the
	# absurd reports below drive the flow to rate_min).
	perf_check "fuzz_loss_below_1pct ($drops_fuzz of $p_fuzz)" test "$p_fuzz" -gt 0 -a $((100 * drops_fuzz)) -le "$p_fuzz"
	check "spoof_wrong_interface_ignored" test "$spoof_ign" = 2000 -a "$(hstat "$R1" controlled up)" = 0
	# the absurd reports went out, and the flow still reached r2
	check "absurd_reports_sent ($nabsurd)" test "$nabsurd" = 2000
	check "absurd_flow_measured ($kbps_absurd kbit/s)" test "$kbps_absurd" -gt 0
	# (a 2 s window read through two tc calls: the shaper's own burst
	# can take it a little over the link rate)
	check "absurd_reports_harmless (<= 1.15 x link rate)" test "$kbps_absurd" -le 11500
	# the flow still moves: not driven to a standstill by the reports (a
	# guest too slow to send the flow at 1 Mbit/s in the first place fails
	# this for want of traffic)
	perf_check "absurd_reports_flow_still_moving ($kbps_absurd >= 1000 kbit/s)" test "$kbps_absurd" -ge 1000
}

# TCP fills the link without a retransmission
tcp_fill() {
	local trc tbps tbytes rtx tfull drops
	all_hbh
	# a receive window of 512 KB (3 x the path's BDP): without losses cwnd
	# grows to the window, and the excess waits in h0's hbh queue (the
	# first second, slow start over a 100 ms path, is left out: iperf3 -O)
	ip netns exec "$H0" iperf3 -c 10.3.0.2 -p 5201 -t 4 -O 1 -C reno -w 512K -J >"$TMP_DIR/tcp.json" 2>/dev/null
	trc=$?
	read -r tbps tbytes rtx <<<"$(jq -r '[.end.sum_received.bits_per_second, .end.sum_received.bytes, .end.sum_sent.retransmits] | map(. // "null") | @tsv' "$TMP_DIR/tcp.json")"
	drops=$(drops_all)
	# TCP's goodput is 1448 of every 1514 bytes on the wire: the floor is
	# TCP_UTIL_MIN of the configured rate's goodput
	tfull=$(awk -v c=$C -v u="$TCP_UTIL_MIN" 'BEGIN { printf "%.0f", u * c * 1448 / 1514 }')
	log "tcp reno: iperf3 exit $trc, $tbps bit/s ($tbytes bytes) after the first second (floor $tfull: $TCP_UTIL_MIN of $C bit/s goodput; $(awk -v b="$tbps" -v c=$C 'BEGIN { printf "%.3f", b / (c * 1448 / 1514) }') of it), retransmits $rtx, qdisc drops $drops; r2 queue now $(hstat "$R2" qlen)"
	check "tcp_flow_ran (iperf3 exit $trc, $tbytes bytes received)" eval 'test "$trc" = 0 && fcmp "$tbytes" ">" 0 && fcmp "$tbps" ">" 0'
	perf_check "tcp_fills_link ($tbps >= $tfull bit/s)" fcmp "$tbps" '>=' "$tfull"
	# no drops anywhere; a retransmission without a drop is a tail-loss
	# probe or a spurious timeout while the TCG guest stalls (Reno through
	# the fifo baseline's drop-tail retransmits dozens)
	check "tcp_no_drops ($drops)" test "$drops" = 0
	check "tcp_no_retransmits ($rtx <= $TCP_RTX_MAX)" eval 'fcmp "$rtx" ">=" 0 && fcmp "$rtx" "<=" "$TCP_RTX_MAX"'
}

# cross traffic joins at the bottleneck (each flow's queue at r2 is
# steered to the setpoint, so the two together aim at 100 packets, and
# the queue's peak after the join, both flows, read 88-107 packets in 26
# runs of 2026-12-07 whether the cross flow offered 20 or 12 Mbit/s; a
# drop is logged by node)
cross_traffic() {
	local u urc xrc qmax qboth
	all_hbh
	sample "$R2" 7
	udp_run 6 40M 5201 &
	u=$!
	sleep 2
	udp_run 3 20M 5202 "$X"
	xrc=$?
	wait $u
	urc=$?
	wait $smp
	qmax=$(awk '!/^#/ && $3 > m { m = $3 } END { print m + 0 }' "$TMP_DIR/samples")
	# mean of the summed queue while both flows run, from 1 s after the
	# join (the sampler starts with the main flow; the cross flow runs 2-5 s)
	qboth=$(awk '!/^#/ { if (!t0) t0 = $1; t = $1 - t0 } !/^#/ && t >= 3000 && t <= 5000 { s += $3; n++ } END { printf "%d", n ? s / n : -1 }' "$TMP_DIR/samples")
	log "cross traffic: main flow $(udp_bps 5201) bit/s over 6 s, cross $(udp_bps 5202) bit/s over 3 s; r2 queue max $qmax ($(awk '!/^#/ { if (!t0) t0 = $1; k = ($1 - t0 < 2000) ? 1 : 2; if ($3 > m[k]) m[k] = $3 }
		END { printf "%d alone, %d after the join", m[1], m[2] }' "$TMP_DIR/samples")), mean with both $qboth; lost $(udp_lost 5201)/$(udp_lost 5202); drops by node $(drops_each)"
	# Two flows, each steered to the setpoint: the sum aims at 2 x SP.
	# The join's transient is bounded by the buffers (no drop: each flow
	# stays within its 100-packet flow_limit, though TCG delays reports);
	# once both run the sum settles near 2 x SP (allowing half a setpoint
	# for the hoprtt offset).
	check "cross_flows_ran (iperf3 exit $urc/$xrc, $(udp_sent 5201)/$(udp_sent 5202) datagrams)" \
		eval 'udp_ran "$urc" 5201 && udp_ran "$xrc" 5202'
	check "cross_no_loss" test "$(drops_all)" = 0
	# (not vacuous: the flows built a queue)
	perf_check "cross_queue_built (peak $qmax)" test "$qmax" -gt 0
	perf_check "cross_queue_settles ($qboth <= 2.5 x setpoint)" test "$qboth" -ge 0 -a "$qboth" -le $((5 * SP / 2))
	perf_check "cross_both_served" fcmp "$(udp_bps 5202)" '>=' "$(awk -v c=$C 'BEGIN { print 0.25 * c }')"
}

# mode e2e: only the source controls, from the bottleneck's reports
# relayed by the routers (its hoprtt is the end-to-end round trip)
e2e_mode() {
	local base_rtt u urc e2e_h0 e2e_ctl e2e_relay e2e_sent
	base_rtt=$(rtt_ms "$H0" 10.3.0.2)
	all_hbh mode e2e
	hbh_down "$H0" 50mbit flow_limit 2000 limit 10000 mode e2e hoprtt "$(awk -v r="$base_rtt" 'BEGIN { printf "%dus", r * 1000 }')"
	udp_run 4 40M &
	u=$!
	sleep 2
	e2e_h0=$(hstat "$H0" controlled)
	e2e_ctl="h0 $e2e_h0 r1 $(hstat "$R1" controlled) r2 $(hstat "$R2" controlled)"
	e2e_relay=$(flow_class "$R1" | awk '{ for (i = 1; i < NF; i++) if ($i == "proto") { print $(i + 2); exit } }')
	wait $u
	urc=$?
	e2e_sent=$(udp_sent)
	log "e2e: controlled flows $e2e_ctl; r1's state for the flow: $e2e_relay; $(udp_bps) bit/s, lost $(udp_lost) of $e2e_sent; drops $(drops_each)"
	check "e2e_flow_ran (iperf3 exit $urc, $e2e_sent datagrams)" udp_ran "$urc"
	# (h0 also controls iperf3's control connection once it has reports)
	check "e2e_source_controls_routers_do_not" test "$e2e_h0" -ge 1 -a "${e2e_ctl#h0 $e2e_h0 }" = "r1 0 r2 0"
	# r1 relays the bottleneck's reports for the flow (its entry exists
	# once the flow's packets and reports pass: a slow guest's flow of a
	# few hundred kbit/s may not have one 2 s in)
	perf_check "e2e_routers_relay (r1: ${e2e_relay:-no entry})" test "$e2e_relay" = relay
	# without the relay h0 would hear only r1 (an empty queue) and send 40
	# Mbit/s into 10 (fifo loses ~3/4); with it the bottleneck drives h0
	# (the source reacts a whole path later than hop by hop)
	perf_check "e2e_bottleneck_drives_source (lost $(udp_lost) <= 25%)" test "$e2e_sent" -gt 0 -a $((100 * $(udp_lost))) -le $((25 * e2e_sent)) -a "$(udp_lost)" -ge 0
}

# 10 000 flows: the table is bounded by max_flows, idle flows go; the
# module parameters' bounds
flow_table() {
	local p=/sys/module/sch_hbh/parameters mf gc nf ov nb
	mf=$(cat $p/max_flows)
	gc=$(cat $p/gc_age_ms)
	defer sh -c "echo $mf >$p/max_flows; echo $gc >$p/gc_age_ms"
	echo 4000 >$p/max_flows
	echo 600000 >$p/gc_age_ms
	all_hbh
	ip netns exec "$H0" "$SELFTESTS_DIR/hbh_frames.py" flows 10.3.0.2 10000 1 >/dev/null
	nf=$(hstat "$R1" flows)
	ov=$(hstat "$R1" flow_overflow)
	echo 200 >$p/gc_age_ms
	r1_empty() { [ "$(hstat "$R1" flows)" = 0 ]; }
	busywait 5000 r1_empty
	log "10000 flows with max_flows 4000: r1 held $nf flows, $ov packets overflowed; after idle: $(hstat "$R1" flows) flows, $(hstat "$R1" flows_gc) collected"
	# (the table is the bound; how many of the other 6000 packets meet a
	# full table depends on how fast the guest drains the held flows)
	check "flows_bounded" test "$nf" -le 4000 -a "$nf" -ge 3900 -a "$ov" -gt 0
	check "idle_flows_collected" test "$(hstat "$R1" flows)" = 0 -a "$(hstat "$R1" flows_gc)" -ge 3900
	# the table never holds more than 4 flows a bucket: r1 created with
	# max_flows 1024 (256 buckets), then max_flows raised to 65536 and
	# 10 000 flows: r1 holds at most 1024
	echo 1024 >$p/max_flows
	echo 600000 >$p/gc_age_ms
	hbh_down "$R1" 50mbit
	echo 65536 >$p/max_flows
	ip netns exec "$H0" "$SELFTESTS_DIR/hbh_frames.py" flows 10.3.0.2 10000 1 >/dev/null
	nf=$(hstat "$R1" flows)
	nb=$(hstat "$R1" buckets)
	log "r1 created with max_flows 1024, raised to 65536: $nb buckets, $nf flows held of 10000, $(hstat "$R1" flow_overflow) packets overflowed"
	check "table_bounded_by_buckets ($nf flows, $nb buckets)" test "$nb" = 256 -a "$nf" -le 1024 -a "$nf" -ge 900
	echo 200 >$p/gc_age_ms
	busywait 5000 r1_empty
	echo "$mf" >$p/max_flows
	echo "$gc" >$p/gc_age_ms
	# the parameters refuse values outside their documented ranges
	param_refused() { ! (echo "$2" >"$p/$1") 2>/dev/null && [ "$(cat "$p/$1")" = "$3" ]; }
	params_bounded() {
		param_refused max_flows 15 "$mf" && param_refused max_flows 1048577 "$mf" &&
			param_refused gc_age_ms 99 "$gc" && param_refused gc_age_ms 600001 "$gc"
	}
	check "params_bounded" params_bounded
}

# change and delete under traffic
change_delete() {
	local u urc ok=1 s
	all_hbh
	udp_run 4 40M &
	u=$!
	sleep 1
	for s in 10 30 $SP; do
		ip netns exec "$R2" tc qdisc change dev down root hbh setpoint $s period 2ms || ok=0
		sleep 0.3
	done
	ip netns exec "$R1" tc qdisc change dev down root hbh mode e2e || ok=0
	ip netns exec "$R1" tc qdisc del dev down root || ok=0
	sleep 0.5
	ip netns exec "$R1" tc qdisc add dev down root hbh rate 50mbit || ok=0
	wait $u
	urc=$?
	check "change_delete_flow_ran (iperf3 exit $urc, $(udp_bps) bit/s)" udp_ran "$urc"
	check "change_delete_under_traffic" test $ok = 1
}

setup_prepare() {
	hbh_chain || return 1
	HOPRTT=$(hoprtt_of "$H0" 10.0.0.2)
	log "hop round trip $HOPRTT"
	iperf3_servers "$H1" 5201 5202
}

setup_prepare || { echo "# topology setup failed"; exit $ksft_fail; }
tests_run
