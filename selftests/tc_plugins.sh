#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The tc plugins q_decbit.so and q_hbh.so: what they refuse, and that what
# they print replays.
#
# decbit: a hysteresis valid for the qdisc's threshold is taken on change
# (the plugin used to check it against the default threshold); rates that
# do not fit (beyond 2^64 bit/s the conversion wraps) are refused by the
# plugin and, sent raw, by the kernel; the qdisc is unchanged after each.
# hbh: rise and rate_min go back to their defaults ("default"), which then
# follow rate.
# Both: for several option sets, add, show, replace with what show printed,
# show again: the same text and the same JSON options.

ALL_TESTS="decbit_hysteresis decbit_huge_rates decbit_replay hbh_defaults hbh_replay"

. "$(dirname "$0")/lib.sh"

require_cmd tc jq python3
require_module sch_decbit sch_hbh

t() { tc -n "$N" "$@"; }
opts() { t qdisc show dev d0 | head -n 1 | sed 's/^qdisc [a-z]* [0-9a-f]*: root refcnt [0-9]* //; s/ *$//'; }
jopts() { t -j qdisc show dev d0 | jq -c '.[0].options'; }
# root KIND OPTIONS...: a fresh root qdisc on d0, deleted when the test ends
root() {
	t qdisc del dev d0 root 2>/dev/null
	defer t qdisc del dev d0 root
	t qdisc add dev d0 root "$@"
}

# hysteresis 3 on threshold 5, given alone, is checked against 5
decbit_hysteresis() {
	local out
	root decbit threshold 5
	out=$(t qdisc change dev d0 root decbit hysteresis 3 2>&1)
	log "change hysteresis 3 on threshold 5: ${out:-accepted}; now: $(opts)"
	check "hysteresis_checked_against_current_threshold" grep -q "threshold 5 hysteresis 3 " <<<"$(opts) "
	out=$(t qdisc change dev d0 root decbit hysteresis 10 2>&1)
	log "hysteresis 10 on threshold 5: $out"
	check "hysteresis_too_large_refused_by_kernel" grep -q "less than twice the threshold" <<<"$out"
}

# refused BEFORE: each rate that does not fit is refused, d0 unchanged
refused() {
	local r out
	for r in 99999999999tbit 18446744073709551616bit 9tbit 1e30bit; do
		out=$(t qdisc change dev d0 root decbit rate "$r" 2>&1) && { log "rate $r accepted"; return 1; }
		log "rate $r: $(head -n 1 <<<"$out")"
	done
	[ "$(opts)" = "$1" ]
}

# rates that do not fit
decbit_huge_rates() {
	local out
	root decbit threshold 5 hysteresis 3
	check "huge_rates_refused_by_plugin" refused "$(opts)"
	out=$(ip netns exec "$N" "$SELFTESTS_DIR/nl_qdisc.py" d0 decbit replace 4:Q:$((1 << 41)) 2>&1)
	log "raw rate 2^41 bytes/s: $out"
	# the policy's range: ERANGE, naming the attribute and its range
	check "huge_rate_refused_by_kernel" grep -q "^errno=34 .* attr=4 policy=0\.\.1099511627776$" <<<"$out"
}

# replay KIND OPTIONS...: add, show, replace with the shown, show
replay() {
	local o1 o2 j1 j2
	t qdisc del dev d0 root 2>/dev/null
	t qdisc add dev d0 root "$@" || return 1
	o1=$(opts) j1=$(jopts)
	# shellcheck disable=SC2086
	t qdisc replace dev d0 root "$1" $o1 || { log "replay of '$1 $o1' refused"; return 1; }
	o2=$(opts) j2=$(jopts)
	[ "$o1" = "$o2" ] && [ "$j1" = "$j2" ] || { log "'$o1' replayed as '$o2'"; return 1; }
}
replay_all() {
	local kind=$1 set
	shift
	for set in "$@"; do
		# shellcheck disable=SC2086
		replay $kind $set || return 1
		log "$kind $set -> $(opts)"
	done
}

# decbit dumps replay
decbit_replay() {
	local out
	defer t qdisc del dev d0 root
	check "decbit_dump_replays" replay_all decbit "" "limit 50 threshold 2.5 hysteresis 1.5" \
		"rate 40mbit nonect drop" "rate 1.5gbit threshold 0.001" \
		"pool 3 pool_limit 200 ibl 0.25 input in0" "rate 8tbit"
	out=$(t qdisc replace dev d0 root decbit rate 9tbit 2>&1)
	check "decbit_rate_above_max_refused ($(head -n 1 <<<"$out"))" test -n "$out"
}

# hbh: rise and rate_min back to their defaults, which then follow rate
hbh_defaults() {
	local set_o def_o def_j j
	root hbh rate 10mbit rise 1mbit rate_min 100kbit
	set_o=$(opts)
	t qdisc change dev d0 root hbh rate_min default rise default
	def_o=$(opts) def_j=$(t -j qdisc show dev d0 | jq -c '.[0].options | [.rise, .rise_derived, .rate_min, .rate_min_derived]')
	log "set: $set_o; back to default: $def_o; JSON $def_j"
	check "hbh_rise_rate_min_back_to_default" test "$def_j" = "[19531,true,1220,true]"
	t qdisc change dev d0 root hbh rate 20mbit
	j=$(t -j qdisc show dev d0 | jq -c '.[0].options | [.rise, .rate_min]')
	check "hbh_defaults_follow_rate ($j)" test "$j" = "[39062,2441]"
}

# hbh dumps replay
hbh_replay() {
	defer t qdisc del dev d0 root
	check "hbh_dump_replays" replay_all hbh "rate 10mbit" "rate 10mbit rise 1mbit rate_min 100kbit" \
		"rate 100mbit limit 500 flow_limit 50 setpoint dynamic period 2ms alpha 0.5 beta 0.3 hoprtt 30ms mode e2e" \
		"rate 1gbit setpoint 8 period 100us mode fifo"
}

setup_prepare() {
	setup_ns N || return 1
	ip -n "$N" link add d0 type dummy && ip -n "$N" link set d0 up &&
	ip -n "$N" link add in0 type dummy
}

setup_prepare || exit $ksft_fail
tests_run
