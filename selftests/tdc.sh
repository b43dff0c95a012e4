#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The qdiscs' test cases in the kernel's tc-testing format (tdc/decbit.json,
# tdc/hbh.json: every parameter and its default round-trips through
# "tc qdisc show", invalid values are refused by the plugin (exit 1) or the
# kernel (exit 2) and leave nothing behind, change/replace/delete, dumps
# replay, statistics keys), run by the kernel's own tdc.py from Debian's
# linux-source-6.12 (unpacked by tools/setup into .deps/tdc-VERSION).
# Each tdc case is one result here.

. "$(dirname "$0")/lib.sh"

require_cmd tc ip python3
require_module sch_decbit sch_hbh

tdc=$(ls -d "$TOP_DIR"/.deps/tdc-*/ 2>/dev/null | sort -V | tail -n 1)
if [ -z "$tdc" ] || [ ! -x "$tdc/tdc.py" ]; then
	skip_script "the kernel's tdc.py is not unpacked (tools/setup does it)"
fi
files=("$SELFTESTS_DIR/tdc/decbit.json" "$SELFTESTS_DIR/tdc/hbh.json")
n=$(python3 -c 'import json, sys; print(sum(len(json.load(open(f))) for f in sys.argv[1:]))' "${files[@]}")
ktap_header "$n"
log "tdc.py from $tdc"

out=$(mktemp -d)
trap 'rm -rf "$out"; lib_exit' EXIT
# tdc works in its own directory (plugins, results file); the venv's
# python has pyroute2, so that tdc's nsPlugin makes each case's namespace
# and devices synchronously (without it, "ip -b" makes them in the
# background and a slow guest runs the case before its device exists)
# (TDC_TIMEOUT seconds in all: on make check-debug's kernel 56 cases took more than 600 s)
(cd "$tdc" && PYTHONPATH=$SELFTESTS_DIR/tdc timeout "${TDC_TIMEOUT:-600}" "$TOP_DIR/.venv/bin/python3" tdc.py \
	--outfile "$out/results.tap" \
	-f "${files[@]}") >"$out/tdc.log" 2>&1
rc=$?
[ -s "$out/results.tap" ] || { sed 's/^/# /' "$out/tdc.log" | tail -n 30; }
log "tdc.py exited $rc"

# tdc's TAP, one line per case (a failure's commands, message and output
# follow): results here, the details as diagnostics
seen=0
while IFS= read -r line; do
	if [[ $line =~ ^(not\ )?ok\ [0-9]+\ (.*)$ ]]; then
		desc=${BASH_REMATCH[2]}
		seen=$((seen + 1))
		if [ -n "${BASH_REMATCH[1]}" ]; then
			ktap_result fail "$desc"
		elif [[ $desc == *" # skipped"* ]]; then
			ktap_result skip "${desc%% # skipped*}" "${desc#* # skipped - }"
		else
			ktap_result pass "$desc"
		fi
	elif [ -n "$line" ]; then
		# (a command's output need not be indented: tc -j's JSON is not)
		echo "#  $line"
	fi
done <"$out/results.tap"
# a case tdc never reported (it aborted) fails
while [ $seen -lt "$n" ]; do
	seen=$((seen + 1))
	ktap_result fail "tdc case $seen not run (tdc.py exited $rc)"
done
ktap_finish
