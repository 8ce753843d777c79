// libFuzzer target for the safetensors validator: any bytes must give either an error or a
// header whose every tensor lies inside the data section, sized by its shape and dtype, with
// the tensors tiling the data exactly. The reader runs this same validator on its mapping.
#include "fusekit/checkpoint/safetensors_header.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>

using namespace fusekit::checkpoint;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::byte> file(reinterpret_cast<const std::byte*>(data), size);
  SafetensorsHeader h;
  if (!parse_safetensors_header(file, h).ok()) return 0;

  if (h.data_start < 8 || h.data_start > size) std::abort();
  const std::uint64_t data_bytes = size - h.data_start;
  std::uint64_t expected = 0;
  unsigned sum = 0;
  for (const TensorInfo& t : h.tensors) {
    const auto bytes = byte_size(t.spec.dtype, t.spec.shape);
    if (!bytes || t.begin != expected || t.end - t.begin != *bytes || t.end > data_bytes) std::abort();
    // Touch the tensor's bytes so AddressSanitizer sees every read a user of the view would make.
    for (std::uint64_t i = t.begin; i < t.end; ++i) sum += data[h.data_start + i];
    expected = t.end;
  }
  if (expected != data_bytes) std::abort();
  return static_cast<int>(sum & 0);
}
