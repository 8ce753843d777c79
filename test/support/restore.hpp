// A process-wide knob (a std::atomic the library reads: kernel choices, overlap modes, layouts)
// put back as it was when the scope ends, so a test that forces a setting leaves the next test
// the library's own choice, even when a check fails midway.
#pragma once

#include <atomic>

namespace fusekit::test {

template <class T> class RestoreOnExit {
 public:
  explicit RestoreOnExit(std::atomic<T>& knob) : knob_(knob), saved_(knob.load()) {}
  RestoreOnExit(const RestoreOnExit&) = delete;
  RestoreOnExit& operator=(const RestoreOnExit&) = delete;
  ~RestoreOnExit() { knob_ = saved_; }

 private:
  std::atomic<T>& knob_;
  T saved_;
};

}  // namespace fusekit::test
