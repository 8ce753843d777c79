#!/usr/bin/env bash
# Checkpoint adapter benchmark on the device host (a dedicated machine, unlike the shared build VM).
exec > >(tee $OUT/ckpt.log) 2>&1
date -u; nproc; uptime; id; uname -r
for d in "$PWD" /tmp /var/tmp /dev/shm; do echo "$d: $(df -PT "$d" | tail -1)"; done
lsblk -o NAME,TYPE,SIZE,ROTA,MODEL 2>/dev/null | head -20
cat /proc/meminfo | head -3
# A disk-backed directory: the first that is not tmpfs/ramfs.
dir=""
for d in "$PWD" /var/tmp /tmp; do
  t=$(df -PT "$d" | tail -1 | awk '{print $2}')
  if [ "$t" != tmpfs ] && [ "$t" != ramfs ]; then dir=$d/fusekit-ckpt-bench; break; fi
done
echo "bench dir: $dir ($(df -PT ${dir%/*} | tail -1 | awk '{print $2, $5}') KB free)"
timeout ${1:-520} carry/ckpt/fusekit_bench_checkpoint --dir "$dir" --blocks 3 --rounds ${2:-5} --cache cold
echo "rc=$?"; rm -rf "$dir"
