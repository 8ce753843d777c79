import os, sys
p = sys.argv[1] + '/fusekit/gemm/kernel_sm90_swapped.hpp'
s = open(p).read()
def rep(a, b):
    global s
    assert a in s, a
    s = s.replace(a, b, 1)
rep('namespace fusekit::gemm {\n', open(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'timeline_patch_s26.py')).read().split("rep('namespace fusekit::gemm {\\n', '''")[1].split("''')")[0])
rep('''      ptx::prefetch_tensor_map(&w_map);
      for (std::int64_t t = blockIdx.x; t < tiles; t += gridDim.x) {''', '''      ptx::prefetch_tensor_map(&w_map);
      FK_TL(3, 0); fk_gt(3, 60);
      int tl_p = 1;
      for (std::int64_t t = blockIdx.x; t < tiles; t += gridDim.x) {''')
rep('''        MainLoop::produce(s, pos, &a_map, &w_map, k_blocks, m_tile * MainLoop::BM, wr);
      }''', '''        MainLoop::produce(s, pos, &a_map, &w_map, k_blocks, m_tile * MainLoop::BM, wr);
        FK_TL(3, tl_p++);
      }''')
rep('''      std::uint32_t handoffs = 0;  // chunks taken from the consumers so far
''', '''      std::uint32_t handoffs = 0;  // chunks taken from the consumers so far
      int tl_e = 0;
      FK_TL(2, 63);
''')
rep('''          ptx::mbarrier_wait(&s.staged_full, handoffs & 1u);
          AccTile tile = chunk_tile(m_tile, chunk, wr, thread, kEpilogueWarpThreads, 4);
          Epi::apply(params, tile);''', '''          ptx::mbarrier_wait(&s.staged_full, handoffs & 1u);
          FK_TL(2, tl_e++);
          AccTile tile = chunk_tile(m_tile, chunk, wr, thread, kEpilogueWarpThreads, 4);
          Epi::apply(params, tile);
          FK_TL(2, tl_e++);''')
rep('''      using_dummy''' if False else '''      for (std::int64_t t = blockIdx.x; t < tiles; t += gridDim.x) {
        std::int64_t m_tile, n_tile;
        order.coords(t, m_tile, n_tile);
        for (int seg = 0; seg < segments.count; ++seg) {''', '''      const int slot = cw;
      int tl_j = 0;
      FK_TL(slot, 63); if (threadIdx.x % 128 == 0) fk_gt(slot, 62);
      for (std::int64_t t = blockIdx.x; t < tiles; t += gridDim.x, ++tl_j) {
        std::int64_t m_tile, n_tile;
        order.coords(t, m_tile, n_tile);
        FK_TL(slot, tl_j * 8);
        for (int seg = 0; seg < segments.count; ++seg) {''')
rep('''            while (pending < staged_end) hand_off(true);  // the fold below overwrites the running sum''',
    '''            FK_TL(slot, tl_j * 8 + 5);
            while (pending < staged_end) hand_off(true);  // the fold below overwrites the running sum
            FK_TL(slot, tl_j * 8 + 6);''')
rep('''          MainLoop::fold(running, acc, seg == 0);
        }''', '''          MainLoop::fold(running, acc, seg == 0);
          FK_TL(slot, tl_j * 8 + 1 + (seg < 3 ? seg : 2));
        }''')
rep('''        ptx::mbarrier_wait(&s.staged_empty, all_released());  // at once where nothing was handed over
        last_tile_epilogue(m_tile, n_tile, [&](int chunk) { MainLoop::stage(s, running, cw, chunk); });''', '''        ptx::mbarrier_wait(&s.staged_empty, all_released());  // at once where nothing was handed over
        FK_TL(slot, 48);
        last_tile_epilogue(m_tile, n_tile, [&](int chunk) { MainLoop::stage(s, running, cw, chunk); });
        FK_TL(slot, 49); if (threadIdx.x % 128 == 0) fk_gt(slot, 61);''')
open(p, 'w').write(s)
print('patched')
