#include "program_verify.h"

#include "etkit/core/checked_size.h"
#include "etkit/core/detail/flatbuffer_limits.h"
#include "etkit/core/scalar_type.h"
#include "flatbuffer_alignment.h"
#include "program_verify_method.h"

namespace etkit::detail {

using detail::length;

Status MethodChecker::check() {
  // Arena sizes first: tensor checks index into them.
  if (!elements_aligned(plan.non_const_buffer_sizes())) {
    return Error::make(ErrorCode::kMalformed,
                       "method '%s': non_const_buffer_sizes is not 8-byte aligned",
                       name);
  }
  if (plan.non_const_buffer_sizes() != nullptr) {
    for (size_t i = 0; i < plan.non_const_buffer_sizes()->size(); ++i) {
      if (plan.non_const_buffer_sizes()->Get(i) < 0) {
        return Error::make(ErrorCode::kMalformed,
                           "method '%s': memory arena %zu has negative size",
                           name, i);
      }
    }
  }
  for (size_t i = 0; i < value_count; ++i) {
    ETKIT_TRY(check_value(i, *plan.values()->Get(i)));
  }
  if (plan.inputs() != nullptr) {
    for (int32_t index : *plan.inputs()) {
      ETKIT_TRY(check_value_index(index, "inputs"));
    }
  }
  if (plan.outputs() != nullptr) {
    for (int32_t index : *plan.outputs()) {
      ETKIT_TRY(check_value_index(index, "outputs"));
    }
  }
  if (plan.operators() != nullptr) {
    for (size_t i = 0; i < plan.operators()->size(); ++i) {
      if (plan.operators()->Get(i)->name() == nullptr) {
        return Error::make(ErrorCode::kMalformed,
                           "method '%s': operator %zu has no name", name, i);
      }
    }
  }
  ETKIT_TRY(check_delegates());
  if (plan.chains() == nullptr) {
    return Ok{};
  }
  for (size_t c = 0; c < plan.chains()->size(); ++c) {
    const auto* chain = plan.chains()->Get(c);
    if (chain->inputs() != nullptr) {
      for (int32_t index : *chain->inputs()) {
        ETKIT_TRY(check_value_index(index, "chain inputs"));
      }
    }
    if (chain->outputs() != nullptr) {
      for (int32_t index : *chain->outputs()) {
        ETKIT_TRY(check_value_index(index, "chain outputs"));
      }
    }
    const size_t count = length(chain->instructions());
    for (size_t i = 0; i < count; ++i) {
      ETKIT_TRY(check_instruction(c, i, count, *chain->instructions()->Get(i)));
    }
  }
  return Ok{};
}

namespace {

Status check_segment_index(uint32_t index, size_t count, const char* what) {
  if (index >= count) {
    return Error::make(ErrorCode::kMalformed,
                       "%s refers to segment %u, but the program has %zu",
                       what, index, count);
  }
  return Ok{};
}

// Every segment within the file (after the extended header's base offset).
Status check_segment_bounds(const fb::Program& program, ByteSpan file,
                            const ExtendedHeader& header) {
  const size_t count = length(program.segments());
  // Exporters emit an empty placeholder segment even in programs without an
  // extended header; only segments with bytes need a base offset.
  for (size_t i = 0; i < count && header.segment_base_offset == 0; ++i) {
    if (program.segments()->Get(i)->size() != 0) {
      return Error::make(ErrorCode::kMalformed,
                         "segment %zu has %llu bytes but the program has no "
                         "extended header giving the segments' base offset",
                         i, static_cast<u64>(program.segments()->Get(i)->size()));
    }
  }
  const ByteSpan data = file.sub(header.segment_base_offset,
                                 file.size - header.segment_base_offset);
  for (size_t i = 0; i < count; ++i) {
    const auto* segment = program.segments()->Get(i);
    if (!data.contains(segment->offset(), segment->size())) {
      return Error::make(ErrorCode::kTruncated,
                         "segment %zu at file offset %llu + %llu bytes runs "
                         "past the end of the file (%zu bytes)",
                         i,
                         static_cast<u64>(header.segment_base_offset +
                                          segment->offset()),
                         static_cast<u64>(segment->size()), file.size);
    }
  }
  return Ok{};
}

// The constant segment's offsets: aligned, and within their segment.
Status check_constant_segment(const fb::Program& program) {
  const auto* constants = program.constant_segment();
  if (constants == nullptr) return Ok{};
  if (!elements_aligned(constants->offsets())) {
    return Error::make(ErrorCode::kMalformed,
                       "constant_segment offsets are not 8-byte aligned");
  }
  if (length(constants->offsets()) <= 1) return Ok{};
  ETKIT_TRY(check_segment_index(constants->segment_index(), length(program.segments()), "constant_segment"));
  const uint64_t size = program.segments()->Get(constants->segment_index())->size();
  for (size_t i = 0; i < constants->offsets()->size(); ++i) {
    if (constants->offsets()->Get(i) > size) {
      return Error::make(ErrorCode::kMalformed,
                         "constant_segment offset %zu (%llu) is past the "
                         "end of its segment (%llu bytes)",
                         i, static_cast<u64>(constants->offsets()->Get(i)),
                         static_cast<u64>(size));
    }
  }
  return Ok{};
}

Status check_segments(const fb::Program& program, ByteSpan file,
                      const ExtendedHeader& header) {
  const size_t count = length(program.segments());
  ETKIT_TRY(check_segment_bounds(program, file, header));
  ETKIT_TRY(check_constant_segment(program));
  if (const auto* mutables = program.mutable_data_segments()) {
    for (const auto* sub : *mutables) {
      if (!elements_aligned(sub->offsets())) {
        return Error::make(ErrorCode::kMalformed,
                           "mutable_data_segments offsets are not 8-byte aligned");
      }
      ETKIT_TRY(check_segment_index(sub->segment_index(), count, "mutable_data_segments"));
    }
  }
  if (const auto* named = program.named_data()) {
    for (const auto* entry : *named) {
      if (entry->key() == nullptr) {
        return Error::make(ErrorCode::kMalformed, "named_data entry has no key");
      }
      ETKIT_TRY(check_segment_index(entry->segment_index(), count, "named_data"));
    }
  }
  return Ok{};
}

}  // namespace

Result<uint64_t> tensor_nbytes(const int32_t* sizes, size_t rank,
                               size_t element_size) {
  CheckedShape shape;
  for (size_t d = 0; d < rank; ++d) ETKIT_TRY(shape.add(flatbuffers::ReadScalar<int32_t>(sizes + d)));
  return shape.nbytes(element_size);
}

Status verify_program_references(const fb::Program& program, ByteSpan file,
                                 const ExtendedHeader& header) {
  ETKIT_TRY(check_segments(program, file, header));
  if (program.execution_plan() == nullptr) {
    return Ok{};
  }
  for (size_t m = 0; m < program.execution_plan()->size(); ++m) {
    const auto* plan = program.execution_plan()->Get(m);
    if (plan->name() == nullptr) {
      return Error::make(ErrorCode::kMalformed, "execution_plan[%zu] has no name",
                         m);
    }
    MethodChecker checker{program, *plan, file, header, plan->name()->c_str(),
                          length(plan->values())};
    ETKIT_TRY(checker.check());
  }
  return Ok{};
}

}  // namespace etkit::detail
