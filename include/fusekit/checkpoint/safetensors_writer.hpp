// fusekit/checkpoint/safetensors_writer.hpp: write tensors described as pieces of bytes.
//
// A tensor's bytes are a list of pieces: a range of another file (copied by the kernel with
// copy_file_range, never through user memory), a range of memory (a mapping or a buffer),
// or a generator that fills chunks on demand. Renames, row splits, concatenations and row
// permutations are all such lists, so the converter copies no tensor through a user buffer.
#pragma once

#include "fusekit/checkpoint/atomic_file.hpp"
#include "fusekit/checkpoint/background_writeback.hpp"
#include "fusekit/checkpoint/safetensors_reader.hpp"

#include <nlohmann/json.hpp>

#include <fcntl.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <unistd.h>
#include <utility>
#include <vector>

namespace fusekit::checkpoint {

struct Piece {
  std::uint64_t size = 0;
  std::span<const std::byte> bytes;  // the bytes in memory (empty for a generated piece)
  int fd = -1;                       // the same bytes in a file, when they live in one
  std::uint64_t file_offset = 0;
  std::function<void(std::uint64_t offset, std::span<std::byte> out)> generate;
  std::shared_ptr<const void> keep_alive;  // owner of `bytes` when they are a buffer

  // `size` bytes of a mapped tensor starting `offset` bytes into it.
  static Piece of(const TensorView& v, std::uint64_t offset, std::uint64_t size) {
    Piece p;
    p.size = size;
    p.bytes = v.bytes.subspan(offset, size);
    p.fd = v.fd;
    p.file_offset = v.file_offset + offset;
    return p;
  }
  static Piece of_buffer(std::shared_ptr<const std::vector<std::byte>> buffer) {
    Piece p;
    p.size = buffer->size();
    p.bytes = std::span<const std::byte>(*buffer);
    p.keep_alive = std::move(buffer);
    return p;
  }
  static Piece generated(std::uint64_t size, std::function<void(std::uint64_t, std::span<std::byte>)> fill) {
    Piece p;
    p.size = size;
    p.generate = std::move(fill);
    return p;
  }
};

struct OutputTensor {
  TensorSpec spec;
  std::vector<Piece> pieces;
};

// Called with the bytes written so far to the current file (for progress lines).
using ByteProgress = std::function<void(std::uint64_t)>;

struct WriteOptions {
  bool kernel_copy = true;                      // copy_file_range for file-backed pieces
  std::uint64_t chunk_bytes = std::uint64_t(64) << 20;  // granularity of writes and progress calls
  // Send each finished chunk to the disk at once from a second thread (BackgroundWriteback)
  // instead of when gigabytes are dirty. Off by default: on this shared 2-core machine it
  // won one same-run comparison and lost the next (benchmark/RESULTS.md "Checkpoint adapter",
  // 2026-11-30); no gain is proven, and the thread competes for CPU with the copy.
  bool early_writeback = false;
  // With early_writeback, > 0 also waits for and drops written chunks from the page cache
  // this many chunks behind (spares the cache on small hosts; slower here, 2026-11-30).
  std::uint64_t drop_behind_chunks = 0;
};

namespace detail {

inline Status write_error(const std::string& what) { return {Errc::bad_argument, "safetensors writer: " + what}; }

// Well-formed UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF): the
// header is JSON, and nlohmann::json throws mid-write on anything else.
inline bool valid_utf8(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    const auto b = static_cast<unsigned char>(s[i]);
    std::size_t n = 0;
    unsigned char lo = 0x80, hi = 0xBF;  // allowed range of the second byte
    if (b < 0x80) n = 0;
    else if (b >= 0xC2 && b <= 0xDF) n = 1;
    else if (b == 0xE0) n = 2, lo = 0xA0;
    else if (b >= 0xE1 && b <= 0xEC) n = 2;
    else if (b == 0xED) n = 2, hi = 0x9F;
    else if (b >= 0xEE && b <= 0xEF) n = 2;
    else if (b == 0xF0) n = 3, lo = 0x90;
    else if (b >= 0xF1 && b <= 0xF3) n = 3;
    else if (b == 0xF4) n = 3, hi = 0x8F;
    else return false;
    if (s.size() - i <= n) return false;
    for (std::size_t k = 1; k <= n; ++k) {
      const auto c = static_cast<unsigned char>(s[i + k]);
      if (c < (k == 1 ? lo : 0x80) || c > (k == 1 ? hi : 0xBF)) return false;
    }
    i += n + 1;
  }
  return true;
}

// A string for an error message: invalid bytes as \xNN, so the message itself stays printable.
inline std::string printable(std::string_view s) {
  std::string out;
  for (unsigned char c : s) {
    if (c >= 0x20 && c < 0x7F) {
      out += static_cast<char>(c);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02X", c);
      out += buf;
    }
  }
  return out;
}

inline Status check_metadata(const Metadata& metadata) {
  for (const auto& [key, value] : metadata) {
    if (!valid_utf8(key)) return write_error("metadata key \"" + printable(key) + "\" is not valid UTF-8");
    if (!valid_utf8(value))
      return write_error("metadata value of \"" + printable(key) + "\" (\"" + printable(value) + "\") is not valid UTF-8");
  }
  return {};
}

inline Status check_output_tensors(std::span<const OutputTensor> tensors) {
  std::set<std::string_view> names;
  for (const auto& t : tensors) {
    if (t.spec.name == "__metadata__") return write_error("a tensor may not be named __metadata__");
    if (!valid_utf8(t.spec.name)) return write_error("tensor name \"" + printable(t.spec.name) + "\" is not valid UTF-8");
    if (!names.insert(t.spec.name).second) return write_error("duplicate tensor name \"" + t.spec.name + "\"");
    auto need = byte_size(t.spec.dtype, t.spec.shape);
    if (!need) return write_error("tensor \"" + t.spec.name + "\" has a negative or overflowing shape");
    std::uint64_t have = 0;
    for (const auto& p : t.pieces) {
      const bool backed = p.bytes.size() == p.size || p.generate != nullptr;
      if (!backed) return write_error("tensor \"" + t.spec.name + "\" has a piece with no bytes behind it");
      have += p.size;
    }
    if (have != *need)
      return write_error("tensor \"" + t.spec.name + "\" has " + std::to_string(have) + " bytes of pieces, shape " +
                         shape_string(t.spec.shape) + " needs " + std::to_string(*need));
  }
  return {};
}

inline Status pwrite_all(int fd, const std::byte* data, std::uint64_t size, std::uint64_t at, const std::string& path) {
  while (size > 0) {
    const ssize_t n = ::pwrite(fd, data, std::min<std::uint64_t>(size, std::uint64_t(1) << 30), static_cast<off_t>(at));
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno_status("cannot write", path);
    }
    data += n;
    size -= static_cast<std::uint64_t>(n);
    at += static_cast<std::uint64_t>(n);
  }
  return {};
}

// Kernel-side copy; `copied` reports how far it got so a fallback can continue from there.
inline Status kernel_copy(int in_fd, std::uint64_t in_at, int out_fd, std::uint64_t out_at, std::uint64_t size,
                          std::uint64_t& copied, const std::string& path) {
  copied = 0;
  loff_t in = static_cast<loff_t>(in_at), out = static_cast<loff_t>(out_at);
  while (copied < size) {
    const ssize_t n = ::copy_file_range(in_fd, &in, out_fd, &out, size - copied, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      // Not supported here (another file system, an old kernel): the caller writes from memory.
      if (n < 0 && (errno == EXDEV || errno == EINVAL || errno == ENOSYS || errno == EOPNOTSUPP || errno == EBADF))
        return {Errc::unsupported_device, "copy_file_range unsupported"};
      return n == 0 ? Status{Errc::io_error, "source ended early while copying into " + path}
                    : errno_status("cannot copy into", path);
    }
    copied += static_cast<std::uint64_t>(n);
  }
  return {};
}

class PieceWriter {
 public:
  PieceWriter(int fd, std::string path, const WriteOptions& opt, const ByteProgress& progress)
      : fd_(fd), path_(std::move(path)), opt_(opt), progress_(progress) {
    if (opt_.early_writeback)
      writeback_ = std::make_unique<BackgroundWriteback>(fd_, path_, opt_.chunk_bytes, opt_.drop_behind_chunks);
  }

  // Every byte is in the file (durable after the caller's fsync).
  Status finish() { return writeback_ ? writeback_->finish() : Status{}; }

  Status write(std::span<const std::byte> data) {
    FUSEKIT_TRY(pwrite_all(fd_, data.data(), data.size(), at_, path_));
    advance(data.size());
    return {};
  }

  Status write(const Piece& p) {
    std::uint64_t done = 0;
    while (done < p.size) {
      const std::uint64_t n = std::min(p.size - done, opt_.chunk_bytes);
      if (p.generate) {
        scratch_.resize(n);
        p.generate(done, scratch_);
        FUSEKIT_TRY(pwrite_all(fd_, scratch_.data(), n, at_, path_));
      } else if (p.fd >= 0 && opt_.kernel_copy && kernel_copy_works_) {
        std::uint64_t copied = 0;
        Status s = kernel_copy(p.fd, p.file_offset + done, fd_, at_, n, copied, path_);
        if (s.code() == Errc::unsupported_device) kernel_copy_works_ = false;
        else if (!s.ok()) return s;
        advance(copied);
        done += copied;
        continue;
      } else {
        FUSEKIT_TRY(pwrite_all(fd_, p.bytes.data() + done, n, at_, path_));
      }
      advance(n);
      done += n;
    }
    return {};
  }

  std::uint64_t position() const { return at_; }

 private:
  void advance(std::uint64_t n) {
    at_ += n;
    if (writeback_) writeback_->written_up_to(at_);
    if (progress_) progress_(at_);
  }
  int fd_;
  std::string path_;
  const WriteOptions& opt_;
  const ByteProgress& progress_;
  std::uint64_t at_ = 0;
  bool kernel_copy_works_ = true;
  std::vector<std::byte> scratch_;
  std::unique_ptr<BackgroundWriteback> writeback_;
};

}  // namespace detail

// The header block: 8-byte length, then JSON padded with spaces so data starts 8-aligned.
// Tensors are laid out in the order given (callers pass a stable order: a plan's order).
inline std::vector<std::byte> safetensors_header_bytes(std::span<const OutputTensor> tensors, const Metadata& metadata) {
  nlohmann::ordered_json h = nlohmann::ordered_json::object();
  if (!metadata.empty()) {
    auto& md = h["__metadata__"] = nlohmann::ordered_json::object();
    for (const auto& [k, v] : metadata) md[k] = v;
  }
  std::uint64_t offset = 0;
  for (const auto& t : tensors) {
    const std::uint64_t size = *byte_size(t.spec.dtype, t.spec.shape);
    h[t.spec.name] = {{"dtype", std::string(dtype_name(t.spec.dtype))}, {"shape", t.spec.shape}, {"data_offsets", {offset, offset + size}}};
    offset += size;
  }
  std::string json = h.dump();
  json.append((8 - json.size() % 8) % 8, ' ');
  std::vector<std::byte> out(8 + json.size());
  for (int i = 0; i < 8; ++i) out[i] = static_cast<std::byte>((json.size() >> (8 * i)) & 0xFF);
  std::memcpy(out.data() + 8, json.data(), json.size());
  return out;
}

inline std::uint64_t safetensors_file_size(std::span<const OutputTensor> tensors, const Metadata& metadata) {
  std::uint64_t n = safetensors_header_bytes(tensors, metadata).size();
  for (const auto& t : tensors) n += *byte_size(t.spec.dtype, t.spec.shape);
  return n;
}

// Writes a complete safetensors file into an open temporary (see AtomicFile).
inline Status write_safetensors(AtomicFile& file, std::span<const OutputTensor> tensors, const Metadata& metadata,
                                const WriteOptions& opt = {}, const ByteProgress& progress = {}) {
  FUSEKIT_TRY(detail::check_output_tensors(tensors));
  FUSEKIT_TRY(detail::check_metadata(metadata));
  detail::PieceWriter w(file.fd(), file.temp_path(), opt, progress);
  FUSEKIT_TRY(w.write(safetensors_header_bytes(tensors, metadata)));
  for (const auto& t : tensors)
    for (const auto& p : t.pieces) FUSEKIT_TRY(w.write(p));
  return w.finish();
}

// One file, atomically: checks everything first, so bad input creates no file at all.
inline Status write_safetensors_file(const std::string& path, std::span<const OutputTensor> tensors,
                                     const Metadata& metadata = {}, const WriteOptions& opt = {},
                                     const ByteProgress& progress = {}) {
  FUSEKIT_TRY(detail::check_output_tensors(tensors));
  FUSEKIT_TRY(detail::check_metadata(metadata));
  AtomicFile f;
  FUSEKIT_TRY(AtomicFile::create(path, f));
  FUSEKIT_TRY(write_safetensors(f, tensors, metadata, opt, progress));
  return f.commit();
}

}  // namespace fusekit::checkpoint
