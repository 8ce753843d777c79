// benchmark/audit/sha256.hpp: SHA-256 (OpenSSL EVP) of bytes and of files, as lowercase hex.
#pragma once

#include <openssl/evp.h>

#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

namespace fusekit::audit {

class Sha256 {
 public:
  Sha256() : ctx_(EVP_MD_CTX_new(), EVP_MD_CTX_free) {
    if (!ctx_ || EVP_DigestInit_ex(ctx_.get(), EVP_sha256(), nullptr) != 1)
      throw std::runtime_error("OpenSSL: cannot initialise SHA-256");
  }
  void update(std::string_view bytes) {
    if (EVP_DigestUpdate(ctx_.get(), bytes.data(), bytes.size()) != 1) throw std::runtime_error("OpenSSL: SHA-256 update failed");
  }
  std::string hex() {
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    if (EVP_DigestFinal_ex(ctx_.get(), digest, &len) != 1) throw std::runtime_error("OpenSSL: SHA-256 final failed");
    static constexpr char kHex[] = "0123456789abcdef";
    std::string out;
    for (unsigned int i = 0; i < len; ++i) {
      out += kHex[digest[i] >> 4];
      out += kHex[digest[i] & 15];
    }
    return out;
  }

 private:
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx_;
};

inline std::string sha256_hex(std::string_view bytes) {
  Sha256 h;
  h.update(bytes);
  return h.hex();
}

// Throws std::runtime_error when the file cannot be read.
inline std::string sha256_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  Sha256 h;
  char buf[1 << 16];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) h.update(std::string_view(buf, static_cast<std::size_t>(in.gcount())));
  if (in.bad()) throw std::runtime_error("error while reading " + path);
  return h.hex();
}

}  // namespace fusekit::audit
