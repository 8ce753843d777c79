set -e
rm -rf /tmp/tl2/include && cp -r /work/main/include /tmp/tl2/ && cd /tmp/tl2 && python3 - <<'EOF'
p='include/fusekit/gemm/kernel_sm90_swapped.hpp'
s=open(p).read()
s=s.replace('namespace fusekit::gemm {\n','''#ifdef FUSEKIT_TIMELINE
__device__ unsigned long long* fusekit_timeline = nullptr;  // [cta][2 consumers][64]
#define FK_TL(i) do { if (fusekit_timeline != nullptr && threadIdx.x % 128 == 0 && (i) < 64) { unsigned long long c_; asm volatile("mov.u64 %0, %%clock64;" : "=l"(c_)); fusekit_timeline[(blockIdx.x * 2 + cw) * 64 + (i)] = c_; } } while (0)
#else
#define FK_TL(i) do {} while (0)
#endif
namespace fusekit::gemm {
''',1)
def rep(a,b):
    global s
    assert a in s, a
    s=s.replace(a,b,1)
rep('''      for (std::int64_t t = blockIdx.x; t < tiles; t += gridDim.x) {
        std::int64_t m_tile, n_tile;
        order.coords(t, m_tile, n_tile);
        for (int seg = 0; seg < segments.count; ++seg) {''','''      int tl_j = 0;
      FK_TL(63);
      for (std::int64_t t = blockIdx.x; t < tiles; t += gridDim.x, ++tl_j) {
        std::int64_t m_tile, n_tile;
        order.coords(t, m_tile, n_tile);
        FK_TL(tl_j * 8);
        for (int seg = 0; seg < segments.count; ++seg) {''')
rep('''          MainLoop::fold(running, acc, seg == 0);
        }
        const int chunks = chunks_of(m_tile);''','''          FK_TL(tl_j * 8 + 1 + seg);
          MainLoop::fold(running, acc, seg == 0);
        }
        const int chunks = chunks_of(m_tile);''')
rep('''// the first chunk now, the others between the next tile's k-slices
          continue;''','''// the first chunk now, the others between the next tile's k-slices
          FK_TL(tl_j * 8 + 4);
          continue;''')
rep('''          Epi::apply(params, tile);  // ends with the joint barrier: the staging tile is free again
        }
      }
    } else {''','''          Epi::apply(params, tile);  // ends with the joint barrier: the staging tile is free again
          FK_TL(tl_j * 8 + 4 + chunk);
        }
      }
    } else {''')
s=s.replace('inline constexpr int kEpilogueWarpRegs = 96, kConsumerRegs = 208;','#ifndef EW_REGS\n#define EW_REGS 96\n#define C_REGS 208\n#endif\ninline constexpr int kEpilogueWarpRegs = EW_REGS, kConsumerRegs = C_REGS;')
open(p,'w').write(s)
EOF
