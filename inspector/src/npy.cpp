#include "etkit/inspector/npy.h"

#include <cstring>
#include <fstream>
#include <iterator>

#include "etkit/core/atomic_file.h"
#include "etkit/core/checked_size.h"
#include "etkit/core/file_data.h"

namespace etkit::inspector {
namespace {

struct DtypeName {
  const char* descr;  // without the byte-order character
  ScalarType type;
};

// NumPy type strings (after '<', '|' or '=') for etkit's scalar types.
constexpr DtypeName kDtypes[] = {
    {"f4", ScalarType::kFloat}, {"f8", ScalarType::kDouble}, {"f2", ScalarType::kHalf},
    {"i1", ScalarType::kChar},  {"i2", ScalarType::kShort},  {"i4", ScalarType::kInt},
    {"i8", ScalarType::kLong},  {"u1", ScalarType::kByte},   {"b1", ScalarType::kBool},
    {"u2", ScalarType::kUInt16}, {"u4", ScalarType::kUInt32}, {"u8", ScalarType::kUInt64},
};

// Finds `'key': value` in the header dict and returns the value text.
bool header_value(const std::string& header, const std::string& key, std::string& value) {
  const size_t at = header.find("'" + key + "'");
  if (at == std::string::npos) return false;
  size_t start = header.find(':', at);
  if (start == std::string::npos) return false;
  ++start;
  while (start < header.size() && header[start] == ' ') ++start;
  size_t end = start;
  if (start < header.size() && header[start] == '(') {
    end = header.find(')', start);
    if (end == std::string::npos) return false;
    ++end;
  } else if (start < header.size() && header[start] == '\'') {
    end = header.find('\'', start + 1);
    if (end == std::string::npos) return false;
    ++end;
  } else {
    while (end < header.size() && header[end] != ',' && header[end] != '}') ++end;
  }
  value = header.substr(start, end - start);
  return true;
}

}  // namespace

int64_t NpyArray::numel() const {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return n;
}

Result<Tensor> NpyArray::view() {
  return Tensor::make(dtype, Span<const int64_t>(shape.data(), shape.size()), {}, data.data(), data.size());
}

namespace {

// Shape: "(2, 3)", "(5,)" or "()".
Status parse_shape(const std::string& shape_text, const char* label, std::vector<int64_t>& dims, CheckedShape& shape) {
  for (size_t i = 1; i + 1 < shape_text.size();) {
    while (i + 1 < shape_text.size() && (shape_text[i] == ' ' || shape_text[i] == ',')) ++i;
    if (i + 1 >= shape_text.size()) break;
    char* end = nullptr;
    const long long dim = std::strtoll(shape_text.c_str() + i, &end, 10);
    if (end == shape_text.c_str() + i || dim < 0 || dims.size() >= kMaxRank) {
      return Error::make(ErrorCode::kMalformed, "%s: bad shape %s", label, shape_text.c_str());
    }
    if (!shape.add(dim).ok()) {
      return Error::make(ErrorCode::kMalformed, "%s: shape %s is too large", label, shape_text.c_str());
    }
    dims.push_back(dim);
    i = size_t(end - shape_text.c_str());
  }
  return Ok{};
}

// Where the header is: its start and length, by format version.
Status header_span(const uint8_t* bytes, size_t size, const char* label, size_t& start, size_t& length) {
  if (size < 10 || std::memcmp(bytes, "\x93NUMPY", 6) != 0) {
    return Error::make(ErrorCode::kMalformed, "%s: not a .npy file (no \\x93NUMPY magic)", label);
  }
  const uint8_t major = bytes[6];
  if (major == 1) {
    length = bytes[8] | size_t(bytes[9]) << 8;
    start = 10;
  } else if (major == 2 || major == 3) {
    if (size < 12) {
      return Error::make(ErrorCode::kTruncated, "%s: .npy header is cut off", label);
    }
    length = load_u32_le(bytes + 8);
    start = 12;
  } else {
    return Error::make(ErrorCode::kUnsupported, "%s: .npy format version %d", label, major);
  }
  if (length > size - start) {
    return Error::make(ErrorCode::kTruncated, "%s: .npy header of %zu bytes runs past the end", label, length);
  }
  return Ok{};
}

// The dtype a header's descr ('<f4') names: C order, little-endian or
// single-byte elements only.
Result<ScalarType> descr_dtype(const std::string& descr, const std::string& fortran, const char* label) {
  if (fortran != "False") {
    return Error::make(ErrorCode::kUnsupported,
                       "%s: Fortran-order arrays are not supported (save with "
                       "np.ascontiguousarray)",
                       label);
  }
  if (descr.size() < 4 || descr.front() != '\'' || descr.back() != '\'') {
    return Error::make(ErrorCode::kUnsupported, "%s: dtype %s is not a plain numeric dtype", label,
                       descr.c_str());
  }
  const char order = descr[1];
  const std::string code = descr.substr(2, descr.size() - 3);
  for (const DtypeName& d : kDtypes) {
    if (code != d.descr) continue;
    if (order == '>' && element_size(d.type) > 1) {
      return Error::make(ErrorCode::kUnsupported, "%s: big-endian arrays are not supported", label);
    }
    return d.type;
  }
  return Error::make(ErrorCode::kUnsupported, "%s: dtype %s has no etkit equivalent", label, descr.c_str());
}

}  // namespace

Result<NpyArray> parse_npy(const uint8_t* bytes, size_t size, const std::string& name) {
  const char* label = name.c_str();
  size_t header_start = 0, header_length = 0;
  ETKIT_TRY(header_span(bytes, size, label, header_start, header_length));
  const std::string header(reinterpret_cast<const char*>(bytes + header_start), header_length);
  std::string descr, fortran, shape_text;
  if (!header_value(header, "descr", descr) || !header_value(header, "fortran_order", fortran) ||
      !header_value(header, "shape", shape_text)) {
    return Error::make(ErrorCode::kMalformed, "%s: .npy header lacks descr, fortran_order or shape",
                       label);
  }
  NpyArray array;
  ETKIT_ASSIGN_OR_RETURN(array.dtype, descr_dtype(descr, fortran, label));
  CheckedShape shape;
  ETKIT_TRY(parse_shape(shape_text, label, array.shape, shape));
  auto checked = shape.nbytes(element_size(array.dtype));
  if (!checked.ok()) return checked.error().with_context("%s", label);
  const uint64_t nbytes = *checked;
  const size_t data_start = header_start + header_length;
  if (nbytes > size - data_start) {
    return Error::make(ErrorCode::kTruncated, "%s: %llu data bytes expected, %zu present", label,
                       static_cast<unsigned long long>(nbytes), size - data_start);
  }
  array.data.assign(bytes + data_start, bytes + data_start + nbytes);
  return array;
}

Result<NpyArray> read_npy(const std::string& path) {
  ETKIT_ASSIGN_OR_RETURN(auto file, FileData::load(path));
  return parse_npy(file->bytes().data, file->bytes().size, path);
}

Result<std::vector<uint8_t>> encode_npy(const Tensor& tensor) {
  ScalarType type = tensor.scalar_type();
  const char* code = nullptr;
  for (const DtypeName& d : kDtypes) {
    if (d.type == type) code = d.descr;
  }
  const bool widen_bf16 = type == ScalarType::kBFloat16;
  if (widen_bf16) code = "f4";
  if (code == nullptr) {
    return Error::make(ErrorCode::kUnsupported, "no NumPy dtype for %s", to_string(type));
  }
  std::string shape = "(";
  for (int d = 0; d < tensor.dim(); ++d) {
    shape += std::to_string(tensor.size(d)) + (tensor.dim() == 1 ? ",)" : d + 1 < tensor.dim() ? ", " : ")");
  }
  if (tensor.dim() == 0) shape += ")";
  const char order = element_size(type) == 1 ? '|' : '<';
  std::string header = std::string("{'descr': '") + order + code +
                       "', 'fortran_order': False, 'shape': " + shape + ", }";
  // Pad so data starts at a multiple of 64, newline-terminated.
  const size_t unpadded = 10 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header += '\n';
  std::vector<uint8_t> out = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0,
                              uint8_t(header.size() & 0xff), uint8_t(header.size() >> 8)};
  out.insert(out.end(), header.begin(), header.end());
  // C-order walk of the tensor's logical indices.
  const size_t size = tensor.element_size();
  const auto* src = static_cast<const uint8_t*>(tensor.data());
  int64_t index[kMaxRank] = {};
  for (int64_t n = 0; n < tensor.numel(); ++n) {
    int64_t offset = 0;
    for (int d = 0; d < tensor.dim(); ++d) offset += index[d] * tensor.stride(d);
    const uint8_t* element = src + offset * int64_t(size);
    if (widen_bf16) {
      uint32_t bits = uint32_t(element[0] | element[1] << 8) << 16;
      const auto* p = reinterpret_cast<const uint8_t*>(&bits);
      out.insert(out.end(), p, p + 4);
    } else {
      out.insert(out.end(), element, element + size);
    }
    for (int d = tensor.dim() - 1; d >= 0; --d) {
      if (++index[d] < tensor.size(d)) break;
      index[d] = 0;
    }
  }
  return out;
}

Status write_npy(const std::string& path, const Tensor& tensor) {
  ETKIT_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, encode_npy(tensor));
  return write_file_atomically(path, ByteSpan{bytes.data(), bytes.size()});
}

}  // namespace etkit::inspector
