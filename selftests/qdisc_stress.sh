#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Concurrency stress of the modules, bounded in time (STRESS_SECS, default
# 20; make check-debug: 300) and in count (STRESS_OPS per worker, default 100000), on
#
#   H h0 --- r0 R r1 --- s1 S        H's root qdisc: hbh (receives the
#                 r2 --- s2          reports of R's hbh on r1)
#                 r3 --- s3          R: dummies d0-d2 as well
#
# while pings, UDP flows and TCP connections cross R and reports (real ones
# from R's hbh, forged and malformed ones injected on r0) reach H:
#  - two workers add, change, replace and delete decbit on r2, r3, d0, d1
#    (pools 1 and 2 shared between them, input interfaces), one hbh and
#    decbit on r1 and d2, one changes H's hbh (rate, period, mode);
#  - namespaces with pools, hbh qdiscs and traffic are deleted live;
#  - every module parameter is written (valid and invalid values), the
#    first namespace's default congestion control switched every 50 ms;
#  - rmmod of every module is tried (sch_hbh, pinned by H's qdisc, must be
#    refused; the others are put back with insmod when they went);
#  - the congestion control of live TCP connections switches between
#    decbit, bimodal, fixedwin, cubic, reno and dctcp every 5 ms.
# Afterwards: every worker ran, reports reached H, the connections kept
# moving, no pool outlives its qdiscs, every module's count of users is
# back to 0, and three rmmod/insmod cycles of sch_hbh while reports keep
# arriving leave a module that works (H's new hbh takes R's reports).
# (The kernel's own checks, on a debug kernel: make check-debug.)

ALL_TESTS="concurrent_churn reload_under_reports"

. "$(dirname "$0")/lib.sh"

require_cmd tc python3 ping insmod rmmod jq
require_module sch_decbit sch_hbh tcp_decbit tcp_bimodal tcp_fixedwin

secs=${STRESS_SECS:-20}
maxops=${STRESS_OPS:-100000}
moddir=$TOP_DIR/build/$(uname -r)
out=$TMP_DIR

hstat() {	# hstat NS DEV FIELD: a field of the root qdisc's JSON stats ("null" if unread)
	tc -n "$1" -s -j qdisc show dev "$2" root 2>/dev/null | jq -r ".[0].$3 // \"null\"" 2>/dev/null || echo null
}
deadline=$((EPOCHSECONDS + secs + 60))	# set again when the workers start
alive() { [ "$EPOCHSECONDS" -lt "$deadline" ]; }	# no process: a fork costs
pick() { local a=("$@"); echo "${a[RANDOM % ${#a[@]}]}"; }


# the workers, then what they must have left: the figures of the run,
# the parameters restored, no pool, no module user
concurrent_churn() {
	tc -n "$H" qdisc add dev h0 root hbh rate 100mbit period 1ms || return 1
	tc -n "$R" qdisc add dev r1 root hbh rate 20mbit period 1ms || return 1
	# bash workers: loop_worker NAME FUNCTION calls FUNCTION until the deadline
	# or STRESS_OPS calls and leaves the count in $out/NAME
	loop_worker() {
		local name=$1 fn=$2 n=0
		(
			while alive && [ $n -lt "$maxops" ]; do
				"$fn" >/dev/null 2>&1
				n=$((n + 1))
			done
			echo "ops=$n" >"$out/$name"
		) &
		PIDS+=($!)
	}
	# netlink workers (one process each, so that the requests come fast):
	# nl_worker NAME NS ARGS... runs nl_fuzz.py churn ARGS in NS
	nl_worker() {
		local name=$1 ns=$2
		shift 2
		ip netns exec "$ns" "$SELFTESTS_DIR/nl_fuzz.py" churn "$@" --time "$secs" \
			--ops "$maxops" >"$out/$name" 2>&1 &
		PIDS+=($!)
	}

	netns_op() {
		local a b
		a=stress-a-$RANDOM$RANDOM b=stress-b-$RANDOM$RANDOM
		ip netns add "$a" && ip netns add "$b" || return 1
		ip link add x0 netns "$a" type veth peer name x1 netns "$b"
		ip -n "$a" link add x2 type dummy
		ip -n "$a" addr add 10.9.0.1/24 dev x0
		ip -n "$b" addr add 10.9.0.2/24 dev x1
		ip -n "$a" link set x0 up; ip -n "$a" link set x2 up; ip -n "$b" link set x1 up
		tc -n "$a" qdisc add dev x0 root decbit pool 1 pool_limit 100 input x2
		tc -n "$a" qdisc add dev x2 root decbit pool 1
		tc -n "$b" qdisc add dev x1 root hbh rate 10mbit period 1ms
		ip netns exec "$a" ping -c 50 -i 0.002 -w 2 -W 1 -q 10.9.0.2 &
		ip netns exec "$b" ping -c 50 -i 0.002 -w 2 -W 1 -q 10.9.0.1 &
		sleep 0.2
		# deleted with live pools, hbh timers and traffic
		ip netns del "$a"
		ip netns del "$b"
		wait
	}
	mapfile -t params < <(find /sys/module/{sch_hbh,tcp_decbit,tcp_bimodal,tcp_fixedwin}/parameters \
		-type f -perm -u+w)
	values=(0 1 2 16 50 100 512 896 1023 1024 2000 65536 1048576 4294967295 -1 Y N abc)
	saved=()
	for p in "${params[@]}"; do
		saved+=("$(cat "$p")")
	done
	# restore_params: the values from before (the tests after this one use them)
	restore_params() {
		local i
		for i in "${!params[@]}"; do
			echo "${saved[$i]}" 2>/dev/null >"${params[$i]}"
		done
	}
	exec 9<> <(:)	# read -t on it: a sleep without a process
	params_worker() {
		local n=0 p
		(
			while alive && [ $n -lt "$maxops" ]; do
				p=${params[RANDOM % ${#params[@]}]}
				# a module being reloaded has no such file for a moment
				echo "${values[RANDOM % ${#values[@]}]}" 2>/dev/null >"$p"
				n=$((n + 1))
				read -rt 0.01 -u 9
			done
			echo "ops=$n" >"$out/params"
		) &
		PIDS+=($!)
	}
	# the default congestion control, in the first namespace: elsewhere a
	# module just put back is restricted again (not in the allowed list), and
	# Debian's 6.1 kernel leaks a module reference for every refused write
	# there (tcp_set_default_congestion_control takes it before the EPERM
	# check; 6.12 checks first)
	cc_saved=$(sysctl -n net.ipv4.tcp_congestion_control)
	ccs=(decbit bimodal fixedwin cubic reno dctcp)
	ccdefault_worker() {
		local n=0
		(
			while alive && [ $n -lt "$maxops" ]; do
				echo "${ccs[RANDOM % ${#ccs[@]}]}" 2>/dev/null \
					>/proc/sys/net/ipv4/tcp_congestion_control
				n=$((n + 1))
				read -rt 0.05 -u 9
			done
			echo "$cc_saved" >/proc/sys/net/ipv4/tcp_congestion_control
			echo "ops=$n" >"$out/ccdefault"
		) &
		PIDS+=($!)
	}
	rmmod_op() {
		local m
		m=$(pick sch_hbh sch_decbit tcp_decbit tcp_bimodal tcp_fixedwin)
		if rmmod "$m" 2>/dev/null; then
			echo "$m" >>"$out/unloaded"
			insmod "$moddir/$m/$m.ko"
		fi
		echo "$m" >>"$out/rmmod_tries"
	}

	# traffic: TCP (switching congestion control), pings, 32 UDP flows;
	# reports (well-formed ones naming a live flow, and malformed ones) on r0
	ip netns exec "$S" "$SELFTESTS_DIR/stress_tcp.py" sink 5300 $((secs + 40)) &
	PIDS+=($!)
	busywait 10000 ip netns exec "$S" sh -c 'ss -ltn | grep -q ":5300 "'
	ip netns exec "$H" "$SELFTESTS_DIR/stress_tcp.py" switch 10.1.0.2 5300 4 $((secs + 20)) \
		decbit,bimodal,fixedwin,cubic,reno,dctcp >"$out/switch" 2>&1 &
	tcp_pid=$!
	for i in 1 2 3; do
		ip netns exec "$H" ping -i 0.01 -w $((secs + 20)) -q "10.$i.0.2" >/dev/null 2>&1 &
		PIDS+=($!)
	done
	ip netns exec "$H" "$SELFTESTS_DIR/hbh_frames.py" spoof 10.1.0.2 32 $((secs + 20)) >/dev/null 2>&1 &
	PIDS+=($!)
	for what in report fuzz; do
		ip netns exec "$R" timeout $((secs + 20)) "$SELFTESTS_DIR/hbh_frames.py" "$what" r0 100000000 \
			10.0.0.1 10.1.0.2 40000 5300 >/dev/null 2>&1 &
		PIDS+=($!)
	done

	fb0=$(hstat "$H" h0 fb_received)
	rej0=$(hstat "$H" h0 fb_rejected)
	workers=(decbit1 decbit2 hbh hchange netns params ccdefault rmmod)
	# the traffic above started seconds ago (processes start slowly in a TCG
	# guest) and runs for $secs + 20 s; the workers for $secs from now
	deadline=$((EPOCHSECONDS + secs))
	nl_worker decbit1 "$R" decbit r2 r3 d0 d1
	nl_worker decbit2 "$R" decbit r2 r3 d0 d1
	nl_worker hbh "$R" hbh,decbit r1 d2
	nl_worker hchange "$H" hbh --only change h0
	loop_worker netns netns_op
	params_worker
	ccdefault_worker
	loop_worker rmmod rmmod_op
	wait $tcp_pid
	for w in "${workers[@]}"; do
		busywait $(( (secs + 120) * 1000 )) test -s "$out/$w"
	done
	fb1=$(hstat "$H" h0 fb_received)
	rej1=$(hstat "$H" h0 fb_rejected)

	counts=""
	for w in "${workers[@]}"; do
		counts+="$w: $(cat "$out/$w" 2>/dev/null || echo none); "
	done
	log "in ${secs}s: $counts"
	log "rmmod tried: $(sort "$out/rmmod_tries" 2>/dev/null | uniq -c | xargs); unloaded and put back: $(sort "$out/unloaded" 2>/dev/null | uniq -c | xargs)"
	log "tcp: $(cat "$out/switch")"
	log "h0's hbh: reports taken $fb0 -> $fb1, refused $rej0 -> $rej1"
	ops() { sed -n 's/^ops=\([0-9]*\).*/\1/p' "$out/$1" 2>/dev/null; }
	enough() {
		local w
		[ "$(ops ccdefault)" -ge 20 ] 2>/dev/null || { log "ccdefault: $(ops ccdefault) ops"; return 1; }
		for w in decbit1 decbit2 hbh hchange params; do
			[ "$(ops $w)" -ge 100 ] 2>/dev/null || { log "$w: $(ops $w) ops"; return 1; }
		done
		# a namespace's round (15 processes) takes seconds in a TCG guest
		for w in netns rmmod; do
			[ "$(ops $w)" -ge 1 ] 2>/dev/null || { log "$w: $(ops $w) ops"; return 1; }
		done
	}
	check "every_worker_ran" enough
	check "reports_reached_h (taken $fb0 -> $fb1, refused $rej0 -> $rej1)" \
		eval '[[ $fb0$fb1$rej0$rej1 =~ ^[0-9]+$ ]] && [ $((fb1 - fb0)) -gt 0 ] && [ $((rej1 - rej0)) -gt 0 ]'

	# once more as the worker does, so that sch_hbh's rmmod was tried at
	# least once while H's qdisc held it (the worker picks at random)
	if rmmod sch_hbh 2>/dev/null; then
		echo sch_hbh >>"$out/unloaded"
		insmod "$moddir/sch_hbh/sch_hbh.ko"
	fi
	echo sch_hbh >>"$out/rmmod_tries"
	check "sch_hbh_never_unloaded_while_in_use (tried $(grep -c sch_hbh "$out/rmmod_tries") times)" \
		sh -c "grep -q sch_hbh $out/rmmod_tries && ! grep -q sch_hbh $out/unloaded 2>/dev/null"
	sw=$(sed -n 's/.*switches=\([0-9]*\).*/\1/p' "$out/switch")
	minb=$(sed -n 's/.*min_conn_bytes=\([0-9]*\).*/\1/p' "$out/switch")
	check "cc_switched_on_live_connections" test "${sw:-0}" -ge 100 -a "${minb:-0}" -gt 0

	# all modules in place again (a worker may have been stopped between its
	# rmmod and its insmod)
	for m in sch_decbit sch_hbh tcp_decbit tcp_bimodal tcp_fixedwin; do
		grep -q "^$m " /proc/modules || insmod "$moddir/$m/$m.ko"
	done

	restore_params
	check "params_restored (${#params[@]} parameters)" \
		eval '[ ${#params[@]} -gt 0 ] && [ "$(cat "${params[@]}" | xargs)" = "$(echo "${saved[@]}")" ]'

	# pools: none outlives the qdiscs (a pool id without pool_limit is refused)
	for d in r1 r2 r3 d0 d1 d2; do
		tc -n "$R" qdisc del dev "$d" root 2>/dev/null
	done
	nopool() {
		local p o
		for p in 1 2; do
			o=$(tc -n "$R" qdisc add dev d0 root decbit pool "$p" 2>&1)
			grep -q 'pool_limit is required' <<<"$o" || { log "pool $p: ${o:-accepted}"; return 1; }
		done
	}
	check "no_pool_left" nopool

	# users: none left once the qdiscs and sockets are gone
	t_users=$(date +%s)
	tc -n "$H" qdisc del dev h0 root
	ip netns exec "$H" sysctl -qw net.ipv4.tcp_congestion_control=cubic
	kill "${PIDS[@]}" 2>/dev/null
	wait 2>/dev/null
	PIDS=()
	busywait 10000 sh -c '! ip netns list | grep -q stress-'
	refcnts() {
		local m r s=0
		for m in sch_decbit sch_hbh tcp_decbit tcp_bimodal tcp_fixedwin; do
			r=$(cat "/sys/module/$m/refcnt" 2>/dev/null)
			echo -n "$m=${r:-none} "
			# (a module not loaded has no count: not "no users")
			[[ $r =~ ^[0-9]+$ ]] || r=1
			s=$((s + r))
		done
		# (an exit status is the sum modulo 256)
		return $((s > 0))
	}
	# A deleted namespace holds its qdiscs and its default congestion
	# control until the kernel's cleanup work has run, seconds later on a
	# loaded guest (make check-debug's kernel: sch_hbh=1 after 10 s; a
	# make check guest: tcp_decbit=1): wait for that, not for a leak
	busywait $((${STRESS_SETTLE:-60} * 1000)) refcnts >/dev/null
	log "module users afterwards: $(refcnts) ($(($(date +%s) - t_users)) s after the workers)"
	no_users() { refcnts >/dev/null; }
	check "no_module_users_left" no_users
	# a failure above: a slow cleanup or a leak?  Keep watching a while
	if ! no_users; then
		busywait 240000 refcnts >/dev/null
		log "module users $(($(date +%s) - t_users)) s after the workers: $(refcnts)"
	fi
}

# rmmod/insmod of sch_hbh while reports keep arriving on h0
reload_under_reports() {
	local inj cycles i fb sent
	ip netns exec "$R" sh -c "for i in \$(seq 60); do
		$SELFTESTS_DIR/hbh_frames.py report r0 50 10.0.0.1 10.1.0.2 40000 5300 >/dev/null 2>&1
		$SELFTESTS_DIR/hbh_frames.py fuzz r0 50 10.0.0.1 10.1.0.2 40000 5300 >/dev/null 2>&1
	done" &
	inj=$!
	cycles=0
	for i in 1 2 3; do
		tc -n "$H" qdisc add dev h0 root hbh rate 100mbit period 1ms
		sleep 0.5
		tc -n "$H" qdisc del dev h0 root
		rmmod sch_hbh && insmod "$moddir/sch_hbh/sch_hbh.ko" && cycles=$((cycles + 1))
	done
	check "sch_hbh_unloaded_under_reports ($cycles of 3)" test $cycles = 3
	# and it works: H's new hbh takes the reports of R's hbh for a UDP flow
	tc -n "$H" qdisc add dev h0 root hbh rate 100mbit period 1ms
	tc -n "$R" qdisc replace dev r1 root hbh rate 2mbit period 1ms
	ip netns exec "$H" "$SELFTESTS_DIR/hbh_frames.py" spoof 10.1.0.2 8 3 >/dev/null 2>&1
	fb=$(hstat "$H" h0 fb_received) sent=$(hstat "$R" r1 fb_sent)
	kill $inj 2>/dev/null
	wait $inj 2>/dev/null
	log "after reloading: r1's hbh sent $sent reports, h0's took $fb"
	check "reloaded_hbh_takes_reports ($sent sent, $fb taken)" eval '[[ $sent$fb =~ ^[0-9]+$ ]] && [ "$sent" -gt 0 ] && [ "$fb" -gt 0 ]'
	tc -n "$R" qdisc del dev r1 root
	tc -n "$H" qdisc del dev h0 root
	# the namespaces' deletion left nothing behind
	check "stress_namespaces_gone" sh -c '! ip netns list | grep -q stress-'
}

setup_prepare() {
	local i d ns
	setup_ns H R S || return 1
	veth_pair "$H" h0 "$R" r0 10.0.0.1 10.0.0.2 || return 1
	for i in 1 2 3; do
		veth_pair "$R" "r$i" "$S" "s$i" "10.$i.0.1" "10.$i.0.2" || return 1
	done
	for d in d0 d1 d2; do
		ip -n "$R" link add "$d" type dummy && ip -n "$R" link set "$d" up
	done
	ip -n "$H" route add default via 10.0.0.2
	ip -n "$S" route add 10.0.0.0/24 via 10.1.0.1
	modprobe -q tcp_dctcp 2>/dev/null
	allow_cc decbit
	allow_cc bimodal
	allow_cc fixedwin
	allow_cc dctcp
	for ns in "$H" "$S"; do
		ip netns exec "$ns" sysctl -qw net.ipv4.tcp_ecn=1
	done
}

setup_prepare || exit $ksft_fail
tests_run
