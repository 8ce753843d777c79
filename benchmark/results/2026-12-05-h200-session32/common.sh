# Sourced by runN.sh: unpacks the carried binaries (xz) once and sets the library path.
d=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
for f in "$d"/bin/*.xz "$d"/exp/*.xz; do [ -f "$f" ] && { [ -f "${f%.xz}" ] || xz -d -k -f "$f"; }; done
chmod +x "$d"/bin/* "$d"/exp/* 2>/dev/null
for b in bin exp; do [ -d "$d/$b" ] && cp "$d"/libbenchmark.so.1debian "$d/$b/" 2>/dev/null; done
export LD_LIBRARY_PATH=$d/bin
B=$d/bin
SECONDS=0
gpu_info() { nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,power.limit,temperature.gpu --format=csv > "$1/gpu.txt" 2>&1; }
