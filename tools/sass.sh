#!/usr/bin/env bash
# tools/sass.sh: the SASS of sm_90a code on a build machine whose CUDA toolkit has no disassembler
# (the nvcc 13.0 here ships neither cuobjdump nor nvdisasm), so instruction-level questions can be
# answered without a GPU.
#
#   tools/sass.sh FILE.cubin                  SASS of every kernel in a cubin
#   tools/sass.sh FILE.cu [nvcc flags...]     compile FILE.cu for sm_90a with the repo's flags, then the same
#   tools/sass.sh --count FILE.{cu,cubin} ... instructions per kernel (static count, not executed)
#
# It uses Debian bookworm's nvdisasm (package nvidia-cuda-toolkit 11.8, non-free; fetched once into
# ~/.cache/fusekit/nvdisasm and checked against its SHA-256). CUDA 12 changed the cubin's ELF
# header (OS ABI, ABI version and e_flags), which 11.8's nvdisasm refuses; the instruction
# encoding for sm_90 did not change, so a copy of the cubin with the old header disassembles.
# Opcodes newer than 11.8 may print oddly; registers, loads, stores and branches read right.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cache=${FUSEKIT_NVDISASM_CACHE:-$HOME/.cache/fusekit/nvdisasm}
deb=nvidia-cuda-toolkit_11.8.89~11.8.0-5~deb12u1_amd64.deb
sha=d1156026e704fe0368b6295db06224ed00a727966fb13454f34e3f3102db0457
url=http://deb.debian.org/debian/pool/non-free/n/nvidia-cuda-toolkit/$deb

count=0
if [[ ${1:-} == --count ]]; then count=1; shift; fi
[[ $# -ge 1 ]] || { sed -n '2,8p' "$0"; exit 2; }
src=$1; shift

nvdisasm=$cache/usr/bin/nvdisasm
if [[ ! -x $nvdisasm ]]; then
  mkdir -p "$cache"
  echo "sass.sh: fetching $deb (84 MB, once) into $cache" >&2
  curl -sSfL -o "$cache/$deb" "$url"
  echo "$sha  $cache/$deb" | sha256sum -c --quiet -
  dpkg-deb -x "$cache/$deb" "$cache/x"
  mkdir -p "$cache/usr/bin" && mv "$cache/x/usr/bin/nvdisasm" "$nvdisasm" && rm -rf "${cache:?}/x" "${cache:?}/$deb"
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cubin=$src
if [[ $src == *.cu ]]; then
  cubin=$work/k.cubin
  nvcc -std=c++20 -O3 -I"$here/include" --generate-code=arch=compute_90a,code=[sm_90a] -cubin -o "$cubin" "$src" "$@"
fi

# The pre-CUDA-12 header: OS ABI 0x33, ABI version 7, e_flags as 11.8 writes them for sm_90.
python3 - "$cubin" "$work/old.cubin" <<'EOF'
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
if b[:4] != b'\x7fELF':
    sys.exit('sass.sh: not an ELF cubin: ' + sys.argv[1])
b[7], b[8] = 0x33, 7
struct.pack_into('<I', b, 0x30, 0x5a055a)
open(sys.argv[2], 'wb').write(b)
EOF

if ((count)); then
  "$nvdisasm" -c "$work/old.cubin" | awk '
    /^\.text\./ { name = substr($1, 7); sub(/:$/, "", name) }
    /^ +\/\*[0-9a-f]+\*\// { n[name]++ }
    END { for (k in n) printf "%7d %s\n", n[k], k }' | sort -k2 | c++filt
else
  "$nvdisasm" -c "$work/old.cubin"
fi
