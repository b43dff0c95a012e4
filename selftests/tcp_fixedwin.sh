#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# tcp_fixedwin (Jacobson's no-congestion-avoidance baseline): the window
# parameter's bounds; one flow through a drop-tail bottleneck too small
# for its window keeps that window through its losses, where Reno in the
# same run shrinks.
#
# s1 - r1 =[rb0: tbf 10mbit, 20 packets]=> r2 =[r2d0: netem 20ms]=> d

ALL_TESTS="window_param sysctl_select window_through_losses window_after_timeout"

. "$(dirname "$0")/lib.sh"

require_cmd tc iperf3 jq ethtool ss
require_module tcp_fixedwin sch_netem sch_tbf

p=/sys/module/tcp_fixedwin/parameters/window
# fixedwin's goodput through its losses, of the 10 Mbit/s link: a floor
# just below the distribution measured in make check's one-vCPU guests,
# two side by side (0.561-0.833 in 11 runs on 6.1 and 6 on 6.12;
# docs/testing.md)
FIXEDWIN_FLOOR=0.56

# the window is bounded (1..65535)
window_param() {
	local old
	old=$(cat $p)
	defer sh -c "echo $old >$p"
	check "window_out_of_range_refused" sh -c "! echo 0 >$p 2>/dev/null && ! echo 65536 >$p 2>/dev/null && ! echo x >$p 2>/dev/null && [ \$(cat $p) = $old ]"
	check "window_set" sh -c "echo 64 >$p && [ \$(cat $p) = 64 ]"
}

# selectable by sysctl in a namespace
sysctl_select() {
	check "sysctl_selects_fixedwin" ip netns exec "$S1" sysctl -qw net.ipv4.tcp_congestion_control=fixedwin
	ip netns exec "$S1" sysctl -qw net.ipv4.tcp_congestion_control=cubic
}

# cw_sample NS DST CC: "cwnd retrans_out backoff rtos" of the data
# connection to DST (the established one running CC with the most bytes
# acknowledged: iperf3's control connection runs the namespace's default,
# and is the only one left established for a moment after the data
# connection closes), from one ss call; "0 0 0 0" if there is none.
# rtos: the retransmission timeouts since snd_una last advanced (ss -o's
# "timer:(on,T,N)"), counted before the retransmission is sent, where
# backoff is only raised once it has gone (a retransmission deferred by
# local congestion or TSQ leaves it 0)
cw_sample() {
	# (ss prints the timer on the socket's line, the TCP info on the next)
	ip netns exec "$1" ss -tino state established dst "$2" | awk -v cc="$3" '!/cwnd:/ {
		t = 0
		for (i = 1; i <= NF; i++)
			if ($i ~ /^timer:\(on,/) {
				t = $i; sub(/\)$/, "", t); sub(/.*,/, "", t)
			}
	}
	/cwnd:/ {
		c = 0; r = 0; b = 0; a = 0; k = 0
		for (i = 1; i <= NF; i++) {
			if ($i == cc) k = 1
			if ($i ~ /^cwnd:/) c = substr($i, 6)
			if ($i ~ /^retrans:/) r = substr($i, 9)	# retrans_out/total
			if ($i ~ /^backoff:/) b = substr($i, 9)
			if ($i ~ /^bytes_acked:/) a = substr($i, 13)
		}
		if (k && a + 0 >= best) { best = a + 0; w = c + 0; rr = r + 0; bb = b + 0; tt = t + 0 }
	} END { print w + 0, rr + 0, bb + 0, tt + 0 }'
}

# flow CC: a 10 s flow; cwnd of the data connection from 2 s on (as fast
# as ss runs: ~0.5 s per sample under TCG) into cw_n (samples), cw_at
# (samples at 64), cw_min, cw_max; of those, the samples taken after a
# retransmission timeout (the RTO backed off, or timeouts counted: from
# the timeout until an ACK advances snd_una and gives a valid RTT sample;
# the stack, not the CC, sets the window at the timeout, to the packets in
# flight + 1, until the next ACK calls the CC) into cw_rec, and the
# others into cw_steady and cw_steady_at (at 64), those not at 64 listed
# as "cwnd/retrans_out/backoff/rtos" in cw_odd; cw_rtx (samples with
# retransmitted segments unacknowledged: fast recovery, where the CC keeps
# its window);
# rc (iperf3's exit status), bytes (received), rtx, bps.
# flow CC outage: the same, the path blackholed at r1 from 2 s in until
# the sender's first retransmission timeout (blackhole.py; its exit
# status into bh_rc, the timeouts it saw into nto); sampling starts after
flow() {
	local c w r b t
	ip netns exec "$S1" iperf3 -c 10.9.0.2 -p 5201 -C "$1" -t 10 ${2:+--cport 40100} -J >"$TMP_DIR/flow.json" 2>&1 &
	c=$!
	sleep 2
	bh_rc="" nto=""
	if [ "${2:-}" = outage ]; then
		python3 -S "$SELFTESTS_DIR/blackhole.py" "$R1" "$S1" 1 8 "$TMP_DIR/mark.{}" 10.9.0.2/32:40100 >"$TMP_DIR/bh"
		bh_rc=$?
		read -r _ _ _ nto <"$TMP_DIR/bh"
	fi
	cw_n=0 cw_at=0 cw_min=100000 cw_max=0 cw_rec=0 cw_steady=0 cw_steady_at=0 cw_rtx=0
	cw_rto=0 cw_odd=""
	while kill -0 $c 2>/dev/null && [ $cw_n -lt 50 ]; do
		read -r w r b t < <(cw_sample "$S1" 10.9.0.2 "$1")
		[ "$w" = 0 ] && continue	# the flow has ended
		cw_n=$((cw_n + 1))
		[ "$w" = 64 ] && cw_at=$((cw_at + 1))
		[ "$w" -lt $cw_min ] && cw_min=$w
		[ "$w" -gt $cw_max ] && cw_max=$w
		[ "$r" -gt 0 ] && cw_rtx=$((cw_rtx + 1))
		if [ "$b" -gt 0 ] || [ "$t" -gt 0 ]; then
			cw_rec=$((cw_rec + 1))
			[ "$w" = 1 ] && cw_rto=$((cw_rto + 1))
		else
			cw_steady=$((cw_steady + 1))
			if [ "$w" = 64 ]; then
				cw_steady_at=$((cw_steady_at + 1))
			else
				cw_odd+=" $w/$r/$b/$t"
			fi
		fi
	done
	wait $c
	rc=$?
	rtx="" bps="" bytes=""
	read -r rtx bps bytes < <(jq -r '[.end.sum_sent.retransmits, .end.sum_received.bits_per_second,
		.end.sum_received.bytes] | @tsv' "$TMP_DIR/flow.json" 2>/dev/null)
}
# flow_ran: the last flow's client ended well and its receiver got data;
# flow_ran_and CMD...: CMD only if so
flow_ran() {
	[ "$rc" = 0 ] && [[ $bytes =~ ^[0-9]+$ ]] && [ "$bytes" -gt 0 ] && [[ $rtx =~ ^[0-9]+$ ]]
}
flow_ran_and() { flow_ran && "$@"; }

# a 64-packet window through 20 packets of queue and a ~17-packet pipe:
# fixedwin keeps it through the losses, Reno in the same place moves
window_through_losses() {
	local old f_rtx
	old=$(cat $p)
	defer sh -c "echo $old >$p"
	echo 64 >$p
	flow fixedwin
	log "fixedwin (window 64): cwnd $cw_at of $cw_n samples at 64 (min $cw_min, max $cw_max); $cw_rtx with retransmissions outstanding; $cw_rec after a timeout ($cw_rto at 1); $cw_steady_at of $cw_steady outside one at 64${cw_odd:+ (not:$cw_odd)}; retransmits $rtx; $bps bit/s"
	check "fixedwin_flow_ran (iperf3 exit $rc, ${bytes:-no} bytes received)" flow_ran
	check "fixedwin_losses_seen ($rtx)" flow_ran_and test "${rtx:-0}" -gt 0
	# outside a timeout the CC alone sets the window, fast recovery
	# included: every sample, those taken after a timeout has ended too
	check "fixedwin_window_kept ($cw_steady_at of $cw_steady outside a timeout at 64)" \
		flow_ran_and test "$cw_steady" -ge 1 -a "$cw_steady_at" = "$cw_steady"
	perf_check "fixedwin_window_sampled ($cw_n >= 4)" test "$cw_n" -ge 4
	# (a rate: a debug kernel's slow guest carries a tenth of the link)
	perf_check "fixedwin_delivers ($bps >= $FIXEDWIN_FLOOR of 10 Mbit/s)" \
		flow_ran_and fcmp "$bps" '>=' "$(awk -v f="$FIXEDWIN_FLOOR" 'BEGIN { print f * 10e6 }')"
	f_rtx=$rtx

	flow reno
	log "reno: cwnd min $cw_min, max $cw_max ($cw_n samples); retransmits $rtx; $bps bit/s"
	check "reno_flow_ran (iperf3 exit $rc, ${bytes:-no} bytes received)" flow_ran
	# slow start may pass 64 before the first loss is seen
	# (a slow guest's one or two samples cannot show it move: perf)
	perf_check "reno_window_moves ($cw_min..$cw_max)" flow_ran_and test "$cw_n" -ge 4 -a "$cw_min" -lt 64 -a "$cw_max" -gt "$cw_min"
	perf_check "reno_fewer_retransmits ($rtx < $f_rtx)" flow_ran_and test "$rtx" -lt "$f_rtx"
}

# a timeout, made to happen: the path blackholed at r1 from 2 s into a
# flow until the sender's first retransmission timeout (blackhole.py);
# the stack sets the window at the timeout, and fixedwin's must be back at
# 64 once the timeout has ended: every sample taken from then on (by the
# Reno-like rule a window only capped at 64 would stay where the timeout
# left it)
window_after_timeout() {
	local old
	old=$(cat $p)
	defer sh -c "echo $old >$p"
	echo 64 >$p
	flow fixedwin outage
	log "timeout: blackhole.py exit $bh_rc, ${nto:-no} timeouts; then $cw_steady_at of $cw_steady samples outside a timeout at 64${cw_odd:+ (not:$cw_odd)}, $cw_rec in one; iperf3 exit $rc, ${bytes:-no} bytes"
	check "timeout_happened (exit $bh_rc, ${nto:-no} timeouts)" eval 'test "$bh_rc" = 0 && [[ $nto =~ ^[0-9]+$ ]] && test "$nto" -ge 1'
	check "timeout_flow_ran (iperf3 exit $rc, ${bytes:-no} bytes)" flow_ran
	check "window_back_after_timeout ($cw_steady_at of $cw_steady samples at 64)" \
		test "$cw_steady" -ge 1 -a "$cw_steady_at" = "$cw_steady"
}

setup_prepare() {
	allow_cc fixedwin
	dumbbell 1 || return 1
	big_buffers "$S1" "$D"
	ip netns exec "$R2" tc qdisc add dev r2d0 root netem delay 20ms limit 10000
	ip netns exec "$R1" tc qdisc add dev rb0 root handle 1: tbf rate 10mbit burst 1600 limit 30000
	iperf3_servers "$D" 5201
}

setup_prepare || { echo "# topology setup failed"; exit $ksft_fail; }
tests_run
