# Instruments a copy of include/ (session 26 timeline): clock64 + globaltimer stamps per CTA.
# Layout: fusekit_timeline[cta][slot][64] u64; slot 0,1 = consumer warpgroups, 2 = epilogue warp 1, 3 = producer.
import sys
p = sys.argv[1] + '/fusekit/gemm/kernel_sm90_swapped.hpp'
s = open(p).read()
def rep(a, b):
    global s
    assert a in s, a
    s = s.replace(a, b, 1)
rep('namespace fusekit::gemm {\n', '''#ifdef FUSEKIT_TIMELINE
__device__ unsigned long long* fusekit_timeline = nullptr;
__device__ __forceinline__ void fk_tl(int slot, int i) {
  if (fusekit_timeline != nullptr && i < 64) {
    unsigned long long c_; asm volatile("mov.u64 %0, %%clock64;" : "=l"(c_));
    fusekit_timeline[(blockIdx.x * 4 + slot) * 64 + i] = c_;
  }
}
__device__ __forceinline__ void fk_gt(int slot, int i) {
  if (fusekit_timeline != nullptr) {
    unsigned long long g_; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g_));
    fusekit_timeline[(blockIdx.x * 4 + slot) * 64 + i] = g_;
  }
}
#define FK_TL(slot, i) do { if (threadIdx.x % 128 == 0 || threadIdx.x == 32) fk_tl(slot, i); } while (0)
#else
#define FK_TL(slot, i) do {} while (0)
#define fk_gt(a, b) do {} while (0)
#endif
namespace fusekit::gemm {
''')
# producer: entry, after each tile's loads issued
rep('''      ptx::prefetch_tensor_map(&w_map);
      for (std::int64_t t = blockIdx.x; t < tiles; t += gridDim.x) {''', '''      ptx::prefetch_tensor_map(&w_map);
      FK_TL(3, 0); fk_gt(3, 60);
      int tl_p = 1;
      for (std::int64_t t = blockIdx.x; t < tiles; t += gridDim.x) {''')
rep('''        MainLoop::produce(s, pos, &a_map, &w_map, k_blocks, m_tile * MainLoop::BM, wr);
      }''', '''        MainLoop::produce(s, pos, &a_map, &w_map, k_blocks, m_tile * MainLoop::BM, wr);
        FK_TL(3, tl_p++);
      }''')
# epilogue warps (thread 32 stamps): per chunk: waited, applied
rep('''      std::uint32_t handoffs = 0;  // chunks taken from the consumers so far
''', '''      std::uint32_t handoffs = 0;  // chunks taken from the consumers so far
      int tl_e = 0;
      FK_TL(2, 63);
''')
rep('''            ptx::mbarrier_wait(&s.staged_full, handoffs & 1u);
            AccTile tile = chunk_tile(m_tile, chunk, wr, thread, kEpilogueWarpThreads, 4);
            Epi::apply(params, tile);''', '''            ptx::mbarrier_wait(&s.staged_full, handoffs & 1u);
            FK_TL(2, tl_e++);
            AccTile tile = chunk_tile(m_tile, chunk, wr, thread, kEpilogueWarpThreads, 4);
            Epi::apply(params, tile);
            FK_TL(2, tl_e++);''')
rep('''            tile.sync();  // the chunk is staged
            Epi::apply(params, tile);''', '''            tile.sync();  // the chunk is staged
            FK_TL(2, 40 + 2 * chunk);
            Epi::apply(params, tile);
            FK_TL(2, 41 + 2 * chunk);''')
# consumers
rep('''      using Later = std::integral_constant<int, 1>;  // chunks after a tile's first
      for (std::int64_t t = blockIdx.x; t < tiles; t += gridDim.x) {
        std::int64_t m_tile, n_tile;
        order.coords(t, m_tile, n_tile);''', '''      using Later = std::integral_constant<int, 1>;  // chunks after a tile's first
      const int slot = cw;
      int tl_j = 0;
      FK_TL(slot, 63); if (threadIdx.x % 128 == 0) fk_gt(slot, 62);
      for (std::int64_t t = blockIdx.x; t < tiles; t += gridDim.x, ++tl_j) {
        std::int64_t m_tile, n_tile;
        order.coords(t, m_tile, n_tile);
        FK_TL(slot, tl_j * 8);''')
rep('''            while (pending < staged_end) hand_off(true, Later{});  // the fold below overwrites the running sum''',
    '''            FK_TL(slot, tl_j * 8 + 5);
            while (pending < staged_end) hand_off(true, Later{});  // the fold below overwrites the running sum
            FK_TL(slot, tl_j * 8 + 6);''')
rep('''          MainLoop::fold(running, acc, seg == 0);
        }''', '''          MainLoop::fold(running, acc, seg == 0);
          FK_TL(slot, tl_j * 8 + 1 + (seg < 3 ? seg : 2));
        }''')
rep('''          hand_off(true, std::integral_constant<int, 0>{});  // the first chunk now, the others between the next tile's k-slices''',
    '''          hand_off(true, std::integral_constant<int, 0>{});  // the first chunk now, the others between the next tile's k-slices
          FK_TL(slot, tl_j * 8 + 4);''')
rep('''        stage_and_finish(running, cw, m_tile, Epi::weight_rows(params, extent.n, MainLoop::kSubN, n_tile),
                         kEpilogueWarpThreads + threadIdx.x - 128, kJointThreads, 5);''', '''        FK_TL(slot, 48);
        stage_and_finish(running, cw, m_tile, Epi::weight_rows(params, extent.n, MainLoop::kSubN, n_tile),
                         kEpilogueWarpThreads + threadIdx.x - 128, kJointThreads, 5);
        FK_TL(slot, 49); if (threadIdx.x % 128 == 0) fk_gt(slot, 61);''')
open(p, 'w').write(s)
print('patched')
