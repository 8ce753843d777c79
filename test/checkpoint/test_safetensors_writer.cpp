// The safetensors writer: layout, 8-byte header padding, stable order, atomic replacement,
// and bad input that creates no file.
#include <doctest/doctest.h>

#include "checkpoint/temp_dir.hpp"
#include "fusekit/checkpoint/sharded_checkpoint.hpp"
#include "support/gpu.hpp"

#include <cstring>
#include <memory>
#include <random>

using namespace fusekit;
using namespace fusekit::checkpoint;
using fusekit::test::TempDir;

namespace {

std::shared_ptr<const std::vector<std::byte>> random_buffer(std::size_t n, std::mt19937_64& rng) {
  auto b = std::make_shared<std::vector<std::byte>>(n);
  for (auto& x : *b) x = static_cast<std::byte>(rng() & 0xFF);
  return b;
}

OutputTensor buffer_tensor(std::string name, TensorDType t, Shape shape, std::mt19937_64& rng) {
  const std::uint64_t n = *byte_size(t, shape);
  return {{std::move(name), t, std::move(shape)}, {Piece::of_buffer(random_buffer(n, rng))}};
}

bool same_bytes(std::span<const std::byte> a, const Piece& p) {
  return a.size() == p.size && (a.empty() || std::memcmp(a.data(), p.bytes.data(), a.size()) == 0);
}

}  // namespace

TEST_CASE("writer: header padded to 8 bytes, data in the given order, read back bit for bit") {
  std::mt19937_64 rng(fusekit::test::fresh_seed());
  TempDir dir;
  std::vector<OutputTensor> ts;
  ts.push_back(buffer_tensor("z.last_name_first", TensorDType::BF16, {3, 5}, rng));
  ts.push_back(buffer_tensor("a.weight", TensorDType::F32, {7}, rng));
  ts.push_back(buffer_tensor("m.empty", TensorDType::I64, {0}, rng));
  ts.push_back(buffer_tensor("scalar", TensorDType::F64, {}, rng));
  const std::string path = dir / "out.safetensors";
  REQUIRE(write_safetensors_file(path, ts, {{"format", "pt"}}).ok());
  CHECK(dir.entries() == std::vector<std::string>{"out.safetensors"});  // no temporary left

  SafetensorsFile f;
  REQUIRE(SafetensorsFile::open(path, f).ok());
  CHECK(f.header().data_start % 8 == 0);
  CHECK(f.header().metadata == Metadata{{"format", "pt"}});
  REQUIRE(f.size() == ts.size());
  for (std::size_t i = 0; i < ts.size(); ++i) {
    TensorView v = f.view(i);
    CHECK(v.spec->name == ts[i].spec.name);  // data order is the order given
    CHECK(v.spec->shape == ts[i].spec.shape);
    CHECK(v.spec->dtype == ts[i].spec.dtype);
    CHECK(same_bytes(v.bytes, ts[i].pieces[0]));
  }
}

TEST_CASE("writer: pieces from another file, by kernel copy and from memory, and generated ones") {
  std::mt19937_64 rng(fusekit::test::fresh_seed());
  TempDir dir;
  std::vector<OutputTensor> src;
  src.push_back(buffer_tensor("w", TensorDType::BF16, {8, 6}, rng));
  REQUIRE(write_safetensors_file(dir / "src.safetensors", src).ok());
  SafetensorsFile in;
  REQUIRE(SafetensorsFile::open(dir / "src.safetensors", in).ok());
  TensorView w = in.find("w");
  const std::uint64_t half = w.bytes.size() / 2;

  for (int mode = 0; mode < 4; ++mode) {
    const bool kernel_copy = (mode & 1) != 0, early_writeback = (mode & 2) != 0;
    CAPTURE(kernel_copy);
    CAPTURE(early_writeback);
    std::vector<OutputTensor> out;
    out.push_back({{"swapped", TensorDType::BF16, {8, 6}}, {Piece::of(w, half, half), Piece::of(w, 0, half)}});
    out.push_back({{"counted", TensorDType::U8, {300}}, {Piece::generated(300, [](std::uint64_t at, std::span<std::byte> b) {
                     for (std::size_t i = 0; i < b.size(); ++i) b[i] = static_cast<std::byte>((at + i) * 7);
                   })}});
    WriteOptions opt;
    opt.kernel_copy = kernel_copy;
    opt.early_writeback = early_writeback;
    opt.chunk_bytes = 13;  // many small chunks: offsets across chunk edges must be right
    opt.drop_behind_chunks = 1;  // and written-back chunks dropped from the cache while copying
    REQUIRE(write_safetensors_file(dir / "dst.safetensors", out, {}, opt).ok());
    SafetensorsFile f;
    REQUIRE(SafetensorsFile::open(dir / "dst.safetensors", f).ok());
    auto s = f.find("swapped").bytes;
    CHECK(std::memcmp(s.data(), w.bytes.data() + half, half) == 0);
    CHECK(std::memcmp(s.data() + half, w.bytes.data(), half) == 0);
    auto c = f.find("counted").bytes;
    bool all = true;
    for (std::size_t i = 0; i < c.size(); ++i) all = all && c[i] == static_cast<std::byte>(i * 7);
    CHECK(all);
  }
}

TEST_CASE("writer: a multi-chunk file written back while copying reads back bit for bit") {
  std::mt19937_64 rng(fusekit::test::fresh_seed());
  TempDir dir;
  std::vector<OutputTensor> src;
  src.push_back(buffer_tensor("w", TensorDType::BF16, {513, 1031}, rng));  // ~1 MB, odd sizes
  REQUIRE(write_safetensors_file(dir / "src.safetensors", src).ok());
  SafetensorsFile in;
  REQUIRE(SafetensorsFile::open(dir / "src.safetensors", in).ok());
  TensorView w = in.find("w");
  const std::uint64_t row = 1031 * 2, third = 171 * row;
  std::vector<OutputTensor> out;  // rows in the order [2/3, 0/3, 1/3]: reads out of file order
  out.push_back({{"w", TensorDType::BF16, {513, 1031}}, {Piece::of(w, 2 * third, third), Piece::of(w, 0, third), Piece::of(w, third, third)}});
  WriteOptions opt;
  opt.chunk_bytes = 40'000 + 7;  // ~26 chunks, none page-aligned
  opt.early_writeback = true;
  SUBCASE("pages kept in the cache (the default)") { REQUIRE(opt.drop_behind_chunks == 0); }
  SUBCASE("pages dropped two chunks behind") { opt.drop_behind_chunks = 2; }
  REQUIRE(write_safetensors_file(dir / "dst.safetensors", out, {}, opt).ok());
  SafetensorsFile f;
  REQUIRE(SafetensorsFile::open(dir / "dst.safetensors", f).ok());
  auto b = f.find("w").bytes;
  REQUIRE(b.size() == w.bytes.size());
  CHECK(std::memcmp(b.data(), w.bytes.data() + 2 * third, third) == 0);
  CHECK(std::memcmp(b.data() + third, w.bytes.data(), third) == 0);
  CHECK(std::memcmp(b.data() + 2 * third, w.bytes.data() + third, third) == 0);
}

TEST_CASE("background writeback: an error it meets is returned by finish, not lost to the later fsync") {
  BackgroundWriteback wb(-1, "closed.safetensors", 4096, 1);  // sync_file_range fails: EBADF
  wb.written_up_to(3 * 4096);
  Status s = wb.finish();
  CHECK(s.code() == Errc::io_error);
  CHECK(s.message().find("cannot write back closed.safetensors") != std::string::npos);
  CHECK(wb.finish().code() == Errc::io_error);  // a second call returns the same, no thread left
}

TEST_CASE("writer: bad input is refused before any file exists, and an old file survives") {
  std::mt19937_64 rng(fusekit::test::fresh_seed());
  TempDir dir;
  const std::string path = dir / "out.safetensors";
  fusekit::test::write_file(path, "old contents");

  std::vector<OutputTensor> dup;
  dup.push_back(buffer_tensor("x", TensorDType::F32, {2}, rng));
  dup.push_back(buffer_tensor("x", TensorDType::F32, {2}, rng));
  Status s = write_safetensors_file(path, dup);
  CHECK(s.code() == Errc::bad_argument);
  CHECK(s.message().find("duplicate tensor name \"x\"") != std::string::npos);

  std::vector<OutputTensor> short_piece;
  short_piece.push_back(buffer_tensor("x", TensorDType::F32, {2}, rng));
  short_piece[0].spec.shape = {3};
  s = write_safetensors_file(path, short_piece);
  CHECK(s.message().find("has 8 bytes of pieces, shape [3] needs 12") != std::string::npos);

  std::vector<OutputTensor> reserved;
  reserved.push_back(buffer_tensor("__metadata__", TensorDType::F32, {2}, rng));
  CHECK(!write_safetensors_file(path, reserved).ok());

  CHECK(dir.entries() == std::vector<std::string>{"out.safetensors"});
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), {});
  CHECK(text == "old contents");
}

TEST_CASE("writer: a source descriptor the kernel cannot copy from falls back to the mapped bytes") {
  std::mt19937_64 rng(fusekit::test::fresh_seed());
  TempDir dir;
  auto bytes = random_buffer(40, rng);
  Piece p = Piece::of_buffer(bytes);
  p.fd = 1'000'000;  // not open: copy_file_range fails with EBADF
  std::vector<OutputTensor> ts{{{"b", TensorDType::U8, {40}}, {p}}};
  REQUIRE(write_safetensors_file(dir / "out.safetensors", ts).ok());
  SafetensorsFile f;
  REQUIRE(SafetensorsFile::open(dir / "out.safetensors", f).ok());
  CHECK(same_bytes(f.find("b").bytes, p));
}

TEST_CASE("writer: a file dropped before commit (any error path) leaves nothing behind") {
  std::mt19937_64 rng(fusekit::test::fresh_seed());
  TempDir dir;
  std::vector<OutputTensor> ts;
  ts.push_back(buffer_tensor("a", TensorDType::F32, {4}, rng));
  AtomicFile f;
  REQUIRE(AtomicFile::create(dir / "x.safetensors", f).ok());
  REQUIRE(write_safetensors(f, ts, {}).ok());
  const std::string temp = f.temp_path();
  CHECK(std::filesystem::exists(temp));
  CHECK(!std::filesystem::exists(dir / "x.safetensors"));  // nothing under the name while writing
  { AtomicFile dropped = std::move(f); }
  CHECK(dir.entries().empty());
}

TEST_CASE("sharded checkpoint: shards plus index, written and read back") {
  std::mt19937_64 rng(fusekit::test::fresh_seed());
  TempDir dir;
  std::vector<OutputTensor> ts;
  for (int i = 0; i < 7; ++i) {
    std::string name = "t";
    name += std::to_string(i);
    ts.push_back(buffer_tensor(name, TensorDType::F32, {16}, rng));
  }
  const auto keep = ts;
  ShardingOptions sh;
  sh.max_shard_bytes = 150;  // two 64-byte tensors a shard
  REQUIRE(write_checkpoint(dir.path(), ts, {}, sh).ok());
  CHECK(dir.entries() == std::vector<std::string>{"model-00001-of-00004.safetensors", "model-00002-of-00004.safetensors",
                                                  "model-00003-of-00004.safetensors", "model-00004-of-00004.safetensors",
                                                  "model.safetensors.index.json"});
  Checkpoint c;
  REQUIRE(Checkpoint::open(dir.path(), c).ok());
  CHECK(c.size() == 7);
  CHECK(c.shards().size() == 4);
  for (const auto& t : keep) CHECK(same_bytes(c.find(t.spec.name).bytes, t.pieces[0]));

  SUBCASE("rewriting the directory as a single file retires the old index") {
    std::vector<OutputTensor> one{keep[3]};
    REQUIRE(write_checkpoint(dir.path(), one).ok());
    Checkpoint single;
    REQUIRE(Checkpoint::open(dir.path(), single).ok());
    CHECK(single.size() == 1);
    CHECK(same_bytes(single.find("t3").bytes, keep[3].pieces[0]));
  }
  SUBCASE("an index naming a tensor its shard lacks is refused") {
    fusekit::test::write_file(dir / "model.safetensors.index.json",
                              R"({"weight_map":{"t0":"model-00001-of-00004.safetensors","t9":"model-00001-of-00004.safetensors"}})");
    Status s = Checkpoint::open(dir.path(), c);
    CHECK(s.code() == Errc::bad_format);
    CHECK(s.message().find("\"t9\"") != std::string::npos);
  }
  SUBCASE("a shard tensor missing from the index is refused") {
    fusekit::test::write_file(dir / "model.safetensors.index.json",
                              R"({"weight_map":{"t0":"model-00001-of-00004.safetensors"}})");
    Status s = Checkpoint::open(dir.path(), c);
    CHECK(s.message().find("holds \"t1\", which the index does not list") != std::string::npos);
  }
  SUBCASE("an index pointing outside its directory is refused") {
    fusekit::test::write_file(dir / "model.safetensors.index.json", R"({"weight_map":{"t0":"../x.safetensors"}})");
    CHECK(Checkpoint::open(dir.path(), c).message().find("not a file beside the index") != std::string::npos);
  }
}

TEST_CASE("writer: a tensor name or metadata that is not UTF-8 is refused before anything exists") {
  std::mt19937_64 rng(fusekit::test::fresh_seed());
  TempDir dir;
  std::vector<OutputTensor> good;
  good.push_back(buffer_tensor("x", TensorDType::F32, {2}, rng));
  // Truncated, stray continuation, overlong '/', a UTF-16 surrogate, above U+10FFFF, bare 0xFF.
  for (const std::string bad : {"bad\xE2\x82", "bad\x80", "bad\xC0\xAF", "bad\xED\xA0\x80", "bad\xF4\x90\x80\x80", "bad\xFF"}) {
    CAPTURE(fusekit::checkpoint::detail::printable(bad));
    std::vector<OutputTensor> named = good;
    named[0].spec.name = bad;
    Status s = write_checkpoint(dir / "out", named);
    CHECK(s.code() == Errc::bad_argument);
    CHECK(s.message().find("is not valid UTF-8") != std::string::npos);
    s = write_checkpoint(dir / "out", good, {{"format", "pt"}, {"note", bad}});
    CHECK(s.code() == Errc::bad_argument);
    CHECK(s.message().find("metadata value of \"note\"") != std::string::npos);
    CHECK(write_safetensors_file(dir / "one.safetensors", good, {{bad, "v"}}).code() == Errc::bad_argument);
    CHECK(write_safetensors_file(dir / "one.safetensors", named).code() == Errc::bad_argument);
  }
  CHECK(dir.entries().empty());  // not even the output folder
  // Multi-byte characters that are valid stay accepted.
  std::vector<OutputTensor> named = good;
  named[0].spec.name = "caf\xC3\xA9.\xE2\x82\xAC.\xF0\x9F\x98\x80";
  REQUIRE(write_checkpoint(dir / "out", named, {{"note", "\xE2\x82\xAC"}}).ok());
  Checkpoint c;
  REQUIRE(Checkpoint::open(dir / "out", c).ok());
  CHECK(c.find(named[0].spec.name).spec != nullptr);
  CHECK(c.metadata() == Metadata{{"note", "\xE2\x82\xAC"}});
}

TEST_CASE("sharded checkpoint: a write that fails leaves no folder it created") {
  std::mt19937_64 rng(fusekit::test::fresh_seed());
  TempDir dir;
  std::vector<OutputTensor> ts;
  ts.push_back(buffer_tensor("a", TensorDType::F32, {4}, rng));
  ShardingOptions sh;
  sh.prefix = "no_such_folder/model";  // the shard's temporary cannot be created: fails after the folder is made
  Status s = write_checkpoint(dir / "new/deeper", ts, {}, sh);
  CHECK(s.code() == Errc::io_error);
  CHECK(dir.entries().empty());  // neither new/deeper nor new
  // A folder that was there before stays.
  std::filesystem::create_directory(dir / "old");
  CHECK(!write_checkpoint(dir / "old/deeper", ts, {}, sh).ok());
  CHECK(dir.entries() == std::vector<std::string>{"old"});
  CHECK(std::filesystem::is_empty(dir / "old"));
}

TEST_CASE("sharded checkpoint: a rename that fails undoes the renames before it") {
  std::mt19937_64 rng(fusekit::test::fresh_seed());
  TempDir dir;
  auto three = [&] {
    std::vector<OutputTensor> ts;
    for (const char* name : {"t0", "t1", "t2"}) ts.push_back(buffer_tensor(name, TensorDType::F32, {16}, rng));
    return ts;
  };
  ShardingOptions sh;
  sh.max_shard_bytes = 64;  // one tensor a shard
  const auto old_tensors = three();
  REQUIRE(write_checkpoint(dir.path(), old_tensors, {}, sh).ok());
  // The second shard's name taken by a folder: renaming the new shard 2 over it fails after
  // shard 1 was renamed over the old shard 1.
  const std::string second = dir / "model-00002-of-00003.safetensors";
  std::filesystem::remove(second);
  std::filesystem::create_directory(second);
  const auto before = dir.entries();

  Status s = write_checkpoint(dir.path(), three(), {}, sh);
  CHECK(s.code() == Errc::io_error);
  CHECK(s.message().find("model-00002-of-00003.safetensors") != std::string::npos);
  CHECK(dir.entries() == before);  // no temporary, no backup left
  SafetensorsFile first;
  REQUIRE(SafetensorsFile::open(dir / "model-00001-of-00003.safetensors", first).ok());
  CHECK(same_bytes(first.find("t0").bytes, old_tensors[0].pieces[0]));  // the old shard 1 is back
}
