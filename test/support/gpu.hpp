// Test helpers for device code: GPU detection, checked CUDA calls, device buffers that are
// poisoned before each run, and fresh random inputs.
#pragma once

#include <doctest/doctest.h>

#include "fusekit/core/dtype.hpp"

#include <cuda_runtime.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace fusekit::test {

struct GpuState {
  bool available = false;
  std::string reason, name;
  int major = 0, minor = 0, sm_count = 0;
};

inline const GpuState& gpu_state() {
  static const GpuState state = [] {
    GpuState s;
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) {
      s.reason = std::string("no usable CUDA device (cudaGetDeviceCount: ") + cudaGetErrorString(e) + ")";
      cudaGetLastError();
      return s;
    }
    if (n == 0) { s.reason = "no CUDA device present"; return s; }
    cudaDeviceProp p{};
    cudaGetDeviceProperties(&p, 0);
    s.available = true;
    s.name = p.name;
    s.major = p.major;
    s.minor = p.minor;
    s.sm_count = p.multiProcessorCount;
    return s;
  }();
  return state;
}

inline bool no_gpu() { return !gpu_state().available; }
inline bool not_hopper() { return no_gpu() || gpu_state().major != 9; }

}  // namespace fusekit::test

// A test case that needs a GPU; skipped (and counted as skipped) without one.
#define GPU_TEST_CASE(name) TEST_CASE(name * doctest::skip(::fusekit::test::no_gpu()))

// Every CUDA call in tests is checked; a kernel launch is followed by CHECK_LAUNCH().
#define CUDA_CHECK(expr)                                                           \
  do {                                                                             \
    cudaError_t e_ = (expr);                                                       \
    REQUIRE_MESSAGE(e_ == cudaSuccess, #expr ": " << cudaGetErrorString(e_));      \
  } while (0)
#define CHECK_LAUNCH()                     \
  do {                                     \
    CUDA_CHECK(cudaGetLastError());        \
    CUDA_CHECK(cudaDeviceSynchronize());   \
  } while (0)

namespace fusekit::test {

// Owning device allocation. `offset_bytes` shifts the returned pointer to test misaligned access.
// Guard bytes surround [get(), get() + bytes()) (the shift included): set when the buffer is made,
// checked when it is freed, so a kernel that writes before a misaligned start or past the end
// fails the test that owns the buffer, even where the write lands in no one's output. Under
// compute-sanitizer set FUSEKIT_TEST_GUARD_BYTES=0 (tools/h200_*.sh do): memcheck sees only an
// allocation's ends, so guards inside it would hide an out-of-bounds read.
class DeviceBuffer {
 public:
  static constexpr unsigned char kGuardByte = 0xA5;
  static std::size_t guard_bytes() {  // watched on each side, beyond the shift
    static const std::size_t bytes = [] {
      const char* v = std::getenv("FUSEKIT_TEST_GUARD_BYTES");
      return v != nullptr && std::string(v) == "0" ? std::size_t(0) : std::size_t(256);
    }();
    return bytes;
  }

  DeviceBuffer() = default;
  // exact_end: without guard bytes, none of the 16 bytes of slack either, so that memcheck reports
  // a read even one byte past the buffer (the row kernels' parameter vectors read whole).
  explicit DeviceBuffer(std::size_t bytes, std::size_t offset_bytes = 0, bool exact_end = false)
      : bytes_(bytes), offset_(offset_bytes), guard_(guard_bytes()), exact_end_(exact_end) {
    CUDA_CHECK(cudaMalloc(&base_, total()));
    CUDA_CHECK(cudaMemset(base_, kGuardByte, total()));
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& o) noexcept { *this = std::move(o); }
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    std::swap(base_, o.base_);
    std::swap(bytes_, o.bytes_);
    std::swap(offset_, o.offset_);
    std::swap(guard_, o.guard_);
    std::swap(exact_end_, o.exact_end_);
    return *this;
  }
  ~DeviceBuffer() {
    if (!base_) return;
    check_guards();
    cudaFree(base_);
  }

  void* get() const { return static_cast<char*>(base_) + front(); }
  template <class T> T* as() const { return static_cast<T*>(get()); }
  std::size_t bytes() const { return bytes_; }

  void upload(const void* host) { CUDA_CHECK(cudaMemcpy(get(), host, bytes_, cudaMemcpyHostToDevice)); }
  void download(void* host) const { CUDA_CHECK(cudaMemcpy(host, get(), bytes_, cudaMemcpyDeviceToHost)); }
  // Fill with 0xFF bytes: NaN for every float type, so an element never written is caught.
  void poison() { CUDA_CHECK(cudaMemset(get(), 0xFF, bytes_)); }

  // Whether every guard byte is as the constructor left it (false too if they cannot be read).
  bool guards_intact() const {
    std::vector<unsigned char> before(front()), after(back());
    if (cudaMemcpy(before.data(), base_, before.size(), cudaMemcpyDeviceToHost) != cudaSuccess ||
        cudaMemcpy(after.data(), static_cast<char*>(get()) + bytes_, after.size(), cudaMemcpyDeviceToHost) !=
            cudaSuccess) {
      cudaGetLastError();
      return false;
    }
    for (unsigned char b : before) if (b != kGuardByte) return false;
    for (unsigned char b : after) if (b != kGuardByte) return false;
    return true;
  }

 private:
  std::size_t front() const { return guard_ + offset_; }
  std::size_t back() const { return guard_ > 0 ? guard_ : exact_end_ ? 0 : 16; }  // without guards, 16 bytes of slack as before
  std::size_t total() const { return front() + bytes_ + back(); }
  void check_guards() const {
    if (guard_ == 0) return;
    // A context an earlier error broke cannot be read: that error was reported where it happened.
    if (cudaPeekAtLastError() != cudaSuccess) return;
    CHECK_MESSAGE(guards_intact(), "a kernel wrote outside its buffer of " << bytes_ << " bytes (shifted by "
                                                                           << offset_ << ")");
  }

  void* base_ = nullptr;
  std::size_t bytes_ = 0, offset_ = 0, guard_ = 0;
  bool exact_end_ = false;
};

// Fresh random numbers per test run; the seed is printed when a check fails.
inline std::uint64_t fresh_seed() {
  static std::random_device rd;
  return (std::uint64_t(rd()) << 32) ^ rd();
}

// x rounded (to nearest even) to a dtype, as a double.
inline double round_to(DType t, double x) {
  return visit_dtype(t, [&](auto tag) -> double { return to_float(from_float<decltype(tag)>(static_cast<float>(x))); });
}

// Host storage of a dtype, filled from doubles and read back as doubles.
class HostArray {
 public:
  HostArray(DType t, std::size_t n) : type_(t), n_(n), bytes_(n * dtype_size(t)) {}
  DType dtype() const { return type_; }
  std::size_t size() const { return n_; }
  void* data() { return bytes_.data(); }
  const void* data() const { return bytes_.data(); }
  std::size_t bytes() const { return bytes_.size(); }

  double get(std::size_t i) const {
    return visit_dtype(type_, [&](auto tag) -> double {
      using T = decltype(tag);
      T v;
      std::memcpy(&v, bytes_.data() + i * sizeof(T), sizeof(T));
      return to_float(v);
    });
  }
  // Stores the value rounded to the dtype; returns what was stored.
  double set(std::size_t i, double x) {
    return visit_dtype(type_, [&](auto tag) -> double {
      using T = decltype(tag);
      T v = from_float<T>(static_cast<float>(x));
      std::memcpy(bytes_.data() + i * sizeof(T), &v, sizeof(T));
      return to_float(v);
    });
  }
  bool is_poison(std::size_t i) const {  // all bytes 0xFF, as DeviceBuffer::poison leaves them
    for (std::size_t b = 0; b < dtype_size(type_); ++b)
      if (static_cast<unsigned char>(bytes_[i * dtype_size(type_) + b]) != 0xFF) return false;
    return true;
  }

 private:
  DType type_;
  std::size_t n_;
  std::vector<char> bytes_;
};

}  // namespace fusekit::test
