#include "etkit/inspector/recorded_outputs_file.h"

#include <memory>

#include "etkit/core/file_data.h"
#include "etkit/etdump/etdump_reader.h"
#include "etkit/inspector/delegate_values.h"

namespace etkit::inspector {

Result<std::vector<RecordedOutput>> load_recorded_outputs(const std::string& trace_path,
                                                          const std::string& buffer_path,
                                                          std::optional<size_t> block, const Program* program,
                                                          const std::string& program_name,
                                                          const std::string& method,
                                                          std::vector<std::string>& warnings) {
  ETKIT_ASSIGN_OR_RETURN(etdump::ETDump trace, etdump::ETDump::load_file(trace_path));
  ETKIT_ASSIGN_OR_RETURN(std::shared_ptr<const FileData> buffer, FileData::load(buffer_path));
  if (block && trace.block_count() == 0) {
    return Error::make(ErrorCode::kOutOfRange, "run block %zu: %s has no run blocks", *block, trace_path.c_str());
  }
  if (block && *block >= trace.block_count()) {
    return Error::make(ErrorCode::kOutOfRange, "run block %zu: %s has %zu run blocks (allowed: 0 to %zu)", *block,
                       trace_path.c_str(), trace.block_count(), trace.block_count() - 1);
  }
  auto outputs = block ? recorded_outputs(trace, buffer->bytes(), *block) : recorded_outputs(trace, buffer->bytes());
  if (!outputs.ok()) return outputs.error().with_context("%s", buffer_path.c_str());
  if (program != nullptr && !outputs->empty()) {
    for (const std::string& warning : decode_delegate_outputs(*program, method, *outputs)) {
      warnings.push_back(program_name + ": " + warning);
    }
  }
  return outputs;
}

}  // namespace etkit::inspector
