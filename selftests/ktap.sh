# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Counting KTAP/TAP results honestly, shared by the runners: tools/check
# (the logs of tools/unit and of the guests), tools/unit (each unit
# program) and selftests/run_vm.sh (each selftest script).  Sourced;
# tools/unit's harness tests run every function here on synthetic input.
#
#   ktap_count <LOG            one line per counted result: KIND<tab>NAME,
#                              KIND pass, fail, skip or xfail
#   ktap_relay NAME RC EXTRA <OUT
#                              a finished program's output as a subtest
#                              whose own result line the caller prints
#
# The rules ktap_count applies, at every level of nesting:
# - a result with results nested under it counts through them (its checks
#   are the leaves); one that failed with none of them failing counts as a
#   failure of its own;
# - a result marked "# SKIP" is one skip, whatever passed under it (a
#   script that skipped as a whole is a skip, not its dmesg check's pass);
#   a failure under it still counts;
# - a plan ("1..N", first or last in its block) that the block's results
#   do not meet fails each result that never came ("NAME: result K of N
#   never came": a script that died in its second of five tests fails
#   four), and more results than planned is one failure;
# - results whose parent line never came (the output stopped inside a
#   subtest) count, and their block is a failure: "unfinished";
# - the top level must have a plan: a log without one is a failure.

ktap_count() {
	awk '
	function depth(s) { return match(s, /[^ ]/) - 1 }
	function bare(s) { sub(/ +#.*$/, "", s); return s }
	# a plan not met: each planned result that never came is a failure
	function short(pre, got, want,   out, i) {
		if (got > want)
			return "fail\t" pre "ran " got " results, planned " want "\n"
		out = ""
		for (i = got + 1; i <= want; i++)
			out = out "fail\t" pre "result " i " of " want " never came\n"
		return out
	}
	# close the block at depth d as the children of result "name" (empty:
	# no parent line came); returns the entries to add to depth d - 4
	function closeblk(d, name, ok, skipped,   out, i, n, e, k, kidfail, pre) {
		out = ""
		pre = (name == "") ? "" : bare(name) ": "
		kidfail = 0
		n = split(ents[d], e, "\n")
		for (i = 1; i <= n; i++) {
			if (e[i] == "")
				continue
			k = substr(e[i], 1, index(e[i], "\t") - 1)
			if (k == "fail")
				kidfail = 1
			if (skipped && k != "fail")
				continue
			out = out k "\t" pre substr(e[i], index(e[i], "\t") + 1) "\n"
		}
		if (plan[d] != "" && nres[d] != plan[d]) {
			out = out short(pre, nres[d], plan[d])
			kidfail = 1
		}
		if (name == "") {
			out = out "fail\t(unfinished output: " nres[d] " results without their parent)\n"
		} else if (skipped) {
			out = out "skip\t" name "\n"
		} else if (!ok && !kidfail) {
			out = out "fail\t" name "\n"
		}
		ents[d] = ""; nres[d] = 0; plan[d] = ""; isopen[d] = 0
		return out
	}
	{ sub(/\r$/, "") }
	/^ *1\.\.[0-9]+ *$/ {
		d = depth($0)
		p = $0; gsub(/[ ]/, "", p); sub(/^1\.\./, "", p)
		plan[d] = p + 0; isopen[d] = 1
		if (d > maxd) maxd = d
		next
	}
	/^ *(not )?ok( [0-9]+)?( |$)/ {
		d = depth($0)
		ok = ($0 !~ /^ *not ok/)
		name = $0; sub(/^ *(not )?ok( [0-9]+)?( - | |$)/, "", name)
		skipped = ok && (name ~ / # [Ss][Kk][Ii][Pp]/)
		xfail = ok && (name ~ / # XFAIL/)
		# deeper blocks than our children never got their parent
		for (x = maxd; x > d + 4; x -= 4)
			if (isopen[x])
				{ ents[x - 4] = ents[x - 4] closeblk(x, "", 0, 0); isopen[x - 4] = 1 }
		if (isopen[d + 4]) {
			ents[d] = ents[d] closeblk(d + 4, name, ok, skipped)
		} else {
			kind = !ok ? "fail" : skipped ? "skip" : xfail ? "xfail" : "pass"
			ents[d] = ents[d] kind "\t" name "\n"
		}
		nres[d]++; isopen[d] = 1
		if (d > maxd) maxd = d
		next
	}
	END {
		for (x = maxd; x > 0; x -= 4)
			if (isopen[x])
				{ ents[x - 4] = ents[x - 4] closeblk(x, "", 0, 0); isopen[x - 4] = 1 }
		if (plan[0] == "")
			ents[0] = ents[0] "fail\t(no plan: the output stopped before its end)\n"
		else if (nres[0] != plan[0])
			ents[0] = ents[0] short("", nres[0], plan[0])
		printf "%s", ents[0]
	}'
}

# ktap_top <OUT: what a finished program's TAP output holds at its top
# level: "PLAN RESULTS UNFINISHED" (PLAN "-" if it printed none, RESULTS
# the top-level results, UNFINISHED 1 if it stopped inside a subtest of
# its own: checks with no result line of theirs after them)
ktap_top() {
	awk '{ sub(/\r$/, "") }
	plan == "" && /^1\.\.[0-9]+ *$/ { plan = substr($0, 4) + 0 }
	/^(not )?ok( [0-9]+)?( |$)/ { top++; inner = 0 }
	/^ +(not )?ok( [0-9]+)?( |$)/ { inner = 1 }
	END { print (plan == "" ? "-" : plan), top + 0, inner + 0 }'
}

# ktap_relay EXTRA RC <OUT: a finished program's TAP output OUT indented
# as a subtest, its plan raised by EXTRA (the results the caller appends:
# its dmesg check, ...; with no plan printed, none is made up).  A program
# that stopped inside a subtest of its own has that subtest closed as a
# failure ("did not finish", with its exit status RC), so that its checks
# are not taken for those of the caller's next result; that result is
# one of the program's own (ktap_top counts it in RESULTS: add it there).
ktap_relay() {
	awk -v extra="$1" -v rc="$2" '
	{ sub(/\r$/, "") }
	!planned && /^1\.\.[0-9]+ *$/ {
		planned = 1
		print "    1.." substr($0, 4) + extra
		next
	}
	!planned && /^KTAP version/ { next }
	/^(not )?ok( [0-9]+)?( |$)/ { top++; inner = 0 }
	/^ +(not )?ok( [0-9]+)?( |$)/ { inner = 1 }
	/^ +# Subtest: / { name = $0; sub(/^ +# Subtest: /, "", name) }
	{ print "    " $0 }
	END {
		if (inner)
			printf "    not ok %d %s # did not finish (exit status %s)\n", top + 1,
				name == "" ? "(subtest)" : name, rc
	}'
}

# ktap_clean K WHAT FILE: result K "WHAT_clean", failed with FILE's
# report as diagnostics when FILE is not empty
ktap_clean() {
	if [ -s "$3" ]; then
		echo "    not ok $1 $2_clean"
		sed "s/^/    # $2: /" "$3"
	else
		echo "    ok $1 $2_clean"
	fi
}

# ktap_script N NAME OUT RC SECS TIMEOUT: run_vm.sh's result for selftest
# script NAME (the Nth), which printed OUT and exited RC after SECS
# (TIMEOUT: the limit it ran under; RC 124 or 137 is a timeout).  OUT.dmesg
# holds the kernel's report after it (empty: clean), OUT.leaks kmemleak's
# (only when there is kmemleak; empty: none), OUT.emu the emulator's
# warnings (printed, not counted).  The script's results are relayed as a
# subtest, followed by the runner's own checks: dmesg_clean,
# kmemleak_clean and, when the script did not end as it should,
# "completed".  A script that stops short of its plan fails each test it
# did not run (ktap_count); one that prints no plan fails "completed",
# except a script that skips as a whole (exit 4 before any plan or
# result): that is one skip.
ktap_script() {
	local n=$1 t=$2 out=$3 trc=$4 secs=$5 tmo=$6
	local plan ran unfinished failed whole_skip=0 completed='' extra k bad=0 leaks=0
	read -r plan ran unfinished < <(ktap_top <"$out")
	ran=$((ran + unfinished))
	failed=$(( $(grep -cE '^not ok ' "$out") + unfinished ))
	[ -s "$out.dmesg" ] && bad=1
	[ -s "$out.leaks" ] && leaks=1
	[ "$trc" = 4 ] && [ "$plan" = - ] && [ "$ran" = 0 ] && whole_skip=1
	if [ "$trc" = 124 ] || [ "$trc" = 137 ]; then
		completed="timeout after ${tmo}s"
	elif [ $whole_skip = 1 ]; then
		:	# one skip
	elif [ "$plan" = - ]; then
		completed="no plan, $ran results, exit status $trc"
	elif [ "$plan" != - ] && [ "$ran" != "$plan" ]; then
		:	# each test not run fails (ktap_count)
	elif [ "$trc" != 0 ] && [ "$failed" = 0 ]; then
		completed="exit status $trc"
	fi
	extra=$((1 + $([ -e "$out.leaks" ] && echo 1 || echo 0) + ${completed:+1}0 / 10))
	ktap_relay "$extra" "$trc" <"$out"
	[ "$plan" = - ] || [ "$ran" = "$plan" ] ||
		echo "    # ${t%%:*} stopped after $ran of $plan tests (exit status $trc)"
	k=$((ran + 1))
	ktap_clean "$k" dmesg "$out.dmesg"
	if [ -e "$out.leaks" ]; then
		k=$((k + 1))
		ktap_clean "$k" kmemleak "$out.leaks"
	fi
	[ ! -s "$out.emu" ] || sed 's/^/    # dmesg, emulator (not counted): /' "$out.emu"
	if [ -n "$completed" ]; then
		k=$((k + 1))
		echo "    not ok $k completed # $completed"
	fi
	[ "$plan" != - ] || echo "    1..$k"
	if [ $bad = 0 ] && [ $leaks = 0 ] && [ -z "$completed" ] && [ $whole_skip = 1 ]; then
		echo "ok $n $t # SKIP $(sed -n 's/^# SKIP:* *//p' "$out" | head -n 1)"
	elif [ $bad = 0 ] && [ $leaks = 0 ] && [ -z "$completed" ] && [ "$trc" = 0 ] &&
		[ "$ran" = "$plan" ] && [ "$failed" = 0 ]; then
		echo "ok $n $t # ${secs}s"
	else
		echo "not ok $n $t # ${secs}s"
	fi
}

# A runner's results, numbered (tools/unit): tap_res pass|fail NAME
# [REASON] prints one; tap_prog NAME CMD... runs a program that prints TAP
# (its output kept in TAP_LOGDIR/NAME.tap) as a subtest whose result fails
# if the program exits non-zero, prints no plan, stops short of it or
# fails a test.  TAP_N counts the results, TAP_RC is 1 once one failed.
# (TAP_RC is for the runner that sources this file: tools/unit's exit status)
# shellcheck disable=SC2034
TAP_RC=0
TAP_N=0
TAP_LOGDIR=${TMPDIR:-/tmp}
tap_res() {
	TAP_N=$((TAP_N + 1))
	if [ "$1" = pass ]; then
		echo "ok $TAP_N $2${3:+ # $3}"
	else
		echo "not ok $TAP_N $2${3:+ # $3}"
		# shellcheck disable=SC2034
		TAP_RC=1
	fi
}
tap_prog() {
	local name=$1 log=$TAP_LOGDIR/$1.tap prc plan ran unfinished why=''
	shift
	"$@" >"$log" 2>&1
	prc=$?
	read -r plan ran unfinished < <(ktap_top <"$log")
	ktap_relay 0 "$prc" <"$log"
	ran=$((ran + unfinished))
	if [ "$prc" != 0 ]; then
		why="exit status $prc"
	elif [ "$plan" = - ]; then
		why="no plan"
	elif [ "$ran" != "$plan" ]; then
		why="stopped short"
	elif grep -qE '^not ok' "$log"; then
		why="a test failed"
	fi
	[ "$plan" != - ] || echo "    1..$ran"
	if [ -z "$why" ]; then
		tap_res pass "$name"
	else
		tap_res fail "$name" "$why, ran $ran of $plan"
	fi
}
