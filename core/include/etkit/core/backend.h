#pragma once
/// @file
/// Delegate backends: a program's DelegateCall runs a blob that a backend
/// (XNNPACK, QNN, …) prepared ahead of time.

#include <string>
#include <unordered_map>
#include <vector>

#include "etkit/core/byte_span.h"
#include "etkit/core/result.h"
#include "etkit/core/span.h"
#include "etkit/core/value.h"

namespace etkit {

class EventTracer;
class FlatTensor;
class KernelRegistry;
class Program;

struct CompileSpec {
  std::string key;
  ByteSpan value;
};

/// What a backend may use while preparing a delegate. Borrowed pointers,
/// valid for the method's lifetime.
struct BackendInitContext {
  const Program* program = nullptr;
  /// External data files (.ptd) searched after the program's named data.
  Span<const FlatTensor* const> data_files;
  /// Portable kernels, for nodes a backend cannot run itself.
  const KernelRegistry* kernels = nullptr;
  /// A tracer was given at load: prepare to report per-node events.
  bool tracing = false;
  const char* method_name = "";
};

/// Named data by key: the program's entries, then each data file's.
Result<ByteSpan> find_named_data(const BackendInitContext& context, const std::string& key);

/// What a backend may use while executing: the tracer for its own events.
struct BackendExecutionContext {
  EventTracer* tracer = nullptr;  ///< Null when tracing is off.
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual bool is_available() const = 0;
  /// Prepares `processed` (valid as long as the program) and returns an
  /// opaque handle passed to execute and destroy.
  virtual Result<void*> init(const BackendInitContext& context, ByteSpan processed,
                             Span<const CompileSpec> specs) = 0;
  /// Runs the delegate; `args` are its inputs followed by its outputs.
  virtual Status execute(BackendExecutionContext& context, void* handle,
                         Span<Value*> args) = 0;
  virtual void destroy(void* handle) = 0;
  /// Events one execute() of `handle` reports to a tracer (its own
  /// delegate events, values included when `with_values`), so callers can
  /// size a tracer's buffer.
  virtual size_t trace_events_per_execute(void* handle, bool with_values) const {
    (void)handle;
    (void)with_values;
    return 0;
  }
};

/// Backends by id ("XnnpackBackend", "QnnBackend"). Borrowed pointers: the
/// registry does not own the backends.
class BackendRegistry {
 public:
  void add(const std::string& id, Backend* backend) { backends_[id] = backend; }
  Backend* find(const std::string& id) const {
    auto it = backends_.find(id);
    return it == backends_.end() ? nullptr : it->second;
  }

 private:
  std::unordered_map<std::string, Backend*> backends_;
};

}  // namespace etkit
