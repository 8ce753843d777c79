// fusekit/checkpoint/atomic_file.hpp: files that appear under their name complete or not at all.
//
// Data goes to a temporary file beside the target (same directory, so rename is atomic);
// commit fsyncs it, renames it over the target and fsyncs the directory. A file dropped
// before commit (an error, an exception) unlinks its temporary. An interrupted process can
// leave only "<name>.tmp-XXXXXX" files (and, inside commit_all, "<name>.old-XXXXXX" links to
// the previous targets) behind, never a partial file under the target name.
#pragma once

#include "fusekit/checkpoint/mapped_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace fusekit::checkpoint {

inline std::string parent_directory(const std::string& path) {
  auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

class AtomicFile {
 public:
  AtomicFile() = default;
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  AtomicFile(AtomicFile&& o) noexcept { swap(o); }
  AtomicFile& operator=(AtomicFile&& o) noexcept {
    AtomicFile tmp(std::move(o));
    swap(tmp);
    return *this;
  }
  ~AtomicFile() { discard(); }

  static Status create(const std::string& target, AtomicFile& out) {
    AtomicFile f;
    f.target_ = target;
    std::string pattern = target + ".tmp-XXXXXX";
    f.fd_ = ::mkstemp(pattern.data());
    if (f.fd_ < 0) return errno_status("cannot create a temporary file for", target);
    f.temp_ = pattern;
    ::fchmod(f.fd_, 0644);  // mkstemp makes 0600; a checkpoint is meant to be shared like any file
    out = std::move(f);
    return {};
  }

  int fd() const { return fd_; }
  const std::string& target() const { return target_; }
  const std::string& temp_path() const { return temp_; }

  // Makes the data durable before the name can point at it.
  Status sync() {
    if (::fsync(fd_) != 0) return errno_status("cannot fsync", temp_);
    return {};
  }
  Status rename_into_place() {
    if (::close(fd_) != 0) {
      fd_ = -1;
      return errno_status("cannot close", temp_);
    }
    fd_ = -1;
    if (::rename(temp_.c_str(), target_.c_str()) != 0) return errno_status("cannot rename into", target_);
    temp_.clear();
    return {};
  }
  Status commit() {
    FUSEKIT_TRY(sync());
    FUSEKIT_TRY(rename_into_place());
    return sync_directory(parent_directory(target_));
  }

  static Status sync_directory(const std::string& dir) {
    int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return errno_status("cannot open directory", dir);
    const bool ok = ::fsync(fd) == 0;
    ::close(fd);
    if (!ok) return errno_status("cannot fsync directory", dir);
    return {};
  }

 private:
  void discard() {
    if (fd_ >= 0) ::close(fd_);
    if (!temp_.empty()) ::unlink(temp_.c_str());
    fd_ = -1;
    temp_.clear();
  }
  void swap(AtomicFile& o) noexcept {
    std::swap(fd_, o.fd_);
    std::swap(target_, o.target_);
    std::swap(temp_, o.temp_);
  }
  int fd_ = -1;
  std::string target_, temp_;
};

// Several files published together: all are made durable first, then renamed in order. If a
// rename fails, the renames already done are undone (a replaced file comes back from a hard link
// taken before the first rename), so an error leaves every target as it was. Put the file that
// names the others (a shard index) last.
inline Status commit_all(std::span<AtomicFile> files) {
  for (auto& f : files) FUSEKIT_TRY(f.sync());
  // Hard links to the files about to be replaced: rename over a target is atomic, but loses the
  // old file unless another name still points at it.
  std::vector<std::string> backups(files.size());
  auto drop_backups = [&] {
    for (auto& b : backups)
      if (!b.empty()) ::unlink(b.c_str());
  };
  for (std::size_t i = 0; i < files.size(); ++i) {
    struct stat st {};
    if (::lstat(files[i].target().c_str(), &st) != 0 || S_ISDIR(st.st_mode)) continue;  // nothing to keep
    // A free name: mkstemp reserves it, link needs it absent.
    std::string pattern = files[i].target() + ".old-XXXXXX";
    const int fd = ::mkstemp(pattern.data());
    Status s = fd < 0 ? errno_status("cannot reserve a backup name for", files[i].target()) : Status{};
    if (fd >= 0) {
      ::close(fd);
      ::unlink(pattern.c_str());
      if (::link(files[i].target().c_str(), pattern.c_str()) != 0) s = errno_status("cannot keep the old", files[i].target());
      else backups[i] = pattern;
    }
    if (!s.ok()) {
      drop_backups();
      return s;
    }
  }
  for (std::size_t i = 0; i < files.size(); ++i) {
    Status s = files[i].rename_into_place();
    if (s.ok()) continue;
    for (std::size_t j = i; j-- > 0;) {  // undo, newest first
      const std::string& target = files[j].target();
      if (!backups[j].empty()) {
        ::rename(backups[j].c_str(), target.c_str());
        backups[j].clear();  // restored, or else the old file's only name left: keep it either way
      } else {
        ::unlink(target.c_str());
      }
    }
    drop_backups();
    return s;
  }
  drop_backups();
  std::vector<std::string> dirs;
  for (auto& f : files) {
    std::string d = parent_directory(f.target());
    if (dirs.empty() || dirs.back() != d) dirs.push_back(d);
  }
  for (const auto& d : dirs) FUSEKIT_TRY(AtomicFile::sync_directory(d));
  return {};
}

}  // namespace fusekit::checkpoint
