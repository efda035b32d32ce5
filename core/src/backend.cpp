#include "etkit/core/backend.h"

#include "etkit/core/flat_tensor.h"
#include "etkit/core/program.h"

namespace etkit {

Result<ByteSpan> find_named_data(const BackendInitContext& context, const std::string& key) {
  if (context.program != nullptr) {
    auto found = context.program->named_data(key);
    if (found.ok()) return found;
  }
  for (const FlatTensor* file : context.data_files) {
    if (const NamedTensorData* entry = file->find(key)) return entry->data;
  }
  return Error::make(ErrorCode::kNotFound,
                     "no named data '%s' in the program or its %zu data file(s)", key.c_str(),
                     context.data_files.size());
}

}  // namespace etkit
