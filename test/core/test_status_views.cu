// CPU tests of the shared argument checks every entry point relies on.
#include <doctest/doctest.h>

#include "fusekit/core/views.hpp"

using namespace fusekit;

TEST_CASE("check_rows: shapes, null pointers, element alignment") {
  alignas(16) static float buf[64];
  CHECK(detail::check_rows("op", "x", Rows{buf, DType::f32, 4, 8, 8}).ok());
  CHECK(detail::check_rows("op", "x", Rows{nullptr, DType::f32, 0, 8, 0}).ok());  // empty: null allowed
  CHECK(detail::check_rows("op", "x", Rows{nullptr, DType::f32, 4, 8, 0}).code() == Errc::null_pointer);
  CHECK(detail::check_rows("op", "x", Rows{buf, DType::f32, -1, 8, 0}).code() == Errc::bad_shape);
  CHECK(detail::check_rows("op", "x", Rows{buf, DType::f32, 4, 8, 7}).code() == Errc::bad_shape);
  auto* odd = reinterpret_cast<char*>(buf) + 2;
  CHECK(detail::check_rows("op", "x", Rows{odd, DType::f32, 1, 3, 0}).code() == Errc::misaligned);
  CHECK(detail::check_rows("op", "x", Rows{odd, DType::bf16, 1, 3, 0}).ok());
  Status s = detail::check_rows("rms_norm", "in", Rows{buf, DType::f32, 4, 8, 7});
  CHECK(s.to_string() == "bad_shape: rms_norm: in.stride (7) < cols (8)");
}

TEST_CASE("check_alias: in place is fine, partial overlap is not") {
  alignas(16) static float buf[256];
  Rows a{buf, DType::f32, 4, 8, 16};
  CHECK(detail::check_alias("op", "a", a, "b", a).ok());
  Rows shifted{buf + 1, DType::f32, 4, 8, 16};
  CHECK(detail::check_alias("op", "a", a, "b", shifted).code() == Errc::aliasing);
  Rows other_dtype{buf, DType::bf16, 4, 8, 16};
  CHECK(detail::check_alias("op", "a", a, "b", other_dtype).code() == Errc::aliasing);
  Rows disjoint{buf + 128, DType::f32, 4, 8, 16};
  CHECK(detail::check_alias("op", "a", a, "b", disjoint).ok());
  Rows interleaved{buf + 8, DType::f32, 4, 8, 16};  // rows fall in the other's gaps, but spans overlap
  CHECK(detail::check_alias("op", "a", a, "b", interleaved).code() == Errc::aliasing);
}

TEST_CASE("dtype conversions round to nearest even") {
  CHECK(to_float(from_float<bf16_t>(1.0f + 1.0f / 256)) == 1.0f);  // tie goes to even
  CHECK(to_float(from_float<bf16_t>(1.0f + 3.0f / 256)) == 1.0f + 4.0f / 256);
  CHECK(to_float(from_float<fp16_t>(65504.0f)) == 65504.0f);
  CHECK(dtype_size(DType::bf16) == 2);
  CHECK(std::string(dtype_name(DType::f16)) == "f16");
}
