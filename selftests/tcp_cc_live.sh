#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# tcp_cc_live: decbit and bimodal on live connections.
# - A bulk transfer whose sender switches TCP_CONGESTION decbit -> bimodal
#   -> cubic ... 1000 times, one every 2 ms of sending, while its receiver
#   switches its own end every 20 ms and every parameter of both modules
#   is written its extreme values: the connection keeps transferring,
#   every byte arrives, and the state read before each switch (tcp_info,
#   and TCP_CC_INFO, what ss -ti shows) stays in range.
# - A module switched in during an ECN episode (CWR) that cubic began
#   must end it at a sane window, not at 2 packets.
# - Parameters: bounds and descriptions.
# - ss -ti: the dctcp:(...) fields mean the same in both modules
#   (docs/ss-info.md): the last decision's reason, the estimate, and the
#   ECE-marked and all packets acknowledged (against ss's own
#   delivered_ce and delivered); a connection without ECN switched to
#   decbit shows the Reno fallback.
#
#   s =[rd: decbit rate 10mbit]=> r => d, ACKs back through netem 100 ms on d
#   (a round trip long enough for cubic's windows to be well above 2)

ALL_TESTS="params live"

. "$(dirname "$0")/lib.sh"

require_cmd tc ss python3 modinfo jq
require_module tcp_decbit tcp_bimodal sch_decbit sch_netem

out=$TMP_DIR
PY=$SELFTESTS_DIR/cc_live.py

# module parameters: name, lowest, highest (the writable numbers; and
# the booleans), as the modules declare them (tools/mkman --values)
"$TOP_DIR/tools/mkman" --values >"$out/values.json" || exit $ksft_fail
PARAMS=$(jq -r '.params | to_entries[] | select(.key | test("^tcp_(decbit|bimodal)$")) |
	.key as $m | .value[] | select(.type == "uint") | "\($m)/\(.name) \(.min) \(.max)"' "$out/values.json")
BOOLS=$(jq -r '.params | to_entries[] | select(.key | test("^tcp_(decbit|bimodal)$")) |
	.key as $m | .value[] | select(.type == "bool") | "\($m)/\(.name)"' "$out/values.json")
saved=()
for p in $PARAMS $BOOLS; do
	[[ $p == */* ]] || continue
	read -r v <"/sys/module/${p%%/*}/parameters/${p#*/}"
	saved+=("$p=$v")
done
restore() {
	local kv p
	for kv in "${saved[@]}"; do
		p=${kv%%=*}
		echo "${kv#*=}" >"/sys/module/${p%%/*}/parameters/${p#*/}" 2>/dev/null
	done
}

# every parameter has a description with its range, and refuses values
# out of it (and garbage), keeping the old one (builtins only: a process
# costs ~0.3 s in a TCG guest)
params_bounded() {
	local name lo hi f old now bad=0 m v i
	local -a P
	for m in tcp_decbit tcp_bimodal; do
		modinfo -p "$TOP_DIR/build/$(uname -r)/$m/$m.ko" >"$out/modinfo"
		for f in /sys/module/$m/parameters/*; do
			name=${f##*/}
			if ! grep -q "^$name:.\{10,\}" "$out/modinfo"; then
				log "$m/$name: no description"
				bad=1
			fi
		done
	done
	read -r -a P <<<"$(echo $PARAMS)"
	for ((i = 0; i < ${#P[@]}; i += 3)); do
		name=${P[i]} lo=${P[i + 1]} hi=${P[i + 2]}
		f=/sys/module/${name%%/*}/parameters/${name#*/}
		read -r old <"$f"
		for v in $((lo - 1)) $((hi + 1)) x -1 4294967296; do
			if echo "$v" 2>/dev/null >"$f"; then
				log "$name accepted $v"
				bad=1
			fi
		done
		read -r now <"$f"
		[ "$now" = "$old" ] || { log "$name changed to $now"; bad=1; }
	done
	return $bad
}
params() {
	check "params_bounded_and_described" params_bounded
}

# one run of cc_live.py: 1000 switches on a live transfer with the
# parameters written under load, the CWR episodes, and ss -ti of a decbit,
# a bimodal and a fallen-back connection; every check reads its files
live() {
	local f w words k
	local -A RES
	defer restore
	busywait 30000 ip netns exec "$D" sh -c '[ $(ss -ltn | grep -c ":600[123] ") = 3 ]'
	PARAMS=$PARAMS BOOLS=$BOOLS ip netns exec "$S" "$PY" run 10.81.0.2 "$out" >"$out/run.log" 2>&1
	restore
	sed "s/^/$KTAP_IND# /" "$out/run.log"

	# the results: RES[key]=value from the "key=value" words of the files
	for f in switch cwr; do
		while read -r -a words; do
			for w in "${words[@]}"; do
				[[ $w == *=* ]] && RES[${w%%=*}]=${w#*=}
			done
		done <"$out/$f"
	done
	for k in switches wrong_cc reno_fallbacks sent received mbit longest_stall_ms samples \
		 out_of_range param_rounds param_written param_refused bimodal_episodes \
		 bimodal_collapsed decbit_episodes decbit_collapsed; do
		: "${RES[$k]:=none}"
	done
	# 1000 switches on a live transfer, parameters written under load
	log "switch: $(grep -v '^bad_' "$out/switch" | xargs)"
	grep '^bad_' "$out/switch" | sed "s/^/$KTAP_IND#   /"
	check "switch_1000_times_each_took (wrong ${RES[wrong_cc]}, fallbacks ${RES[reno_fallbacks]})" \
		test "${RES[switches]}" = 1000 -a "${RES[wrong_cc]}" = 0 -a "${RES[reno_fallbacks]}" = 0
	check "switch_connection_alive_every_byte_arrived (${RES[sent]} sent, ${RES[received]} received)" \
		test "${RES[sent]}" -gt 100000 -a "${RES[sent]}" = "${RES[received]}"
	kept_transferring() { fcmp "${RES[longest_stall_ms]}" '<' 3000 && fcmp "${RES[mbit]}" '>=' 0.2; }
	perf_check "switch_kept_transferring (${RES[mbit]} Mbit/s, longest stall ${RES[longest_stall_ms]} ms)" kept_transferring
	check "switch_state_in_range (${RES[out_of_range]} of ${RES[samples]} samples out)" \
		test "${RES[samples]}" = 1000 -a "${RES[out_of_range]}" = 0
	check "params_written_under_load (${RES[param_written]} in ${RES[param_rounds]} rounds, ${RES[param_refused]} refused)" \
		test "${RES[param_rounds]}" -ge 10 -a "${RES[param_refused]}" = 0
	restored() {
		local c b
		read -r c </sys/module/tcp_decbit/parameters/cutoff
		read -r b </sys/module/tcp_bimodal/parameters/beta
		[ "$c" = 50 ] && [ "$b" = 512 ]
	}
	check "params_restored" restored

	# switched in during cubic's ECN episode (CWR): the episode ends at
	# the stack's target (cwnd = ssthresh), not at 2 packets (measured before
	# the fix: bimodal's window 2-5 packets after the episode against an
	# ssthresh of 4-21; after it, equal to ssthresh every time)
	log "cwr: $(xargs <"$out/cwr")"
	check "cwr_switched_to_bimodal_not_collapsed (${RES[bimodal_collapsed]} of ${RES[bimodal_episodes]})" \
		test "${RES[bimodal_episodes]}" -ge 3 -a "${RES[bimodal_collapsed]}" = 0
	check "cwr_switched_to_decbit_not_collapsed (${RES[decbit_collapsed]} of ${RES[decbit_episodes]})" \
		test "${RES[decbit_episodes]}" -ge 3 -a "${RES[decbit_collapsed]}" = 0

	# ss -ti of a decbit and a bimodal connection over the marking
	# router, idle with nothing in flight, and of a connection without ECN
	# switched to decbit.  ssfields CC: "delivered delivered_ce ce_state
	# alpha ab_ecn ab_tot" of the connection whose cc is CC
	ssfields() {
		awk -v cc="$1" '{ for (i = 1; i <= NF; i++) if ($i == cc) { gsub(/dctcp:\(|\)|,/, " ")
			for (j = 1; j <= NF; j++) { split($j, kv, ":"); v[kv[1]] = kv[2] }
			print v["delivered"] + 0, v["delivered_ce"] + 0, v["ce_state"], v["alpha"], v["ab_ecn"], v["ab_tot"]
			exit } }' "$out/ss"
	}
	# fields_mean CC MAX_REASON: ab_tot and ab_ecn are ss's delivered and
	# delivered_ce since the handshake (the module starts once connected: one
	# packet, the SYN, less), the reason is a decision's, ECN marks were seen
	fields_mean() {
		local d dce rs a e t
		read -r d dce rs a e t < <(ssfields "$1")
		log "ss -ti $1: dctcp:(ce_state:$rs,alpha:$a,ab_ecn:$e,ab_tot:$t) delivered:$d delivered_ce:$dce"
		[ -n "$t" ] || return 1
		[ "$t" -le "$d" ] && [ "$t" -ge $((d - 2)) ] &&
			[ "$e" -le "$dce" ] && [ "$e" -ge $((dce - 2)) ] && [ "$e" -gt 0 ] &&
			[ "$rs" -ge 1 ] && [ "$rs" -le "$2" ]
	}
	check "ss_decbit_fields_mean_what_docs_say" fields_mean decbit 7
	check "ss_bimodal_fields_mean_what_docs_say" fields_mean bimodal 7
	decbit_alpha() {
		local d dce rs a e t
		read -r d dce rs a e t < <(ssfields decbit)
		[ -n "$a" ] && [ "$a" -le 1024 ]
	}
	check "ss_decbit_alpha_is_marked_fraction" decbit_alpha
	# bimodal's alpha is the fair share while it is known, 0 while unknown:
	# known after measured (2), left (5) and at_fair (6)
	bimodal_alpha() {
		local d dce rs a e t
		read -r d dce rs a e t < <(ssfields bimodal)
		case $rs in
		2|5|6) [ "$a" -ge 1 ] && [ "$a" -le 65536 ] ;;
		*) [ "$a" = 0 ] ;;
		esac
	}
	check "ss_bimodal_alpha_is_fair_share_when_known" bimodal_alpha
	log "ss -ti without ECN: $(grep -w -m1 'decbit-reno' "$out/ss" | grep -o 'decbit-reno\|dctcp:[^ ]*' | xargs)"
	check "ss_fallback_mode_without_ecn" sh -c "grep -w 'decbit-reno' '$out/ss' | grep -q 'dctcp:fallback_mode'"
}

setup_prepare() {
	allow_cc decbit
	allow_cc bimodal
	allow_cc cubic
	defer restore
	setup_ns S R D || return 1
	veth_pair "$S" eth0 "$R" rs 10.80.0.1 10.80.0.2 &&
	veth_pair "$R" rd "$D" eth0 10.81.0.1 10.81.0.2 || return 1
	ip -n "$S" route add default via 10.80.0.2
	ip -n "$D" route add default via 10.81.0.1
	big_buffers "$S" "$D"
	ip netns exec "$S" sysctl -qw net.ipv4.tcp_ecn=1 net.ipv4.tcp_slow_start_after_idle=0
	ip netns exec "$D" sysctl -qw net.ipv4.tcp_ecn=0
	ip netns exec "$R" tc qdisc add dev rd root decbit rate 10mbit
	ip netns exec "$D" tc qdisc add dev eth0 root netem delay 100ms limit 10000
	# 6001: a decbit listener (accepts ECN) whose connections switch their
	# CC every 20 ms; 6002: a cubic listener, which refuses ECN here;
	# 6003: decbit
	ip netns exec "$D" "$PY" serve 6001:decbit:20 6002:cubic:0 6003:decbit:0 &
	PIDS+=($!)
}

setup_prepare || { echo "# topology setup failed"; exit $ksft_fail; }
tests_run
