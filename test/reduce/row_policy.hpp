// The library's normalization policy of each row op, for the tests and the benchmark.
#pragma once

#include "reduce/reference.hpp"

#include "fusekit/reduce.hpp"

#include <type_traits>

namespace fusekit::test {

template <RowOp kOp>
using RowPolicy = std::conditional_t<kOp == RowOp::softmax, reduce::SoftmaxPolicy,
                                     std::conditional_t<kOp == RowOp::layer_norm, reduce::LayerNormPolicy, reduce::RmsNormPolicy>>;

}  // namespace fusekit::test
