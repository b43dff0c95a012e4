#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# tracepoints: the modules' tracepoints as user-space tools read them.
# trace-cmd and perf print an event from the "print fmt" of its format
# file; the enum constants named in a __print_symbolic() table become
# numbers there only if the trace header exports them with
# TRACE_DEFINE_ENUM, otherwise the tools cannot resolve them and print
# numbers, or fail to parse the event.  Checked on the format files, then
# on the events of a short decbit flow and a bimodal flow (ECN) over
# "decbit rate 10mbit" and of a ping flood through two hbh qdiscs, recorded
# with trace-cmd and printed by "trace-cmd report": every event shows its
# reason, mode or update by name.  (perf reads the same format files but
# takes minutes to start in a TCG guest: checked by hand, see docs/usage.md,
# "Tracepoints".)
#
#   s =[rd: decbit rate 10mbit]=> r => d    (TCP)
#   s <=[rs: hbh 10mbit]= r <=[hbh 50mbit]= d    (ping -f)

ALL_TESTS="format_files trace_cmd_report"

. "$(dirname "$0")/lib.sh"

require_cmd tc iperf3 trace-cmd ping
require_module tcp_decbit tcp_bimodal sch_decbit sch_hbh

tr=/sys/kernel/tracing
[ -d "$tr/events" ] || mount -t tracefs nodev "$tr" 2>/dev/null

# fmt_numeric SYSTEM EVENT ENUM_PREFIX: the format file's symbolic table
# carries numbers, not the enum's names
fmt_numeric() {
	local f=$tr/events/$1/$2/format
	grep -q '__print_symbolic' "$f" || return 1
	if grep -q "$3" "$f"; then
		log "$1:$2 format: $(grep -o "{ $3[A-Z_]*, \"[a-z_]*\" }" "$f" | head -n 2 | xargs)"
		return 1
	fi
	log "$1:$2 format: $(grep -o '{ [0-9]*, "[a-z_]*" }' "$f" | head -n 2 | xargs)"
}

format_files() {
	check "decbit_format_numeric" fmt_numeric tcp_decbit decbit_decision DECBIT_
	check "bimodal_format_numeric" fmt_numeric tcp_bimodal bimodal_event BIMODAL_
	check "hbh_format_numeric" fmt_numeric sch_hbh hbh_rate HBH_UPD_
}

# named REPORT EVENT PATTERN: the EVENT's lines of REPORT, at least one,
# all match PATTERN (an extended regex)
named() {
	local n bad
	n=$(grep -c "$2:" "$1")
	bad=$(grep "$2:" "$1" | grep -cvE "$3")
	log "$(basename "$1"): $n $2 events, $bad without names; e.g. $(grep -m1 "$2:" "$1" | sed 's/.*\('"$2"':\)/\1/')"
	[ "$n" -gt 0 ] || log "  $(basename "$1"): $(head -n 3 "$1" | xargs)"
	[ "$bad" = 0 ] || log "  e.g. $(grep "$2:" "$1" | grep -vE "$3" | head -n 1 | sed 's/.*\('"$2"':\)/\1/')"
	[ "$n" -gt 0 ] && [ "$bad" = 0 ]
}
DECBIT_RE=' reason=(increase|decrease|hold|ss_exit|loss|restart|undo|idle)( |$)'
BIMODAL_RE=' mode=(unknown|known)->(unknown|known) .* reason=(begin|measured|void|joined|left|at_fair|timeout)( |$)'
HBH_RE=' update=(stale|baseline|rise|law)( |$)'

# the events of the flows, recorded with trace-cmd and printed by
# "trace-cmd report": every event shows its reason, mode or update by name
trace_cmd_report() {
	local port events c1 c2 out=$TMP_DIR
	ip netns exec "$R" tc qdisc add dev rd root decbit rate 10mbit
	defer ip netns exec "$R" tc qdisc del dev rd root
	ip netns exec "$R" tc qdisc add dev rs root hbh rate 10mbit hoprtt 2ms
	defer ip netns exec "$R" tc qdisc del dev rs root
	ip netns exec "$D" tc qdisc add dev eth0 root hbh rate 50mbit hoprtt 2ms
	defer ip netns exec "$D" tc qdisc del dev eth0 root
	for port in 5201 5202; do
		ip netns exec "$D" iperf3 -s -1 -p $port >/dev/null 2>&1 &
		defer kill $!
	done
	busywait 5000 ip netns exec "$D" sh -c 'ss -ltn | grep -q ":5202 "'

	events="-e tcp_decbit:decbit_decision -e tcp_bimodal:bimodal_event -e sch_hbh:hbh_rate"
	defer trace-cmd reset
	# shellcheck disable=SC2086
	trace-cmd start -b 2048 $events >"$out/start.log" 2>&1 || log "trace-cmd start: $(tail -n 1 "$out/start.log")"
	ip netns exec "$S" iperf3 -c 10.71.0.2 -p 5201 -C decbit -t 3 >/dev/null 2>&1 &
	c1=$!
	ip netns exec "$S" iperf3 -c 10.71.0.2 -p 5202 -C bimodal -t 3 >/dev/null 2>&1 &
	c2=$!
	ip netns exec "$D" ping -q -f -s 1400 -w 2 10.70.0.1 >/dev/null 2>&1
	wait $c1 $c2
	trace-cmd stop
	trace-cmd extract -o "$out/trace.dat" >"$out/extract.log" 2>&1
	trace-cmd report -i "$out/trace.dat" >"$out/report.txt" 2>&1

	check "trace_cmd_decbit_reason_names" named "$out/report.txt" decbit_decision "$DECBIT_RE"
	check "trace_cmd_bimodal_mode_reason_names" named "$out/report.txt" bimodal_event "$BIMODAL_RE"
	check "trace_cmd_hbh_update_names" named "$out/report.txt" hbh_rate "$HBH_RE"
	# no parse failures anywhere in the report
	check "trace_cmd_no_parse_failures" sh -c "! grep -q 'FAILED TO PARSE' '$out/report.txt'"
}

# s =[rd: decbit rate 10mbit]=> r => d, and back from d =[hbh 50mbit]=>
# r =[rs: hbh 10mbit]=> s
setup_prepare() {
	allow_cc decbit
	allow_cc bimodal
	setup_ns S R D || return 1
	veth_pair "$S" eth0 "$R" rs 10.70.0.1 10.70.0.2 &&
	veth_pair "$R" rd "$D" eth0 10.71.0.1 10.71.0.2 || return 1
	ip -n "$S" route add default via 10.70.0.2
	ip -n "$D" route add default via 10.71.0.1
	ip netns exec "$S" sysctl -qw net.ipv4.tcp_congestion_control=decbit net.ipv4.tcp_ecn=1
	ip netns exec "$D" sysctl -qw net.ipv4.tcp_congestion_control=decbit
}

setup_prepare || { echo "# topology setup failed"; exit $ksft_fail; }
tests_run
