# Sourced by a device session's A/B scripts: `source tools/ab_common.sh CARRY_DIR` unpacks the carried
# binaries (CARRY_DIR/<label>/*.xz, once), puts CARRY_DIR (its libbenchmark.so.1debian) on the library
# path, sets d=CARRY_DIR, and defines
#   gpu_info DIR                                  the GPU, driver and clocks into DIR/gpu.txt
#   bench NAME LIMIT_S BINARY FILTER SAMPLES [ENV=V...]
#                                                 one benchmark run into $o/NAME.{json,txt}, under a time limit
#                                                 (MEASURE_CEILINGS=1 bench ...: the copy ceilings measured too)
#   alternate PREFIX LIMIT_S FILTER SAMPLES REPS LABEL...
#                                                 REPS rounds of bench PREFIX_LABEL_round for each LABEL's
#                                                 $d/LABEL/$BENCH (fusekit_bench_reduce), $o packed after each
#                                                 run (a killed call still returns its tar), then $o/table_PREFIX.txt
#   sweep PREFIX LIMIT_S BINARY FILTER SAMPLES REPS VAR VALUE...
#                                                 the same over one binary, each label a VALUE of the
#                                                 environment variable VAR (a knob's settings)
#   suite NAME LIMIT_S BINARY [ARGS...]           a GPU test binary's run (doctest ARGS) into $o/NAME.log
#   sanitize TOOL NAME BINARY FILTER [LIMIT_S]    compute-sanitizer TOOL (no guard bytes) on the test cases FILTER
#   profile NAME LIMIT_S BINARY FILTER NCU_ARG...  ncu (clocks left alone) on the 6th launch of a row kernel of one
#                                                 benchmark run into $o/NAME.txt (stdout) and $o/NAME.err
# Label the runs <prefix>_<label>_<rep> and compare them with tools/ab.py.
d=$(cd "${1:?usage: source tools/ab_common.sh CARRY_DIR}" && pwd)
for f in "$d"/*/*.xz; do [ -e "$f" ] && [ ! -f "${f%.xz}" ] && xz -d -k -f "$f" && chmod +x "${f%.xz}"; done
export LD_LIBRARY_PATH=$d${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
SECONDS=0
gpu_info() { nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,power.limit,temperature.gpu --format=csv > "$1/gpu.txt" 2>&1; }
bench() {
  local name=$1 limit=$2 bin=$3 filter=$4 samples=$5 ceilings=(--skip-ceilings); shift 5
  [[ -n ${MEASURE_CEILINGS:-} ]] && ceilings=()
  env "$@" timeout "$limit" "$bin" --require-gpu "${ceilings[@]}" --samples="$samples" --benchmark_filter="$filter" \
    --benchmark_out="$o/$name.json" --benchmark_out_format=json > "$o/$name.txt" 2>&1
  echo "$name rc=$? t=$SECONDS"
}
suite() {
  local name=$1 limit=$2; shift 2
  timeout "$limit" "$@" > "$o/$name.log" 2>&1
  echo "$name rc=$? $(grep 'test cases' "$o/$name.log") t=$SECONDS"
}
sanitize() {
  local tool=$1 name=$2 bin=$3 filter=$4 limit=${5:-120}
  FUSEKIT_TEST_GUARD_BYTES=0 timeout "$limit" compute-sanitizer --tool "$tool" --error-exitcode 9 "$bin" -tc="$filter" \
    > "$o/$name.log" 2>&1
  echo "$name rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$o/$name.log" | tail -1) $(grep 'test cases' "$o/$name.log") t=$SECONDS"
}
profile() {
  local name=$1 limit=$2 bin=$3 filter=$4; shift 4
  timeout "$limit" ncu --clock-control none -k regex:row_kernel --launch-skip 5 --launch-count 1 "$@" \
    "$bin" --require-gpu --skip-ceilings --samples=1 --benchmark_filter="$filter" > "$o/$name.txt" 2> "$o/$name.err"
  echo "$name rc=$? t=$SECONDS"
}
# rounds PREFIX REPS RUNNER LABEL...: REPS rounds of `RUNNER LABEL ROUND` for each LABEL, $o packed
# after each run, then the table. The runners below read their caller's locals (bash scopes
# dynamically).
rounds() {
  local prefix=$1 reps=$2 runner=$3 r label; shift 3
  for ((r = 1; r <= reps; ++r)); do
    for label in "$@"; do
      "$runner" "$label" "$r"
      (cd "$(dirname "$o")" && tar cJf "$(basename "$o").tar.xz" "$(basename "$o")")
    done
  done
  python3 tools/ab.py "$o" "$prefix" "$@" > "$o/table_$prefix.txt"
}
alternate() {
  local prefix=$1 limit=$2 filter=$3 samples=$4 reps=$5; shift 5
  run_binary() { bench "${prefix}_$1_$2" "$limit" "$d/$1/${BENCH:-fusekit_bench_reduce}" "$filter" "$samples"; }
  rounds "$prefix" "$reps" run_binary "$@"
}
sweep() {
  local prefix=$1 limit=$2 bin=$3 filter=$4 samples=$5 reps=$6 var=$7; shift 7
  run_setting() { bench "${prefix}_$1_$2" "$limit" "$bin" "$filter" "$samples" "$var=$1"; }
  rounds "$prefix" "$reps" run_setting "$@"
}
