// fusekit/reduce.hpp: softmax, RMSNorm and LayerNorm over the last dimension.
//
//   fusekit::Status s = fusekit::rms_norm(in, out, {.weight = w, .eps = 1e-5f}, stream);
//
// Input and output dtypes (f32, f16, bf16) are chosen independently at run time. Each call
// instantiates the kernels of every dtype pair it may meet; a translation unit that knows its
// dtypes can name them and compile only those, e.g. fusekit::rms_norm<fusekit::DTypes<fusekit::bf16_t>>.
//
// Any N from 1 to reduce::max_cols(dtype) (f32: 294908, f16/bf16: 589816), up to 2^27 - 1 rows
// (0 is a no-op), any row stride >= N, pointers aligned to their element size (16-byte alignment
// is not required; it is faster), in place allowed (out == in). Accumulation is fp32. A row's result
// depends only on its values, N, the dtypes, the row's address modulo 16 bytes and, for rows that
// take the staged kernel (docs/reduce.md), whether a residual shares the input's 16-byte alignment
// in every row: never on how many rows share the call. Errors are reported before any device
// work; nothing is written then.
#pragma once

#include "fusekit/reduce/dispatch.cuh"
#include "fusekit/reduce/options.hpp"
#include "fusekit/reduce/policies/layer_norm.cuh"
#include "fusekit/reduce/policies/rms_norm.cuh"
#include "fusekit/reduce/policies/softmax.cuh"

namespace fusekit {

template <class... T> struct DTypes {};
using AllDTypes = DTypes<float, fp16_t, bf16_t>;

namespace reduce {

// A type as a value, for generic lambdas (C++17: no template parameter lists on lambdas).
template <class T> struct TypeTag {
  using type = T;
};

// Calls `f(TypeTag<TIn>{}, TypeTag<TOut>{})` for the instantiated dtype pair that equals the call's.
template <class Policy, class TIn, class... TOut, class F>
Status dispatch_out(DType out_dtype, DTypes<TOut...>, F& f) {
  Status s{Errc::unsupported_dtype, std::string(Policy::kName) + ": output dtype " + dtype_name(out_dtype) +
                                        " is not instantiated in this translation unit"};
  ((dtype_v<TOut> == out_dtype ? (void)(s = f(TypeTag<TIn>{}, TypeTag<TOut>{})) : (void)0), ...);
  return s;
}

template <class Policy, class... TIn, class OutTypes, class F>
Status dispatch_in(DType in_dtype, DType out_dtype, DTypes<TIn...>, OutTypes outs, F&& f) {
  Status s{Errc::unsupported_dtype, std::string(Policy::kName) + ": input dtype " + dtype_name(in_dtype) +
                                        " is not instantiated in this translation unit"};
  ((dtype_v<TIn> == in_dtype ? (void)(s = dispatch_out<Policy, TIn>(out_dtype, outs, f)) : (void)0), ...);
  return s;
}

// Validates, then launches Policy over the rows of `in`.
template <class Policy, class InTypes, class OutTypes>
Status run(const ConstRows& in, const Rows& out, const NormOptions& options, cudaStream_t stream) {
  RowParams p;
  FUSEKIT_TRY(validate<Policy>(in, out, options, p));
  if (p.rows == 0 || p.cols == 0) return {};
  return dispatch_in<Policy>(in.dtype, out.dtype, InTypes{}, OutTypes{}, [&](auto in_type, auto out_type) {
    return launch_rows<Policy, typename decltype(in_type)::type, typename decltype(out_type)::type>(p, stream);
  });
}

// The plan `run` would launch for this call on the current device (dispatch.cuh's RowPlan), with
// no device work: for tests and benchmarks that name the kernel a call reaches.
template <class Policy, class InTypes = AllDTypes, class OutTypes = InTypes>
Status plan_call(const ConstRows& in, const Rows& out, const NormOptions& options, RowPlan& plan) {
  RowParams p;
  FUSEKIT_TRY(validate<Policy>(in, out, options, p));
  plan = RowPlan{};
  if (p.rows == 0 || p.cols == 0) return {};
  return dispatch_in<Policy>(in.dtype, out.dtype, InTypes{}, OutTypes{}, [&](auto in_type, auto out_type) {
    DeviceInfo device;
    bool sm90 = false;
    return plan_on_device<Policy, typename decltype(in_type)::type, typename decltype(out_type)::type>(p, plan, device, sm90);
  });
}

}  // namespace reduce

template <class InTypes = AllDTypes, class OutTypes = InTypes>
Status rms_norm(const ConstRows& in, const Rows& out, const NormOptions& options = {}, cudaStream_t stream = 0) {
  return reduce::run<reduce::RmsNormPolicy, InTypes, OutTypes>(in, out, options, stream);
}

template <class InTypes = AllDTypes, class OutTypes = InTypes>
Status layer_norm(const ConstRows& in, const Rows& out, const NormOptions& options = {}, cudaStream_t stream = 0) {
  return reduce::run<reduce::LayerNormPolicy, InTypes, OutTypes>(in, out, options, stream);
}

template <class InTypes = AllDTypes, class OutTypes = InTypes>
Status softmax(const ConstRows& in, const Rows& out, const SoftmaxOptions& options = {}, cudaStream_t stream = 0) {
  NormOptions norm;
  norm.stats = options.stats;
  return reduce::run<reduce::SoftmaxPolicy, InTypes, OutTypes>(in, out, norm, stream);
}

}  // namespace fusekit
