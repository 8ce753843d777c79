// fusekit/core/status.hpp: the error type every public entry point returns.
//
// Host functions validate all arguments before any device work, so a non-ok Status
// means nothing was written. CUDA failures keep the runtime's own error code.
#pragma once

#include <cuda_runtime_api.h>

#include <string>
#include <utility>

namespace fusekit {

enum class Errc {
  ok = 0,
  null_pointer,       // a required pointer is null while the extent it covers is not empty
  misaligned,         // a pointer is not aligned to its element size (or 16 bytes where required)
  bad_shape,          // negative extents, stride < cols, mismatched shapes
  unsupported_dtype,  // dtype (or dtype pair) this operation does not implement
  too_large,          // beyond the stated maximum of the operation
  bad_argument,       // any other invalid scalar argument (eps <= 0, ...)
  aliasing,           // buffers overlap in a way the operation cannot honour
  unsupported_device, // the current GPU cannot run this kernel
  cuda_error,         // the CUDA runtime reported an error
  io_error,           // host file I/O failed
  bad_format,         // a file or document does not follow its format
};

inline const char* errc_name(Errc e) {
  switch (e) {
    case Errc::ok: return "ok";
    case Errc::null_pointer: return "null_pointer";
    case Errc::misaligned: return "misaligned";
    case Errc::bad_shape: return "bad_shape";
    case Errc::unsupported_dtype: return "unsupported_dtype";
    case Errc::too_large: return "too_large";
    case Errc::bad_argument: return "bad_argument";
    case Errc::aliasing: return "aliasing";
    case Errc::unsupported_device: return "unsupported_device";
    case Errc::cuda_error: return "cuda_error";
    case Errc::io_error: return "io_error";
    case Errc::bad_format: return "bad_format";
  }
  return "unknown";
}

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Errc code, std::string message) : code_(code), message_(std::move(message)) {}
  Status(const Status&) = default;
  Status(Status&&) noexcept = default;
  // Assignment returns nothing: nvcc warns when a returned Status& is ignored, as in `s = f();`.
  void operator=(const Status& o) {
    code_ = o.code_;
    message_ = o.message_;
  }
  void operator=(Status&& o) noexcept {
    code_ = o.code_;
    message_ = std::move(o.message_);
  }

  static Status cuda(cudaError_t err, const char* what) {
    return {Errc::cuda_error, std::string(what) + ": " + cudaGetErrorName(err) + " (" +
                                  cudaGetErrorString(err) + ")"};
  }

  bool ok() const { return code_ == Errc::ok; }
  explicit operator bool() const { return ok(); }
  Errc code() const { return code_; }
  const std::string& message() const { return message_; }
  // "bad_shape: rms_norm: out.cols (7) != in.cols (8)"
  std::string to_string() const {
    return ok() ? std::string("ok") : std::string(errc_name(code_)) + ": " + message_;
  }

 private:
  Errc code_ = Errc::ok;
  std::string message_;
};

}  // namespace fusekit

// Return early from a function returning Status.
#define FUSEKIT_TRY(expr)                        \
  do {                                           \
    ::fusekit::Status fusekit_try_s_ = (expr);   \
    if (!fusekit_try_s_.ok()) return fusekit_try_s_; \
  } while (0)

#define FUSEKIT_CUDA_TRY(expr)                                  \
  do {                                                          \
    cudaError_t fusekit_cuda_e_ = (expr);                       \
    if (fusekit_cuda_e_ != cudaSuccess)                         \
      return ::fusekit::Status::cuda(fusekit_cuda_e_, #expr);   \
  } while (0)
