// The safetensors reader: zero-copy views of valid files, and one malformed file per rule of
// the format, each refused with its own message.
#include <doctest/doctest.h>

#include "checkpoint/temp_dir.hpp"
#include "fusekit/checkpoint/safetensors_reader.hpp"
#include "support/gpu.hpp"

#include <cstring>
#include <random>
#include <string>

using namespace fusekit;
using namespace fusekit::checkpoint;
using fusekit::test::safetensors_bytes;
using fusekit::test::TempDir;

namespace {

Status open_bytes(const TempDir& dir, const std::string& bytes) {
  const std::string path = dir / "case.safetensors";
  fusekit::test::write_file(path, bytes);
  SafetensorsFile f;
  return SafetensorsFile::open(path, f);
}

// The message of the error `bytes` gives, or "ok".
std::string error_of(const std::string& json, const std::string& data, std::int64_t header_len = -1) {
  TempDir dir;
  Status s = open_bytes(dir, safetensors_bytes(json, data, header_len));
  if (!s.ok()) CHECK(s.code() == Errc::bad_format);
  CHECK(dir.entries() == std::vector<std::string>{"case.safetensors"});  // the reader writes nothing
  return s.ok() ? "ok" : s.message();
}

}  // namespace

TEST_CASE("reader: views point into the file, unaligned data and space padding accepted") {
  std::mt19937_64 rng(fusekit::test::fresh_seed());
  const std::string a = fusekit::test::random_bytes(2 * 3 * 2, rng);  // BF16 [2, 3]
  const std::string b = fusekit::test::random_bytes(5 * 4, rng);      // F32 [5]
  const std::string c;                                                // I64 [0, 4]: empty
  // A 1-byte odd header pad makes every tensor start at an odd file offset.
  std::string json = R"({"__metadata__":{"format":"pt"},"b":{"dtype":"F32","shape":[5],"data_offsets":[12,32]},)"
                     R"("c":{"dtype":"I64","shape":[0,4],"data_offsets":[32,32]},)"
                     R"("a":{"dtype":"BF16","shape":[2,3],"data_offsets":[0,12]}}   )";
  if (json.size() % 2 == 0) json += ' ';
  TempDir dir;
  const std::string path = dir / "ok.safetensors";
  fusekit::test::write_file(path, safetensors_bytes(json, a + b + c));

  SafetensorsFile f;
  REQUIRE(SafetensorsFile::open(path, f).ok());
  REQUIRE(f.size() == 3);
  CHECK(f.header().metadata == Metadata{{"format", "pt"}});
  TensorView va = f.find("a"), vb = f.find("b"), vc = f.find("c");
  REQUIRE((va.spec && vb.spec && vc.spec));
  CHECK(f.find("missing").spec == nullptr);
  CHECK(va.spec->dtype == TensorDType::BF16);
  CHECK(va.spec->shape == Shape{2, 3});
  CHECK(vc.spec->shape == Shape{0, 4});
  CHECK(std::memcmp(va.bytes.data(), a.data(), a.size()) == 0);
  CHECK(std::memcmp(vb.bytes.data(), b.data(), b.size()) == 0);
  CHECK(vc.bytes.empty());
  CHECK(va.file_offset == 8 + json.size());
  CHECK(va.file_offset % 2 == 1);  // unaligned
  CHECK(vb.bytes.data() == va.bytes.data() + 12);  // zero-copy: consecutive in the mapping
  CHECK(f.view(0).spec->name == "a");              // file order is data order
}

TEST_CASE("reader: an empty header with no tensors is a valid file") {
  CHECK(error_of("{}", "") == "ok");
  CHECK(error_of("{}      ", "") == "ok");
}

TEST_CASE("reader: a file shorter than 8 bytes") {
  TempDir dir;
  Status s = open_bytes(dir, "1234567");
  CHECK(s.code() == Errc::bad_format);
  CHECK(s.message().find("fewer than the 8-byte header length") != std::string::npos);
}

TEST_CASE("reader: one malformed file per rule, each with its own error") {
  // A header for tensor "t" with the given dtype, shape and data_offsets JSON.
  auto tensor = [](const std::string& dtype, const std::string& shape, const std::string& offsets) {
    return R"("t":{"dtype":")" + dtype + R"(","shape":)" + shape + R"(,"data_offsets":)" + offsets + "}";
  };
  const std::string t = tensor("F32", "[2]", "[0,8]");
  const std::string data8 = "12345678";
  auto obj = [](const std::string& body) { return "{" + body + "}"; };
  struct Case {
    const char* rule;
    std::string json, data;
    std::int64_t header_len;  // -1: the true length
    const char* error;
  };
  const std::vector<Case> cases = {
      {"header length over 100 MB", obj(t), data8, 100'000'001, "exceeds the limit"},
      {"header length far over 100 MB", obj(t), data8, INT64_MAX, "exceeds the limit"},
      {"header length past the end", obj(t), data8, 1000, "runs past the end of the file"},
      {"header not an object", "[1, 2]", "", -1, "is not a JSON object"},
      {"header not starting with '{'", " {}", "", -1, "is not a JSON object"},
      {"invalid JSON", R"({"t":)", "", -1, "not valid UTF-8 JSON"},
      {"invalid UTF-8", "{\"\xff\xfe\":{}}", "", -1, "not valid UTF-8 JSON"},
      {"duplicate tensor key", obj(t + "," + t), data8, -1, "duplicate key \"t\""},
      {"duplicate field key", R"({"t":{"dtype":"F32","dtype":"F32","shape":[2],"data_offsets":[0,8]}})", data8, -1,
       "duplicate key \"dtype\""},
      {"metadata value not a string", obj(R"("__metadata__":{"a":1},)" + t), data8, -1,
       "__metadata__ value of \"a\" is not a string"},
      {"metadata not an object", obj(R"("__metadata__":"x",)" + t), data8, -1, "__metadata__ is not a JSON object"},
      {"nesting deeper than the format", obj(tensor("F32", "[[2]]", "[0,8]")), data8, -1, "nests deeper"},
      {"tensor entry not an object", R"({"t":[1]})", "", -1, "tensor \"t\" is not a JSON object"},
      {"unknown dtype", obj(tensor("F4", "[2]", "[0,8]")), data8, -1, "unknown dtype \"F4\""},
      {"missing dtype", R"({"t":{"shape":[2],"data_offsets":[0,8]}})", data8, -1, "has no dtype"},
      {"missing shape", R"({"t":{"dtype":"F32","data_offsets":[0,8]}})", data8, -1, "has no shape"},
      {"missing data_offsets", R"({"t":{"dtype":"F32","shape":[2]}})", data8, -1, "has no data_offsets"},
      {"unknown field", R"({"t":{"dtype":"F32","shape":[2],"data_offsets":[0,8],"x":1}})", data8, -1,
       "unknown field \"x\""},
      {"negative extent", obj(tensor("F32", "[-2]", "[0,8]")), data8, -1, "extent is negative"},
      {"non-integer extent", obj(tensor("F32", "[2.0]", "[0,8]")), data8, -1, "is not an integer"},
      {"byte size overflowing 64 bits", obj(tensor("F32", "[4294967296,4294967296]", "[0,8]")), data8, -1,
       "overflows 64 bits"},
      {"one data offset", obj(tensor("F32", "[2]", "[0]")), data8, -1, "not an array of two"},
      {"offsets reversed", obj(tensor("F32", "[2]", "[8,0]")), data8, -1, "end before they begin"},
      {"negative offset", obj(tensor("F32", "[2]", "[-1,7]")), data8, -1, "negative"},
      {"byte length != shape x dtype", obj(tensor("F32", "[3]", "[0,8]")), data8, -1,
       "has 8 bytes of data, but shape [3] x F32 needs 12"},
      {"offsets not starting at 0", obj(tensor("F32", "[2]", "[4,12]")), data8 + "abcd", -1,
       "starts at 4, expected 0 (gap"},
      {"gap between tensors", obj(t + R"(,"u":{"dtype":"U8","shape":[2],"data_offsets":[10,12]})"), data8 + "abcd", -1,
       "\"u\" data starts at 10, expected 8 (gap"},
      {"overlapping tensors", obj(t + R"(,"u":{"dtype":"U8","shape":[4],"data_offsets":[4,8]})"), data8, -1,
       "expected 8 (overlaps"},
      {"bytes after the last tensor", obj(t), data8 + "x", -1, "tensor data ends at 8, but the data section has 9 bytes"},
      {"file ending inside a tensor", obj(t), "1234", -1, "ends at 8, but the data section has 4 bytes"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.rule);
    const std::string error = error_of(c.json, c.data, c.header_len);
    CAPTURE(error);
    CHECK(error.find(c.error) != std::string::npos);
  }
}

TEST_CASE("reader: a missing file is an I/O error") {
  TempDir dir;
  SafetensorsFile f;
  Status s = SafetensorsFile::open(dir / "absent.safetensors", f);
  CHECK(s.code() == Errc::io_error);
}
