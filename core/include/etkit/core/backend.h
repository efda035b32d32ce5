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

struct CompileSpec {
  std::string key;
  ByteSpan value;
};

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
  virtual Result<void*> init(ByteSpan processed, Span<const CompileSpec> specs) = 0;
  /// Runs the delegate; `args` are its inputs followed by its outputs.
  virtual Status execute(BackendExecutionContext& context, void* handle,
                         Span<Value*> args) = 0;
  virtual void destroy(void* handle) = 0;
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
