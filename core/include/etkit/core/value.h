#pragma once
/// @file
/// Value: one entry of a method's values table, a tagged union like
/// upstream's EValue. Lists are views prepared at method load.

#include <cstdint>
#include <string_view>

#include "etkit/core/span.h"
#include "etkit/core/tensor.h"

namespace etkit {

class Value;

enum class ValueTag : uint8_t {
  kNone,
  kInt,
  kDouble,
  kBool,
  kString,
  kTensor,
  kIntList,       ///< Boxed: each item is a Value holding an Int.
  kDoubleList,
  kBoolList,
  kTensorList,
  kOptionalTensorList,  ///< Items may be null (None).
};

const char* to_string(ValueTag tag);

namespace detail {
/// Reports a read of a Value as `wanted` when it holds `held`, and aborts
/// (a programming error; debug builds only).
[[noreturn]] void value_misuse(ValueTag wanted, ValueTag held);
}  // namespace detail

class Value {
 public:
  Value() = default;

  ValueTag tag() const { return tag_; }
  bool is_none() const { return tag_ == ValueTag::kNone; }
  bool is_tensor() const { return tag_ == ValueTag::kTensor; }

  static Value from_int(int64_t v) { Value x; x.tag_ = ValueTag::kInt; x.int_ = v; return x; }
  static Value from_double(double v) { Value x; x.tag_ = ValueTag::kDouble; x.double_ = v; return x; }
  static Value from_bool(bool v) { Value x; x.tag_ = ValueTag::kBool; x.bool_ = v; return x; }
  static Value from_string(std::string_view v) {
    Value x; x.tag_ = ValueTag::kString; x.string_ = v; return x;
  }
  static Value from_tensor(Tensor* t) { Value x; x.tag_ = ValueTag::kTensor; x.tensor_ = t; return x; }
  static Value from_int_list(Span<Value* const> items) {
    Value x; x.tag_ = ValueTag::kIntList; x.values_ = items; return x;
  }
  static Value from_double_list(Span<const double> items) {
    Value x; x.tag_ = ValueTag::kDoubleList; x.doubles_ = items; return x;
  }
  static Value from_bool_list(Span<const uint8_t> items) {
    Value x; x.tag_ = ValueTag::kBoolList; x.bools_ = items; return x;
  }
  static Value from_tensor_list(Span<Tensor* const> items, bool optional) {
    Value x;
    x.tag_ = optional ? ValueTag::kOptionalTensorList : ValueTag::kTensorList;
    x.tensors_ = items;
    return x;
  }

  // Union reads: the caller checks tag() first (kernels do so when the
  // method loads, against their signatures), hence "unchecked". Debug
  // builds abort on a read of the wrong kind.
  int64_t unchecked_int() const { return expect(ValueTag::kInt), int_; }
  double unchecked_double() const { return expect(ValueTag::kDouble), double_; }
  bool unchecked_bool() const { return expect(ValueTag::kBool), bool_; }
  std::string_view unchecked_string_view() const { return expect(ValueTag::kString), string_; }
  Tensor& unchecked_tensor() const { return expect(ValueTag::kTensor), *tensor_; }
  Span<Value* const> int_list_items() const { return values_; }
  Span<const double> double_list() const { return doubles_; }
  Span<const uint8_t> bool_list() const { return bools_; }
  Span<Tensor* const> tensor_list() const { return tensors_; }

  /// A scalar as double (Int, Double or Bool), for kernels taking a Scalar.
  double scalar_as_double() const;
  bool is_scalar() const {
    return tag_ == ValueTag::kInt || tag_ == ValueTag::kDouble || tag_ == ValueTag::kBool;
  }

 private:
  void expect(ValueTag tag) const {
#ifndef NDEBUG
    if (tag_ != tag) detail::value_misuse(tag, tag_);
#else
    (void)tag;
#endif
  }
  ValueTag tag_ = ValueTag::kNone;
  union {
    int64_t int_ = 0;
    double double_;
    bool bool_;
    Tensor* tensor_;
  };
  std::string_view string_;
  Span<Value* const> values_;
  Span<const double> doubles_;
  Span<const uint8_t> bools_;
  Span<Tensor* const> tensors_;
};

}  // namespace etkit
