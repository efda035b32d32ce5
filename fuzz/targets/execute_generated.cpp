// Loads and executes tiny generated programs: one kernel call of a
// registered operator, with arguments mostly of the kinds its signature
// declares (sometimes not), random dtypes, shapes and scalars. The tensors
// the kernel reads are method inputs, set from the input's remaining bytes
// as a caller's data would be. Kernels must refuse what they cannot handle
// with an error; an out-of-bounds access or undefined behaviour is a
// finding.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "etkit/core/kernel_registry.h"
#include "etkit/core/method.h"
#include "etkit/core/scalar_type.h"
#include "fuzz_input.h"
#include "support/program_builder.h"
#include "etkit/kernels/all_kernels.h"

namespace {

using etkit::ScalarType;
using etkit::fuzz::Choices;
using etkit::test::ProgramBuilder;

constexpr int64_t kArenaBytes = 1 << 16;
// Every dtype a program can declare that etkit represents: the common
// ones first (picked more often), then complex, unsigned, quantized and
// bit types, which kernels must either handle or refuse.
constexpr ScalarType kDtypes[] = {ScalarType::kFloat, ScalarType::kDouble, ScalarType::kInt,
                                  ScalarType::kLong,  ScalarType::kBool,   ScalarType::kHalf,
                                  ScalarType::kBFloat16, ScalarType::kByte, ScalarType::kChar,
                                  ScalarType::kShort, ScalarType::kComplexFloat, ScalarType::kComplexDouble,
                                  ScalarType::kComplexHalf, ScalarType::kUInt16, ScalarType::kUInt32,
                                  ScalarType::kUInt64, ScalarType::kQInt8, ScalarType::kQUInt8,
                                  ScalarType::kQInt32, ScalarType::kBits16, ScalarType::kBits8};
constexpr size_t kCommonDtypes = 10;
// Sizes: mostly 0..4; sometimes odd and prime ones past a vector width or
// a copy's word (5, 7, 13, 17, 31), where remainder loops live.
constexpr int32_t kOddSizes[] = {5, 7, 13, 17, 31, 3, 1};

const std::vector<std::string>& operator_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> sorted = etkit::all_kernels().names();
    std::sort(sorted.begin(), sorted.end());  // the same input picks the same op
    return sorted;
  }();
  return names;
}

class ArgumentMaker {
 public:
  ArgumentMaker(Choices& choices, ProgramBuilder& builder) : in_(choices), builder_(builder) {}

  /// A value of the kind signature letter `kind` asks for.
  int32_t make(char kind) {
    switch (kind) {
      case 'T': return tensor(true);
      case 'W': return tensor(false);
      case 't': return in_.pick(4) == 0 ? builder_.none() : tensor(true);
      case 'i': return builder_.integer(in_.integer());
      case 'n': return in_.pick(4) == 0 ? builder_.none() : builder_.integer(in_.integer());
      case 'd': return in_.coin() ? builder_.real(in_.real()) : builder_.integer(in_.integer());
      case 'e': return in_.pick(4) == 0 ? builder_.none() : make('d');
      case 'c': return in_.pick(4) == 0 ? builder_.none() : builder_.boolean(in_.coin());
      case 's': case 'o': return scalar(kind == 'o');
      case 'b': return builder_.boolean(in_.coin());
      case 'S': return in_.coin() ? builder_.none() : builder_.string(in_.coin() ? "tanh" : "none");
      case 'I': return int_list();
      case 'J': return in_.pick(4) == 0 ? builder_.none() : int_list();
      case 'L': return tensor_list(true);
      case 'M': return tensor_list(false);
      case 'O': return in_.pick(4) == 0 ? builder_.none() : optional_tensor_list();
      default: return any();
    }
  }

  /// Anything: the wrong kind for the signature, which load must refuse.
  int32_t any() {
    static const char kKinds[] = "TtidsbSIL";
    return make(kKinds[in_.pick(sizeof kKinds - 1)]);
  }

  /// Planned bytes the tensors need.
  int64_t arena_bytes() const { return arena_bytes_; }
  /// Tensors the kernel reads, in the order they become method inputs.
  const std::vector<int32_t>& read_tensors() const { return read_tensors_; }

 private:
  int32_t tensor(bool read) {
    const ScalarType dtype = kDtypes[in_.pick(in_.pick(4) == 0 ? std::size(kDtypes) : kCommonDtypes)];
    const size_t rank = in_.pick(8) < 5 ? in_.pick(3) : in_.pick(6);
    std::vector<int32_t> sizes;
    int64_t numel = 1;
    for (size_t d = 0; d < rank; ++d) {
      int32_t size = static_cast<int32_t>(in_.pick(5));
      if (in_.pick(6) == 0) {
        const int32_t odd = kOddSizes[in_.pick(std::size(kOddSizes))];
        if (numel * odd * 16 <= kArenaBytes / 4) size = odd;  // stays within the planned arena
      }
      sizes.push_back(size);
      numel *= sizes.back();
    }
    if (numel * 16 > kArenaBytes) {  // later dims grew it past the arena: back to small sizes
      numel = 1;
      for (int32_t& size : sizes) numel *= (size = std::min(size, 4));
    }
    const int64_t bytes = numel * static_cast<int64_t>(etkit::element_size(dtype));
    int64_t offset = (next_offset_ + 15) / 16 * 16;
    if (offset + bytes > kArenaBytes) {
      offset = 0;  // overlapping tensors are legal in a plan, as upstream reuses memory
    }
    next_offset_ = offset + bytes;
    arena_bytes_ = std::max(arena_bytes_, next_offset_);
    const int32_t value = builder_.tensor(sizes, offset, in_.pick(8) == 0, dtype);
    if (rank >= 2 && in_.pick(4) == 0) {  // another dim order: channels-last, or any permutation
      std::vector<uint8_t> order(rank);
      for (size_t d = 0; d < rank; ++d) order[d] = uint8_t(d);
      for (size_t d = rank; d > 1; --d) std::swap(order[d - 1], order[in_.pick(d)]);
      builder_.set_dim_order(order);
    }
    if (read) read_tensors_.push_back(value);
    return value;
  }
  int32_t scalar(bool optional) {
    switch (in_.pick(optional ? 4 : 3)) {
      case 0: return builder_.integer(in_.integer());
      case 1: return builder_.real(in_.real());
      case 2: return builder_.boolean(in_.coin());
      default: return builder_.none();
    }
  }
  int32_t int_list() {
    std::vector<int64_t> items(in_.pick(5));
    for (int64_t& item : items) item = in_.integer();
    return builder_.int_list(items);
  }
  // A Tensor?[]: None items as upstream writes them (-1) or as None values.
  int32_t optional_tensor_list() {
    std::vector<int32_t> items(in_.pick(4));
    for (int32_t& item : items) {
      const size_t kind = in_.pick(4);
      item = kind == 0 ? -1 : kind == 1 ? builder_.none() : tensor(true);
    }
    return builder_.optional_tensor_list(items);
  }
  int32_t tensor_list(bool read) {
    std::vector<int32_t> items(in_.pick(4));
    for (int32_t& item : items) item = tensor(read);
    return builder_.tensor_list(items);
  }

  Choices& in_;
  ProgramBuilder& builder_;
  int64_t next_offset_ = 0;
  int64_t arena_bytes_ = 0;
  std::vector<int32_t> read_tensors_;
};

/// Sets every tensor input from `bytes` (repeated to length). Bool inputs
/// mostly get 0/1 bytes; sometimes not, which set_input must refuse.
void set_inputs(etkit::Method& method, Choices& in) {
  alignas(64) static uint8_t buffer[kArenaBytes];
  const uint8_t* bytes = in.rest();
  const size_t size = in.rest_size();
  for (size_t index = 0; index < method.input_count(); ++index) {
    const etkit::Value& input = method.input(index);
    if (!input.is_tensor()) continue;
    const etkit::Tensor& planned = input.unchecked_tensor();
    auto tensor = etkit::Tensor::make(planned.scalar_type(), planned.sizes(), {}, buffer,
                                      sizeof buffer);
    if (!tensor.ok() || tensor->nbytes() > sizeof buffer) continue;
    for (size_t at = 0; at < tensor->nbytes(); at += size) {
      if (size == 0) {
        std::memset(buffer, 0, tensor->nbytes());
        break;
      }
      std::memcpy(buffer + at, bytes, std::min(size, tensor->nbytes() - at));
    }
    if (planned.scalar_type() == ScalarType::kBool && (index + size) % 8 != 0) {
      for (size_t i = 0; i < tensor->nbytes(); ++i) buffer[i] &= 1;
    }
    auto status = method.set_input(index, *tensor);
    (void)status;
  }
}

// Per-op counts for the campaign's report (ETKIT_FUZZ_OP_COUNTS=file): how
// often each kernel was picked, loaded into a method, and executed without
// an error. Written when the fuzzer exits.
struct OpCounts {
  std::vector<uint64_t> picked, loaded, executed;
  std::string path;
  OpCounts() {
    const char* env = std::getenv("ETKIT_FUZZ_OP_COUNTS");
    if (env == nullptr) return;
    path = env;
    const size_t n = operator_names().size();
    picked.assign(n, 0);
    loaded.assign(n, 0);
    executed.assign(n, 0);
    std::atexit([] { instance().write(); });
  }
  // Never destroyed: the exit handler reads it after static destructors ran.
  static OpCounts& instance() {
    static OpCounts* counts = new OpCounts();
    return *counts;
  }
  void write() const {
    FILE* out = std::fopen(path.c_str(), "w");
    if (out == nullptr) return;
    std::fprintf(out, "op\tpicked\tloaded\texecuted\n");
    for (size_t i = 0; i < picked.size(); ++i) {
      std::fprintf(out, "%s\t%llu\t%llu\t%llu\n", operator_names()[i].c_str(), (unsigned long long)picked[i],
                   (unsigned long long)loaded[i], (unsigned long long)executed[i]);
    }
    std::fclose(out);
  }
  void count(std::vector<uint64_t>& what, size_t op) {
    if (!path.empty()) ++what[op];
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Choices in(data, size);
  const std::vector<std::string>& names = operator_names();
  const size_t op_index = in.pick(names.size());
  const std::string& op = names[op_index];
  OpCounts& counts = OpCounts::instance();
  counts.count(counts.picked, op_index);
  const etkit::KernelEntry* entry = etkit::all_kernels().find(op);
  const std::string& signature = entry->signature;

  ProgramBuilder builder;
  ArgumentMaker maker(in, builder);
  std::vector<int32_t> args;
  // Upstream passes each out tensor twice: as the out argument and as the
  // returned value. The trailing run of W's is outs then their returns.
  const size_t last_non_w = signature.find_last_not_of('W');
  const size_t first_w = last_non_w == std::string::npos ? 0 : last_non_w + 1;
  const size_t w_count = signature.size() - first_w;
  for (size_t i = 0; i < signature.size(); ++i) {
    const bool is_return = i >= first_w + (w_count + 1) / 2 && w_count >= 2;
    if (is_return && in.pick(16) != 0) {
      args.push_back(args[i - w_count / 2]);
    } else {
      args.push_back(in.pick(16) == 0 ? maker.any() : maker.make(signature[i]));
    }
  }
  if (in.pick(32) == 0) {
    args.push_back(maker.any());  // one argument too many
  }
  const size_t dot = op.rfind('.');
  builder.kernel_call(op.substr(0, dot), dot == std::string::npos ? "" : op.substr(dot + 1),
                      args);
  std::vector<int32_t> inputs = maker.read_tensors();
  std::sort(inputs.begin(), inputs.end());
  inputs.erase(std::unique(inputs.begin(), inputs.end()), inputs.end());
  builder.inputs(inputs);
  builder.arena(std::max<int64_t>(maker.arena_bytes(), 1));
  auto program = builder.load();
  if (!program.ok()) {
    return 0;
  }
  const etkit::MethodOptions options = etkit::fuzz::method_options();
  auto method = etkit::Method::load(*program, "forward", options);
  if (!method.ok()) {
    return 0;
  }
  counts.count(counts.loaded, op_index);
  set_inputs(**method, in);
  auto status = (*method)->execute();
  if (status.ok()) counts.count(counts.executed, op_index);
  return 0;
}
