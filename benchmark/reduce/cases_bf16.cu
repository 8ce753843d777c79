// Row-op benchmark cases in bf16, and the MiniMax-H3 norms (hidden 5376) at 925 and 4096 tokens
// (FUSEKIT_H3_TOKENS=660,925,... times other token counts).
#include "row_cases.hpp"

namespace {
void register_bf16() {
  using namespace fusekit::bench;
  register_row_suites<fusekit::bf16_t>();
  const std::vector<Mode> all(std::begin(kAllModes), std::end(kAllModes));
  for (std::int64_t tokens : env_counts("FUSEKIT_H3_TOKENS", {925, 4096}, std::int64_t(1) << 20)) {
    register_row_op<RowOp::rms_norm, fusekit::bf16_t>("h3_norm", {tokens, 5376, false}, all);
    register_row_op<RowOp::rms_norm, fusekit::bf16_t>("h3_norm", {tokens, 5376, true}, all);
  }
}
}  // namespace
FUSEKIT_BENCH_REGISTER(register_bf16);
