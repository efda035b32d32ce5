#include "npy_io.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

namespace etkit::device {
namespace {

struct Descr {
  const char* text;
  ScalarType type;
};
constexpr Descr kDescrs[] = {
    {"<f4", ScalarType::kFloat}, {"<f8", ScalarType::kDouble}, {"<f2", ScalarType::kHalf},
    {"<i8", ScalarType::kLong},  {"<i4", ScalarType::kInt},    {"<i2", ScalarType::kShort},
    {"|i1", ScalarType::kChar},  {"|u1", ScalarType::kByte},   {"|b1", ScalarType::kBool},
};

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
using File = std::unique_ptr<std::FILE, FileCloser>;

// The value text after `'key':` in the header dict.
std::string header_value(const std::string& header, const char* key) {
  const size_t at = header.find(std::string("'") + key + "'");
  if (at == std::string::npos) return {};
  size_t start = header.find(':', at);
  if (start == std::string::npos) return {};
  ++start;
  while (start < header.size() && header[start] == ' ') ++start;
  size_t end = start;
  if (end < header.size() && header[end] == '(') {
    end = header.find(')', end);
    return end == std::string::npos ? std::string() : header.substr(start + 1, end - start - 1);
  }
  while (end < header.size() && header[end] != ',' && header[end] != '}') ++end;
  return header.substr(start, end - start);
}

Status parse_header(const std::string& path, const std::string& header, NpyTensor& out) {
  const std::string descr = header_value(header, "descr");
  bool known = false;
  for (const Descr& d : kDescrs) {
    if (descr == std::string("'") + d.text + "'") {
      out.dtype = d.type;
      known = true;
    }
  }
  if (!known) return Error::make(ErrorCode::kUnsupported, "%s: unsupported dtype %s", path.c_str(), descr.c_str());
  if (header_value(header, "fortran_order") != "False") {
    return Error::make(ErrorCode::kUnsupported, "%s: only C-order arrays are supported", path.c_str());
  }
  const std::string shape = header_value(header, "shape");
  for (size_t i = 0; i < shape.size();) {
    while (i < shape.size() && (shape[i] == ' ' || shape[i] == ',')) ++i;
    if (i >= shape.size()) break;
    char* end = nullptr;
    const long long v = std::strtoll(shape.c_str() + i, &end, 10);
    if (end == shape.c_str() + i || v < 0) {
      return Error::make(ErrorCode::kMalformed, "%s: bad shape (%s)", path.c_str(), shape.c_str());
    }
    out.shape.push_back(v);
    i = size_t(end - shape.c_str());
  }
  return Ok{};
}

}  // namespace

Result<NpyTensor> read_npy(const std::string& path) {
  File f(std::fopen(path.c_str(), "rb"));
  if (!f) return Error::make(ErrorCode::kIo, "%s: cannot open: %s", path.c_str(), std::strerror(errno));
  uint8_t preamble[10];
  if (std::fread(preamble, 1, 10, f.get()) != 10 || std::memcmp(preamble, "\x93NUMPY", 6) != 0 || preamble[6] != 1) {
    return Error::make(ErrorCode::kMalformed, "%s: not a version 1 .npy file", path.c_str());
  }
  const size_t header_length = size_t(preamble[8]) | (size_t(preamble[9]) << 8);
  std::string header(header_length, '\0');
  if (std::fread(header.data(), 1, header_length, f.get()) != header_length) {
    return Error::make(ErrorCode::kTruncated, "%s: header cut short", path.c_str());
  }
  NpyTensor out;
  ETKIT_TRY(parse_header(path, header, out));
  int64_t numel = 1;
  for (int64_t d : out.shape) numel *= d;
  out.data.resize(size_t(numel) * element_size(out.dtype));
  if (std::fread(out.data.data(), 1, out.data.size(), f.get()) != out.data.size()) {
    return Error::make(ErrorCode::kTruncated, "%s: holds fewer than %lld values", path.c_str(), (long long)numel);
  }
  return out;
}

Status write_npy(const std::string& path, const Tensor& t) {
  const char* descr = nullptr;
  for (const Descr& d : kDescrs) {
    if (d.type == t.scalar_type()) descr = d.text;
  }
  if (descr == nullptr) {
    return Error::make(ErrorCode::kUnsupported, "%s: cannot write %s values", path.c_str(), to_string(t.scalar_type()));
  }
  std::string header = std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': (";
  for (int d = 0; d < t.dim(); ++d) header += (d > 0 ? ", " : "") + std::to_string(t.size(d));
  if (t.dim() == 1) header += ",";
  header += "), }";
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  File f(std::fopen(path.c_str(), "wb"));
  if (!f) return Error::make(ErrorCode::kIo, "%s: cannot write: %s", path.c_str(), std::strerror(errno));
  const uint8_t preamble[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, uint8_t(header.size()), uint8_t(header.size() >> 8)};
  bool ok = std::fwrite(preamble, 1, 10, f.get()) == 10 && std::fwrite(header.data(), 1, header.size(), f.get()) == header.size();
  // Logical C order: walk the logical index, read through the strides.
  const size_t width = t.element_size();
  const auto* base = static_cast<const uint8_t*>(t.data());
  int64_t index[kMaxRank] = {};
  for (int64_t i = 0; i < t.numel() && ok; ++i) {
    int64_t offset = 0;
    for (int d = 0; d < t.dim(); ++d) offset += index[d] * t.stride(d);
    ok = std::fwrite(base + size_t(offset) * width, 1, width, f.get()) == width;
    for (int d = t.dim() - 1; d >= 0; --d) {
      if (++index[d] < t.size(d)) break;
      index[d] = 0;
    }
  }
  if (!ok || std::fflush(f.get()) != 0) {
    return Error::make(ErrorCode::kIo, "%s: cannot write: %s", path.c_str(), std::strerror(errno));
  }
  return Ok{};
}

}  // namespace etkit::device
