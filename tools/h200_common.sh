# Sourced by the tools/h200_*.sh drivers: `source tools/h200_common.sh CARRY_DIR STEP...` sets
# dir (the carried binaries, also put on LD_LIBRARY_PATH), out ($OUT), steps (" STEP ... ") and
# status=0, and records the GPU and its clocks in $out/gpu.txt.
set -uo pipefail
dir=$(cd "$1" && pwd)
shift
out=${OUT:?set OUT}
export LD_LIBRARY_PATH="$dir:${LD_LIBRARY_PATH:-}"
steps=" $* "
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > "$out/gpu.txt" 2>&1
status=0
