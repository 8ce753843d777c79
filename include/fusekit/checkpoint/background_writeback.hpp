// fusekit/checkpoint/background_writeback.hpp: write a file's finished ranges to the disk
// from a second thread while the caller goes on copying into it.
//
// Left to itself the kernel starts writing dirty pages only once gigabytes are dirty
// (vm.dirty_background_ratio), so the disk idles while the first part of a file is
// copied, and the final fsync then writes the rest while nothing else happens. Here each
// finished chunk is sent to the disk at once (sync_file_range WRITE): the disk is busy from
// the first chunk and the closing fsync has little left to do. The call can block on a busy
// disk, so it runs on this thread, never on the copying one. Optionally (drop_behind_chunks
// > 0) chunks that far behind are waited for and dropped from the page cache, so a large
// output does not push other files out of memory; that costs CPU, measured slower here.
#pragma once

#include "fusekit/checkpoint/mapped_file.hpp"

#include <fcntl.h>

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <utility>

namespace fusekit::checkpoint {

class BackgroundWriteback {
 public:
  // `chunk`: bytes sent to the disk per call; `drop_behind_chunks`: 0 keeps written pages
  // cached, n > 0 waits for and drops each chunk once n later chunks are in flight.
  BackgroundWriteback(int fd, std::string path, std::uint64_t chunk, std::uint64_t drop_behind_chunks)
      : fd_(fd), path_(std::move(path)), chunk_(chunk > 0 ? chunk : 1), drop_behind_(drop_behind_chunks * chunk_) {
    thread_ = std::thread([this] { run(); });
  }
  BackgroundWriteback(const BackgroundWriteback&) = delete;
  BackgroundWriteback& operator=(const BackgroundWriteback&) = delete;
  ~BackgroundWriteback() { (void)finish(); }

  // Bytes [0, end) of the file are written (into the page cache).
  void written_up_to(std::uint64_t end) {
    {
      std::lock_guard lock(mutex_);
      copied_ = end;
      if (end - last_wake_ < chunk_) return;  // wake the thread about once per chunk, not per piece
      last_wake_ = end;
    }
    wake_.notify_one();
  }

  // Stops the thread after it has started writeback of everything written so far. The
  // first error it met: sync_file_range consumes the file's writeback error, so the
  // caller's fsync would not see it again.
  Status finish() {
    if (thread_.joinable()) {
      {
        std::lock_guard lock(mutex_);
        done_ = true;
      }
      wake_.notify_one();
      thread_.join();
    }
    return error_;
  }

 private:
  void run() {
    std::uint64_t started = 0, settled = 0;  // writeback started for [0, started); [0, settled) on disk, dropped
    for (;;) {
      std::uint64_t copied;
      bool done;
      {
        std::unique_lock lock(mutex_);
        wake_.wait(lock, [&] { return copied_ >= started + chunk_ || done_; });
        copied = copied_;
        done = done_;
      }
      if (copied > started) {
        check(::sync_file_range(fd_, static_cast<off_t>(started), static_cast<off_t>(copied - started), SYNC_FILE_RANGE_WRITE));
        started = copied;
      }
      while (drop_behind_ > 0 && !done && started - settled > drop_behind_) {
        constexpr unsigned kWaitAndWrite = SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER;
        check(::sync_file_range(fd_, static_cast<off_t>(settled), static_cast<off_t>(chunk_), kWaitAndWrite));
        ::posix_fadvise(fd_, static_cast<off_t>(settled), static_cast<off_t>(chunk_), POSIX_FADV_DONTNEED);
        settled += chunk_;
      }
      if (done) return;  // the rest is the closing fsync's
    }
  }

  void check(int rc) {
    if (rc != 0 && error_.ok()) error_ = errno_status("cannot write back", path_);
  }

  int fd_;
  std::string path_;
  std::uint64_t chunk_, drop_behind_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::uint64_t copied_ = 0, last_wake_ = 0;
  bool done_ = false;
  Status error_;  // written by the thread, read after join
  std::thread thread_;
};

}  // namespace fusekit::checkpoint
