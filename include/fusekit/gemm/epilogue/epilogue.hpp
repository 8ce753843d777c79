// fusekit/gemm/epilogue/epilogue.hpp: an epilogue is a list of nodes run in order on the
// staged accumulator tile, e.g. Epilogue<Bias<T>, Activate, StoreRows<T>>.
//
// A node is a struct with
//   struct Params { ... };                                   // what it reads from global memory
//   static __device__ void apply(const Params&, AccTile&);   // every thread of the tile's group calls it
// and, only if it decides which W rows a CTA multiplies (the GLU node does), also
//   static std::int64_t n_tiles(const Params&, std::int64_t n, int tile_n);
//   static __device__ WeightRows weight_rows(const Params&, std::int64_t n, int tile_n, std::int64_t t);
// and, for the fragment form below, `visit` (a node that treats each accumulator alone, by W row:
// Bias) or `kPairsHalves` and `pair` (the GLU).
// A node that reads global memory by the tile's rows and columns (AddResidual) may also have
//   static __device__ void prefetch(const Params&, std::int64_t row0, int rows, const WeightRows&,
//                                   int thread, int threads);
// which warms L2 with what its apply will read, kept there past the operands streaming through: a
// kernel whose idle warps know a tile ahead of its epilogue calls it (a hint; the results do not
// depend on it), and after that tile's apply calls `release` (the same arguments), which hands
// those lines back to normal eviction.
// The last node stores the tile. Adding a node is one new header; no kernel changes.
#pragma once

#include "fusekit/gemm/epilogue/tile.hpp"
#include "fusekit/gemm/operands.hpp"

#include <cuda/std/tuple>
#include <cuda/std/utility>

#include <concepts>
#include <cstdint>

namespace fusekit::gemm {

template <class Node>
concept ChoosesColumns = requires(const typename Node::Params& p, std::int64_t n, int tile_n, std::int64_t t) {
  Node::n_tiles(p, n, tile_n);
  Node::weight_rows(p, n, tile_n, t);
};

// The fragment form's nodes: one that pairs the tile's two W halves element by element (Glu:
// `pair(p, first_half, second_half)`), and ones that treat an accumulator alone given its W row
// (Bias: `visit(p, v, w_row)`).
template <class Node>
concept PairsHalves = requires(const typename Node::Params& p, float v, std::int64_t n, const WeightRows& wr) {
  requires Node::kPairsHalves;
  { Node::pair(p, v, v) } -> std::convertible_to<float>;
  Node::output_cols(n);      // the paired output's columns
  Node::output_col0(p, wr);  // and an N-tile's first
};
template <class Node>
concept PrefetchesRows = requires(const typename Node::Params& p, std::int64_t row0, int i, const WeightRows& wr) {
  Node::prefetch(p, row0, i, wr, i, i);
  Node::release(p, row0, i, wr, i, i);
};
// One that names either hook: the kernels would skip a node with only one, or other arguments.
template <class Node>
concept NamesPrefetch = requires { &Node::prefetch; } || requires { &Node::release; };
template <class Node>
concept VisitsElements = requires(const typename Node::Params& p, float v, std::int64_t w_row) {
  { Node::visit(p, v, w_row) } -> std::convertible_to<float>;
};
// A node whose result at a tile column depends only on that column's accumulators and its W row
// (Bias, Activate, AddResidual, StoreRows: `kColumnLocal`; not Glu, which pairs halves, nor the
// head nodes, which reduce over a head): an epilogue of such nodes may run on part of an N-tile
// (kernel_sm90_half_swapped.hpp's 64-column CTAs).
template <class Node>
concept ColumnLocal = requires { requires Node::kColumnLocal; };
// A last node that only writes the tile's rows, rounded to 16 bits, at out[row * ld + col], and
// says so (StoreRows<bf16_t or fp16_t>: kCopiesRows), so a copy engine's box may write them instead.
// (A `visit` likewise promises to do to one element what the node's apply does to each.)
template <class Node>
concept StoresRows16 = requires(const typename Node::Params& p) {
  requires Node::kCopiesRows;
  typename Node::Out;
  requires sizeof(typename Node::Out) == 2;
  { p.out } -> std::convertible_to<const typename Node::Out*>;
  { p.ld } -> std::convertible_to<std::int64_t>;
};

template <class... Nodes> struct Epilogue {
  static_assert(sizeof...(Nodes) > 0, "an epilogue needs at least a store node");
  static_assert((int(ChoosesColumns<Nodes>) + ... + 0) <= 1, "at most one node may choose the W rows");
  static_assert(((!NamesPrefetch<Nodes> || PrefetchesRows<Nodes>) && ...),
                "a node's L2 hooks come in pairs, prefetch and release, with the arguments above");

 private:
  template <std::size_t I> using Node = cuda::std::tuple_element_t<I, cuda::std::tuple<Nodes...>>;

  // Position of the node that chooses the W rows, or sizeof...(Nodes) when none does.
  static constexpr std::size_t kColumnNode = [] {
    constexpr bool chooses[] = {ChoosesColumns<Nodes>...};
    for (std::size_t i = 0; i < sizeof...(Nodes); ++i)
      if (chooses[i]) return i;
    return sizeof...(Nodes);
  }();

 public:
  struct Params {
    cuda::std::tuple<typename Nodes::Params...> nodes;
    Params() = default;
    explicit Params(typename Nodes::Params... p) : nodes(p...) {}
  };

  static std::int64_t n_tiles(const Params& p, std::int64_t n, int tile_n) {
    if constexpr (kColumnNode < sizeof...(Nodes))
      return Node<kColumnNode>::n_tiles(cuda::std::get<kColumnNode>(p.nodes), n, tile_n);
    else
      return ContiguousColumns::n_tiles(n, tile_n);
  }

  __device__ static WeightRows weight_rows(const Params& p, std::int64_t n, int tile_n, std::int64_t t) {
    if constexpr (kColumnNode < sizeof...(Nodes))
      return Node<kColumnNode>::weight_rows(cuda::std::get<kColumnNode>(p.nodes), n, tile_n, t);
    else
      return ContiguousColumns::weight_rows(n, tile_n, t);
  }

  // Runs every node; a barrier between nodes, since a node may read what another thread wrote.
  // It ends with a barrier, which the main loops count on: after it the staging tile is free.
  static_assert(sizeof...(Nodes) > 0, "an epilogue has at least one node (a store)");
  __device__ static void apply(const Params& p, AccTile& tile) {
    apply_all(p, tile, cuda::std::index_sequence_for<Nodes...>{});
  }

  // Whether any node warms L2 ahead of its apply.
  static constexpr bool kPrefetches = (PrefetchesRows<Nodes> || ...);

  // L2 warmed ahead for the tile of token rows [row0, row0 + rows) and W rows `wr`, by
  // `threads` threads (this one `thread`): each node that reads global memory by them.
  __device__ static void prefetch(const Params& p, std::int64_t row0, int rows, const WeightRows& wr, int thread,
                                  int threads) {
    each_l2_hook<true>(p, row0, rows, wr, thread, threads, cuda::std::index_sequence_for<Nodes...>{});
  }
  // Those lines back to normal eviction, once apply has read them.
  __device__ static void release(const Params& p, std::int64_t row0, int rows, const WeightRows& wr, int thread,
                                 int threads) {
    each_l2_hook<false>(p, row0, rows, wr, thread, threads, cuda::std::index_sequence_for<Nodes...>{});
  }

  // Every node column-local (ColumnLocal): the W rows are contiguous and a CTA may hold any run of an N-tile's columns.
  static constexpr bool kColumnLocal = (ColumnLocal<Nodes> && ...);
  static_assert(!kColumnLocal || kColumnNode == sizeof...(Nodes), "a column-local epilogue keeps W's rows contiguous");

  // The fragment form (kernel_sm90_swapped.hpp's 232-token tiles): visitors, then the node that
  // pairs the W halves, then a 16-bit row store. A kernel whose two consumers hold the two halves
  // then pairs them through shared memory in registers and hands the rounded tile to the copy
  // engine, instead of staging fp32 chunks for the nodes. The same operations in the same order
  // as apply, so the same bits.
  static constexpr bool kPairsInFragment = [] {
    constexpr bool pairs[] = {PairsHalves<Nodes>...}, visits[] = {VisitsElements<Nodes>...};
    constexpr std::size_t n = sizeof...(Nodes);
    bool form = n >= 2 && kColumnNode == n - 2 && pairs[kColumnNode] && StoresRows16<Node<n - 1>>;
    for (std::size_t i = 0; i + 2 < n; ++i) form = form && visits[i];
    return form;
  }();
  // The visitors on an accumulator of W row w_row.
  __device__ static float visit(const Params& p, float v, std::int64_t w_row) {
    return visit_all(p, v, w_row, cuda::std::make_index_sequence<kPairsInFragment ? kColumnNode : 0>{});
  }
  // The output from the visited accumulators of the two halves.
  __device__ static float pair(const Params& p, float first, float second) {
    return Node<kColumnNode>::pair(cuda::std::get<kColumnNode>(p.nodes), first, second);
  }
  // Where the copy engine writes: the store's parameters, the output's columns (of a weight of n
  // rows) and the first output column of an N-tile's rows.
  using Store = Node<sizeof...(Nodes) - 1>;
  static const typename Store::Params& store_params(const Params& p) { return cuda::std::get<sizeof...(Nodes) - 1>(p.nodes); }
  static std::int64_t paired_cols(std::int64_t n) { return Node<kColumnNode>::output_cols(n); }
  __device__ static std::int64_t paired_col0(const Params& p, const WeightRows& wr) {
    return Node<kColumnNode>::output_col0(cuda::std::get<kColumnNode>(p.nodes), wr);
  }

 private:
  template <std::size_t... I>
  __device__ static void apply_all(const Params& p, AccTile& tile, cuda::std::index_sequence<I...>) {
    ((Nodes::apply(cuda::std::get<I>(p.nodes), tile), tile.sync()), ...);
  }
  // Each node's prefetch (kWarm) or release.
  template <bool kWarm, std::size_t... I>
  __device__ static void each_l2_hook(const Params& p, std::int64_t row0, int rows, const WeightRows& wr, int thread,
                                 int threads, cuda::std::index_sequence<I...>) {
    auto one = [&](auto node, const auto& node_params) {
      using N = decltype(node);
      if constexpr (PrefetchesRows<N>) {
        if constexpr (kWarm)
          N::prefetch(node_params, row0, rows, wr, thread, threads);
        else
          N::release(node_params, row0, rows, wr, thread, threads);
      }
    };
    (one(Node<I>{}, cuda::std::get<I>(p.nodes)), ...);
  }
  template <std::size_t... I>
  __device__ static float visit_all(const Params& p, float v, std::int64_t w_row, cuda::std::index_sequence<I...>) {
    ((v = Node<I>::visit(cuda::std::get<I>(p.nodes), v, w_row)), ...);
    return v;
  }

};

}  // namespace fusekit::gemm
