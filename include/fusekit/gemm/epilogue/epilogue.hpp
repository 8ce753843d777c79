// fusekit/gemm/epilogue/epilogue.hpp: an epilogue is a list of nodes run in order on the
// staged accumulator tile, e.g. Epilogue<Bias<T>, Activate, StoreRows<T>>.
//
// A node is a struct with
//   struct Params { ... };                                   // what it reads from global memory
//   static __device__ void apply(const Params&, AccTile&);   // every thread of the tile's group calls it
// and, only if it decides which W rows a CTA multiplies (the GLU node does), also
//   static std::int64_t n_tiles(const Params&, std::int64_t n, int tile_n);
//   static __device__ WeightRows weight_rows(const Params&, std::int64_t n, int tile_n, std::int64_t t);
// The last node stores the tile. Adding a node is one new header; no kernel changes.
#pragma once

#include "fusekit/gemm/epilogue/tile.hpp"
#include "fusekit/gemm/operands.hpp"

#include <cuda/std/tuple>
#include <cuda/std/utility>

#include <cstdint>

namespace fusekit::gemm {

template <class Node>
concept ChoosesColumns = requires(const typename Node::Params& p, std::int64_t n, int tile_n, std::int64_t t) {
  Node::n_tiles(p, n, tile_n);
  Node::weight_rows(p, n, tile_n, t);
};

template <class... Nodes> struct Epilogue {
  static_assert(sizeof...(Nodes) > 0, "an epilogue needs at least a store node");
  static_assert((int(ChoosesColumns<Nodes>) + ... + 0) <= 1, "at most one node may choose the W rows");

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

 private:
  template <std::size_t... I>
  __device__ static void apply_all(const Params& p, AccTile& tile, cuda::std::index_sequence<I...>) {
    ((Nodes::apply(cuda::std::get<I>(p.nodes), tile), tile.sync()), ...);
  }

};

}  // namespace fusekit::gemm
