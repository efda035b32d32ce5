#include "intermediates_dir.h"

#include <cstring>
#include <filesystem>

#include "etkit/core/atomic_file.h"
#include "etkit/core/file_data.h"
#include "etkit/core/tensor.h"
#include "etkit/etdump/etdump_reader.h"
#include "etkit/inspector/npy.h"
#include "etkit/inspector/gap_report.h"
#include "etkit/inspector/numeric_gap.h"

namespace etkit::cli {
namespace {

// The values back in their dtype (the reader widened them to double, which
// every dtype below round-trips exactly); float16 and bfloat16 as float32.
Result<std::vector<uint8_t>> npy_of(const inspector::RecordedOutput& output) {
  ScalarType type = output.dtype;
  if (type == ScalarType::kHalf || type == ScalarType::kBFloat16) type = ScalarType::kFloat;
  std::vector<uint8_t> bytes(output.values.size() * 8);
  auto store = [&](auto sample) {
    using T = decltype(sample);
    for (size_t i = 0; i < output.values.size(); ++i) {
      const T value = static_cast<T>(output.values[i]);
      std::memcpy(bytes.data() + i * sizeof(T), &value, sizeof(T));
    }
    bytes.resize(output.values.size() * sizeof(T));
  };
  switch (type) {
    case ScalarType::kDouble: store(double{}); break;
    case ScalarType::kLong: store(int64_t{}); break;
    case ScalarType::kInt: store(int32_t{}); break;
    case ScalarType::kShort: store(int16_t{}); break;
    case ScalarType::kChar: store(int8_t{}); break;
    case ScalarType::kByte: store(uint8_t{}); break;
    case ScalarType::kBool: store(bool{}); break;
    default:
      type = ScalarType::kFloat;
      store(float{});
  }
  ETKIT_ASSIGN_OR_RETURN(Tensor tensor, Tensor::make(type, Span<const int64_t>(output.sizes.data(), output.sizes.size()),
                                                     {}, bytes.data(), bytes.size()));
  return inspector::encode_npy(tensor);
}

std::string file_name(const inspector::RecordedOutput& output) {
  std::string name = std::to_string(output.instruction_id);
  if (output.delegate_debug_id >= 0) name += ".delegate" + std::to_string(output.delegate_debug_id);
  else if (output.output_index > 0) name += ".out" + std::to_string(output.output_index);
  return name + ".npy";
}

}  // namespace

Result<size_t> save_intermediates(const std::string& etdump, const std::string& debug_buffer, const std::string& dir) {
  ETKIT_ASSIGN_OR_RETURN(etdump::ETDump trace, etdump::ETDump::load_file(etdump));
  ETKIT_ASSIGN_OR_RETURN(std::shared_ptr<const FileData> buffer, FileData::load(debug_buffer));
  ETKIT_ASSIGN_OR_RETURN(std::vector<inspector::RecordedOutput> outputs,
                         inspector::recorded_outputs(trace, buffer->bytes()));
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) return Error::make(ErrorCode::kIo, "--save-intermediates %s: %s", dir.c_str(), error.message().c_str());
  size_t written = 0;
  for (size_t i = 0; i < outputs.size(); ++i) {
    // A delegate node logs several values (an entry transpose, then its
    // result): its last one is the node's.
    if (outputs[i].delegate_debug_id >= 0 && !inspector::is_compared_output(outputs, i)) continue;
    ETKIT_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, npy_of(outputs[i]));
    const std::string path = (std::filesystem::path(dir) / file_name(outputs[i])).string();
    ETKIT_TRY(write_file_atomically(path, ByteSpan{bytes.data(), bytes.size()}));
    ++written;
  }
  return written;
}

}  // namespace etkit::cli
