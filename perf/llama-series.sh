#!/usr/bin/env bash
# One series over time on the real llama-server, interleaved so that every kind of run meets the same phases of the
# host: per cycle `ab` with head = base, the stored-baseline verdicts of perf/llama-verdicts/ (each judged run added
# as a session, as main's CI would), and `ab` with head adding `-ub 1`; every `--ub1-every`th cycle also the stored
# verdicts with `-ub 1` (not added as a session). Run it from a `git archive` snapshot:
#
#   [AB_ARGS="--requests 400"] bash perf/llama-series.sh <out dir> <cycles> [hogs] [ub1-every]
#
# AB_ARGS are added to both `ab` runs of a cycle (perf/llama-ab.ts's flags).
# Prints one line per run into <out dir>/series.log; each tool's own output in <out dir>/*.log.
set -u
out=$(realpath -m "$1"); cycles=$2; hogs=${3:-0}; every=${4:-4}; read -r -a ab_args <<<"${AB_ARGS:-}"
mkdir -p "$out"
node_run() { npm exec --silent -- node "$@"; }
steal() { awk '/^cpu /{print $9}' /proc/stat; }
say() { echo "$(date -u +%H:%M:%S) $*" | tee -a "$out/series.log"; }
hog_pids=()
for ((h = 0; h < hogs; h++)); do node -e 'for(;;){}' & hog_pids+=($!); done
trap 'kill "${hog_pids[@]}" 2>/dev/null' EXIT
say "series: $cycles cycles, hogs $hogs, ab ${ab_args[*]}, steal jiffies $(steal)"
if [ ! -d "$out/lv/baselines" ]; then
  node_run perf/llama-verdicts.ts --dir "$out/lv" --record >>"$out/verdicts.log" 2>&1
  say "recorded: $(grep -c written "$out/verdicts.log") lines written"
fi
for ((c = 1; c <= cycles; c++)); do
  node_run perf/llama-ab.ts --runs 1 "${ab_args[@]}" --save "$out/aa/$c" >"$out/aa-$c.log" 2>&1
  say "cycle $c ab A/A: $(grep -E '^run 1:' "$out/aa-$c.log" | head -1)"
  node_run perf/llama-verdicts.ts --dir "$out/lv" --runs 1 --add-session --label "cycle$c" >"$out/lv-$c.log" 2>&1
  say "cycle $c stored: $(grep -E '^\[cycle' "$out/lv-$c.log" | head -1 | cut -c1-600)"
  node_run perf/llama-ab.ts --runs 1 "${ab_args[@]}" --head-args="-ub 1" --save "$out/ub1/$c" >"$out/ub1-$c.log" 2>&1
  say "cycle $c ab -ub 1: $(grep -E '^run 1:' "$out/ub1-$c.log" | head -1)"
  if ((c % every == 0)); then
    node_run perf/llama-verdicts.ts --dir "$out/lv" --runs 1 --extra="-ub 1" --label "ub1-$c" >"$out/lvub1-$c.log" 2>&1
    say "cycle $c stored -ub 1: $(grep -E '^\[ub1' "$out/lvub1-$c.log" | head -1 | cut -c1-600)"
  fi
done
say "series done, steal jiffies $(steal)"
