// fusekit/checkpoint/mapped_file.hpp: a read-only memory map of a whole file (POSIX).
//
// Views handed out by the reader point into this mapping, so tensor bytes are never copied
// into user memory; the descriptor stays open for the kernel's file-copy calls.
#pragma once

#include "fusekit/core/status.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <span>
#include <string>
#include <utility>

namespace fusekit::checkpoint {

inline Status errno_status(const std::string& what, const std::string& path) {
  return {Errc::io_error, what + " " + path + ": " + std::strerror(errno)};
}

class MappedFile {
 public:
  MappedFile() = default;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  MappedFile(MappedFile&& o) noexcept { swap(o); }
  MappedFile& operator=(MappedFile&& o) noexcept {
    MappedFile tmp(std::move(o));
    swap(tmp);
    return *this;
  }
  ~MappedFile() {
    if (data_ != nullptr) ::munmap(data_, size_);
    if (fd_ >= 0) ::close(fd_);
  }

  static Status open(const std::string& path, MappedFile& out) {
    MappedFile f;
    f.path_ = path;
    f.fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (f.fd_ < 0) return errno_status("cannot open", path);
    struct stat st {};
    if (::fstat(f.fd_, &st) != 0) return errno_status("cannot stat", path);
    if (!S_ISREG(st.st_mode)) return {Errc::io_error, path + " is not a regular file"};
    f.size_ = static_cast<std::size_t>(st.st_size);
    ::posix_fadvise(f.fd_, 0, 0, POSIX_FADV_SEQUENTIAL);  // larger readahead for the kernel copies
    if (f.size_ > 0) {  // mmap of zero bytes is an error; an empty file has an empty view
      void* p = ::mmap(nullptr, f.size_, PROT_READ, MAP_SHARED, f.fd_, 0);
      if (p == MAP_FAILED) return errno_status("cannot map", path);
      f.data_ = p;
      // Conversion reads each tensor once, front to back.
      ::madvise(p, f.size_, MADV_SEQUENTIAL);
    }
    out = std::move(f);
    return {};
  }

  std::span<const std::byte> bytes() const { return {static_cast<const std::byte*>(data_), size_}; }
  int fd() const { return fd_; }
  const std::string& path() const { return path_; }

 private:
  void swap(MappedFile& o) noexcept {
    std::swap(data_, o.data_);
    std::swap(size_, o.size_);
    std::swap(fd_, o.fd_);
    std::swap(path_, o.path_);
  }
  void* data_ = nullptr;
  std::size_t size_ = 0;
  int fd_ = -1;
  std::string path_;
};

}  // namespace fusekit::checkpoint
