# shellcheck shell=bash
# Runtime checks for CI: sourced by .ci/run, which calls `runtimes_ci` from the repository root
# after `npm ci` (bun and deno come from their npm packages, devDependencies).
#
# Per runtime (node, bun, deno):
#   1. a bounded test subset: core unit tests, the simulator integration test and test/runtimes/;
#   2. the example benches through Vitest in that runtime: record baselines (-u) in a folder of
#      their own, run again unchanged (must pass), run with the simulator 2x slower (must fail
#      with a regression);
#   3. deno only: `deno check` of the Deno adapter and the core, as a Deno project would type-check them.
# Prints one summary line per runtime and sets `runtimes_passed` / `runtimes_failed` (test counts
# plus one per bench/type check step). Returns non-zero when anything failed.

# Core unit tests that do not depend on Node's node:http server or on spawning Node scripts
# (client-connection, server-*, sim-cli, telemetry-environment use such fixtures; their subjects are
# covered per runtime by test/runtimes/). Node-only spawning tests in test/runtimes/ are left out:
# they run in the main suite.
RUNTIMES_TEST_SUBSET=(
  test/unit/client-failures.test.ts
  test/unit/client-models.test.ts
  test/unit/client-request-body.test.ts
  test/unit/client-sse-event.test.ts
  test/unit/client-stream-fixtures.test.ts
  test/unit/client-stream-split.test.ts
  test/unit/load-arrivals.test.ts
  test/unit/load-random.test.ts
  test/unit/load-run.test.ts
  test/unit/load-validate.test.ts
  test/unit/metrics-accumulator.test.ts
  test/unit/metrics-histogram.test.ts
  test/unit/baseline-store.test.ts
  test/unit/verdict.test.ts
  test/unit/verdict-statistics.test.ts
  test/unit/workload-dataset-file.test.ts
  test/unit/workload-datasets.test.ts
  test/unit/workload-synthetic.test.ts
  test/unit/slo.test.ts
  test/unit/telemetry-nvidia-smi-csv.test.ts
  test/unit/telemetry-gpu-stats.test.ts
  test/unit/sim-protocol.test.ts
  test/unit/sim-scheduler.test.ts
  test/unit/server-metrics-window.test.ts
  test/unit/server-metrics-fixtures.test.ts
  test/integration/run-simulator.test.ts
  test/integration/server-metrics-simulator.test.ts
  test/runtimes/client-transports.test.ts
  test/runtimes/runtime-json.test.ts
  test/runtimes/fingerprint-runtime.test.ts
  test/runtimes/standalone-bench.test.ts
  test/runtimes/timestamp-accuracy.test.ts
)
# Left out of the subset: run-simulator's "TTFT within a loopback round trip (+1 ms)" is a quiet
# machine's loopback figure (Bun's tail is a few ms longer, and a busy machine misses it on any
# runtime); the main suite runs it on Node, and test/runtimes/timestamp-accuracy.test.ts holds
# every runtime to its spread.
RUNTIMES_SKIP_TEST='measures TTFT within a loopback round trip'
RUNTIMES_BENCHES=(benches/chat.bench.ts benches/completions.bench.ts)
RUNTIMES_OUT=.ci/out/runtimes

# The command that runs Vitest's CLI under runtime $1.
_runtimes_vitest() {
  case "$1" in
    node) echo "npm exec -- node node_modules/vitest/vitest.mjs" ;;
    bun) echo "node_modules/.bin/bun --bun node_modules/vitest/vitest.mjs" ;;
    deno) echo "node_modules/.bin/deno run -A node_modules/vitest/vitest.mjs" ;;
  esac
}

_runtimes_version() {
  case "$1" in
    node) npm exec -- node --version 2>/dev/null | sed 's/^v//' ;;
    bun) node_modules/.bin/bun --version 2>/dev/null ;;
    deno) node_modules/.bin/deno --version 2>/dev/null | head -1 | awk '{print $2}' ;;
  esac
}

# Counts from a Vitest JSON report: "passed failed".
_runtimes_counts() {
  npm exec -s -- node -e '
const fs = require("node:fs")
try {
  const r = JSON.parse(fs.readFileSync(process.argv[1], "utf8"))
  // A file that failed to load has no failed test of its own: count it as one.
  const broken = r.testResults.filter((f) => f.status === "failed" && f.assertionResults.every((t) => t.status !== "failed")).length
  console.log(`${r.numPassedTests} ${r.numFailedTests + broken}`)
} catch { console.log("0 1") }' "$1"
}

# The failed tests of a Vitest JSON report ("file > test: first line of the failure"), appended to
# ${RUNTIMES_OUT}/reasons.txt under the heading $2.
_runtimes_failed_tests() {
  {
    echo "-- $2"
    npm exec -s -- node -e '
const fs = require("node:fs")
try {
  const r = JSON.parse(fs.readFileSync(process.argv[1], "utf8"))
  for (const f of r.testResults) {
    const failed = f.assertionResults.filter((a) => a.status === "failed")
    const name = f.name.replace(process.cwd() + "/", "")
    if (f.status === "failed" && failed.length === 0) console.log(`${name}: ${(f.message || "failed to run").split("\n")[0]}`)
    for (const a of failed) console.log(`${name} > ${a.fullName}: ${(a.failureMessages[0] || "").split("\n")[0].slice(0, 300)}`)
  }
} catch (e) { console.log(`no readable report ${process.argv[1]} (${e.message})`) }' "$1" | head -20
  } >>"${RUNTIMES_OUT}/reasons.txt"
}

# The files of a Vitest JSON report that failed, one per line, relative to the repository root.
_runtimes_failed_files() {
  npm exec -s -- node -e '
const fs = require("node:fs")
try {
  const r = JSON.parse(fs.readFileSync(process.argv[1], "utf8"))
  for (const f of r.testResults) if (f.status === "failed") console.log(f.name.replace(process.cwd() + "/", ""))
} catch {}' "$1"
}

# The lines of a bench log that say why it failed (verdicts, SLOs, errors), without colours,
# appended to ${RUNTIMES_OUT}/reasons.txt under a heading: printed again after the summary lines, so
# that the end of CI's output says why and not only that.
_runtimes_reasons() {
  {
    echo "-- $2: $1"
    sed 's/\x1b\[[0-9;]*m//g' "$1" \
      | grep -E 'FAIL|[✗×]|Error|error:|Regressed|No baseline|Not recorded|disturbed|not judged|recorded on|measured another|SLO fail|Unhandled|Timed out|timed out' \
      | grep -v '^ *$' | head -20
  } >>"${RUNTIMES_OUT}/reasons.txt"
}

# One runtime: tests, benches, summary line (last line of its output). Writes "passed failed" to
# ${RUNTIMES_OUT}/<runtime>-counts (it runs in a pipeline, so it cannot set the caller's variables).
_runtimes_one() {
  local rt="$1" vitest version passed failed rc bench_steps=() bench_failed=0
  vitest=$(_runtimes_vitest "$rt")
  version=$(_runtimes_version "$rt")
  if [ -z "$version" ]; then
    echo "runtime ${rt}: not installed (npm ci should have installed it from the npm package '${rt}')"
    echo "0 1" >"${RUNTIMES_OUT}/${rt}-counts"
    echo "runtime ${rt}: not installed"
    return 1
  fi
  echo "== runtime ${rt} ${version}: test subset"
  # shellcheck disable=SC2086
  # One file at a time: the timing tests compare client and server clocks in one process, and two
  # files sharing the 2 cores would measure each other.
  LLM_BENCH_EXPECT_RUNTIME="$rt" $vitest run "${RUNTIMES_TEST_SUBSET[@]}" -t "^(?!.*${RUNTIMES_SKIP_TEST})" \
    --no-file-parallelism --reporter=dot --reporter=json --outputFile.json="${RUNTIMES_OUT}/${rt}-tests.json"
  rc=$?
  read -r passed failed < <(_runtimes_counts "${RUNTIMES_OUT}/${rt}-tests.json")
  if [ "$rc" -ne 0 ] && [ "$failed" -eq 0 ]; then failed=1; fi
  local retried=""
  if [ "$failed" -ne 0 ]; then
    # Which tests failed, named at the end of CI's output; then their files once more, alone, as the
    # benches are: a timing test that a busy CI host tipped over passes then, a real failure fails
    # twice and counts. Either way the first failure is in reasons.txt.
    _runtimes_failed_tests "${RUNTIMES_OUT}/${rt}-tests.json" "${rt} test subset (first try)"
    local files=()
    mapfile -t files < <(_runtimes_failed_files "${RUNTIMES_OUT}/${rt}-tests.json")
    if [ "${#files[@]}" -gt 0 ]; then
      echo "== runtime ${rt}: the failed test files once more: ${files[*]}"
      # shellcheck disable=SC2086
      LLM_BENCH_EXPECT_RUNTIME="$rt" $vitest run "${files[@]}" -t "^(?!.*${RUNTIMES_SKIP_TEST})" \
        --no-file-parallelism --reporter=dot --reporter=json --outputFile.json="${RUNTIMES_OUT}/${rt}-tests-2.json"
      local passed2 failed2 first_failed="$failed"
      read -r passed2 failed2 < <(_runtimes_counts "${RUNTIMES_OUT}/${rt}-tests-2.json")
      if [ "$failed2" -eq 0 ]; then
        passed=$((passed + first_failed)); failed=0
        retried=" (${first_failed} failed on the first try and passed alone: named below)"
      else
        _runtimes_failed_tests "${RUNTIMES_OUT}/${rt}-tests-2.json" "${rt} test subset (second try)"
      fi
    fi
  fi

  echo "== runtime ${rt} ${version}: example benches"
  local baselines="$PWD/${RUNTIMES_OUT}/baselines/${rt}" log="${RUNTIMES_OUT}/${rt}-bench"
  rm -rf "$baselines"
  local config=scripts/runtimes/vitest.bench.config.ts
  # shellcheck disable=SC2086
  if CI= LLM_BENCH_BASELINES="$baselines" $vitest bench --run -u --config "$config" "${RUNTIMES_BENCHES[@]}" >"${log}-record.txt" 2>&1; then
    # A disturbed machine (a CI host's steal) records provisionally: said, and not a failure.
    if grep -q "baseline recorded provisionally" "${log}-record.txt"; then
      bench_steps+=("recorded provisionally (the machine was disturbed: named in the log)")
    else
      bench_steps+=("recorded")
    fi
  else
    # A recording that failed (a stalled worker start, an error) is tried once more, as the
    # unchanged run is; what was running is kept too.
    _runtimes_reasons "${log}-record.txt" "${rt} record (first try)"
    ps -eo pid,pcpu,etimes,comm --sort=-pcpu | head -8 >>"${RUNTIMES_OUT}/reasons.txt"
    tail -40 "${log}-record.txt"
    rm -rf "$baselines"
    # shellcheck disable=SC2086
    if CI= LLM_BENCH_BASELINES="$baselines" $vitest bench --run -u --config "$config" "${RUNTIMES_BENCHES[@]}" >"${log}-record-2.txt" 2>&1; then
      bench_steps+=("recorded on the second try (first try failed: see below)")
    else
      bench_steps+=("record FAILED twice"); bench_failed=$((bench_failed + 1)); tail -40 "${log}-record-2.txt"; _runtimes_reasons "${log}-record-2.txt" "${rt} record (second try)"
    fi
  fi
  # shellcheck disable=SC2086
  if CI=true LLM_BENCH_BASELINES="$baselines" $vitest bench --run --config "$config" "${RUNTIMES_BENCHES[@]}" >"${log}-unchanged.txt" 2>&1; then
    if grep -q "no check passes against it" "${log}-unchanged.txt"; then
      bench_steps+=("unchanged not failed (inconclusive against the provisional baseline)")
    else
      bench_steps+=("unchanged passes")
    fi
  else
    # Once more before calling it a failure: a machine hiccup (a stalled worker start, a busy CI
    # host) is told apart from a verdict that fails on unchanged code, which fails twice. Either
    # way the first failure's reason is printed at the end of the runtime block.
    _runtimes_reasons "${log}-unchanged.txt" "${rt} unchanged (first try)"
    tail -40 "${log}-unchanged.txt"
    # shellcheck disable=SC2086
    if CI=true LLM_BENCH_BASELINES="$baselines" $vitest bench --run --config "$config" "${RUNTIMES_BENCHES[@]}" >"${log}-unchanged-2.txt" 2>&1; then
      bench_steps+=("unchanged passes on the second try (first try failed: see below)")
    else
      bench_steps+=("unchanged FAILED twice"); bench_failed=$((bench_failed + 1))
      _runtimes_reasons "${log}-unchanged-2.txt" "${rt} unchanged (second try)"
      tail -40 "${log}-unchanged-2.txt"
    fi
  fi
  # shellcheck disable=SC2086
  if CI=true LLM_BENCH_SIM_SPEED=2 LLM_BENCH_BASELINES="$baselines" $vitest bench --run --config "$config" "${RUNTIMES_BENCHES[@]}" >"${log}-slowed.txt" 2>&1; then
    # The verdict turns failures into "inconclusive" when the load generator was starved of CPU,
    # or the machine was disturbed (other processes, steal, a slower machine than at recording).
    if grep -q "could not keep up\|The machine was disturbed\|of the CPU (steal), which can move" "${log}-slowed.txt"; then
      bench_steps+=("2x slower inconclusive: the client could not keep up or the machine was disturbed (named in the log)")
    else
      bench_steps+=("2x slower NOT caught"); bench_failed=$((bench_failed + 1)); tail -40 "${log}-slowed.txt"; _runtimes_reasons "${log}-slowed.txt" "${rt} 2x slower"
    fi
  elif grep -q "Regressed against the baseline" "${log}-slowed.txt"; then
    bench_steps+=("2x slower fails the run")
  else
    bench_steps+=("2x slower failed without a regression verdict"); bench_failed=$((bench_failed + 1)); tail -40 "${log}-slowed.txt"; _runtimes_reasons "${log}-slowed.txt" "${rt} 2x slower"
  fi
  local bench_passed=$((3 - bench_failed))

  local check=""
  if [ "$rt" = deno ]; then
    # From an entry outside the repository: inside it Deno would apply the Node-only tsconfig.json
    # (lib ES2023, no Deno types), which is not what a Deno project checks the package with.
    local entry
    entry="$(mktemp -d)/check.ts"
    printf "import '%s/src/deno/index.ts'\nimport '%s/src/core/index.ts'\n" "$PWD" "$PWD" >"$entry"
    if node_modules/.bin/deno check "$entry" >"${RUNTIMES_OUT}/deno-check.txt" 2>&1; then
      check=", deno check ok"; bench_passed=$((bench_passed + 1))
    else
      check=", deno check FAILED"; bench_failed=$((bench_failed + 1)); tail -30 "${RUNTIMES_OUT}/deno-check.txt"
    fi
  fi

  echo "$((passed + bench_passed)) $((failed + bench_failed))" >"${RUNTIMES_OUT}/${rt}-counts"
  local joined
  joined=$(IFS=','; echo "${bench_steps[*]}" | sed 's/,/, /g')
  echo "runtime ${rt} ${version}: tests ${passed} passed, ${failed} failed${retried}; benches: ${joined}${check}"
  [ "$failed" -eq 0 ] && [ "$bench_failed" -eq 0 ]
}

# Entry point: every runtime, then the summary lines again together.
runtimes_ci() {
  runtimes_passed=0
  runtimes_failed=0
  mkdir -p "$RUNTIMES_OUT"
  rm -f "${RUNTIMES_OUT}/reasons.txt"
  local rt status=0 lines=() p f
  for rt in node bun deno; do
    _runtimes_one "$rt" 2>&1 | tee "${RUNTIMES_OUT}/${rt}-summary.txt"
    [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
    lines+=("$(tail -1 "${RUNTIMES_OUT}/${rt}-summary.txt")")
    read -r p f <"${RUNTIMES_OUT}/${rt}-counts" || { p=0; f=1; }
    runtimes_passed=$((runtimes_passed + p))
    runtimes_failed=$((runtimes_failed + f))
  done
  echo "== runtimes"
  printf '%s\n' "${lines[@]}"
  if [ -s "${RUNTIMES_OUT}/reasons.txt" ]; then
    echo "== why bench steps failed"
    cat "${RUNTIMES_OUT}/reasons.txt"
  fi
  return $status
}
