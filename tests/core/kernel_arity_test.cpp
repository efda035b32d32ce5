// Every registered kernel takes exactly the arguments upstream's runtime
// passes: the op schema's arguments (outs included), then one slot for the
// return value, also when the op returns nothing. Schemas come from
// PyTorch's native_functions.yaml as Debian's python3-torch ships it; ops
// outside ATen (ExecuTorch's quantized_decomposed and dim_order_ops, and
// executorch_prim) have their schemas written out below.

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

#include "etkit/core/kernel_registry.h"
#include "etkit/core/method.h"
#include "support/corpus.h"
#include "support/program_builder.h"
#include "support/kernels.h"

namespace etkit {
namespace {

struct Schema {
  std::vector<std::string> argument_types;  // "*" markers removed
  std::vector<std::string> argument_names;
};

// Splits "a, b[1, 2], c" at top-level commas.
std::vector<std::string> split_top_level(const std::string& text) {
  std::vector<std::string> parts;
  std::string current;
  int depth = 0;
  for (char c : text) {
    if (c == '(' || c == '[') ++depth;
    if (c == ')' || c == ']') --depth;
    if (c == ',' && depth == 0) {
      parts.push_back(current);
      current.clear();
      continue;
    }
    current += c;
  }
  if (current.find_first_not_of(' ') != std::string::npos) parts.push_back(current);
  return parts;
}

// "name.overload(Type arg, *, Type(a!) out) -> Ret" -> name, argument types
// and how many values it returns.
bool parse_schema(const std::string& text, std::string& name, Schema& schema, size_t* returns = nullptr) {
  const size_t open = text.find('(');
  const size_t arrow = text.rfind(") ->");
  if (open == std::string::npos || arrow == std::string::npos || arrow < open) return false;
  name = text.substr(0, open);
  schema.argument_types.clear();
  schema.argument_names.clear();
  for (std::string argument : split_top_level(text.substr(open + 1, arrow - open - 1))) {
    argument.erase(0, argument.find_first_not_of(' '));
    if (argument == "*") continue;
    const size_t space = argument.find(' ');
    schema.argument_types.push_back(argument.substr(0, space));
    schema.argument_names.push_back(argument.substr(space + 1, argument.find('=') - space - 1));
  }
  if (returns != nullptr) {
    const std::string result = text.substr(arrow + 5);
    if (result.rfind("()", 0) == 0) *returns = 0;
    else if (result[0] == '(') *returns = split_top_level(result.substr(1, result.rfind(')') - 1)).size();
    else *returns = 1;
  }
  return true;
}

// Every "- func:" entry, plus the out variants its "autogen:" line asks
// codegen to generate: the functional arguments, then one out per return.
std::map<std::string, Schema> aten_schemas() {
  std::map<std::string, Schema> schemas;
  std::ifstream in(ETKIT_NATIVE_FUNCTIONS_YAML);
  std::string line;
  const std::string func = "- func: ", autogen = "  autogen: ";
  Schema functional;
  size_t returns = 0;
  while (std::getline(in, line)) {
    if (line.compare(0, func.size(), func) == 0) {
      std::string name;
      if (parse_schema(line.substr(func.size()), name, functional, &returns)) schemas["aten::" + name] = functional;
    } else if (line.compare(0, autogen.size(), autogen) == 0) {
      for (std::string name : split_top_level(line.substr(autogen.size()))) {
        name.erase(0, name.find_first_not_of(' '));
        // The out tensor carries dtype, layout and device, so the
        // functional op's tensor options are left out.
        Schema out;
        for (size_t a = 0; a < functional.argument_types.size(); ++a) {
          const std::string& arg = functional.argument_names[a];
          if (arg == "dtype" || arg == "layout" || arg == "device" || arg == "pin_memory") continue;
          // An in-place entry's self (Tensor(a!)) is an input of the out variant.
          std::string type = functional.argument_types[a];
          if (type.rfind("Tensor(", 0) == 0) type = "Tensor" + type.substr(type.find(')') + 1);
          out.argument_types.push_back(type);
        }
        for (size_t r = 0; r < std::max<size_t>(returns, 1); ++r) out.argument_types.push_back("Tensor(a!)");
        schemas.emplace("aten::" + name, out);
      }
    }
  }
  return schemas;
}

// Schemas of the non-ATen ops etkit registers, as upstream ExecuTorch
// declares them (kernels/quantized, dim_order_ops, prim ops).
std::map<std::string, Schema> other_schemas() {
  const char* texts[] = {
      "quantized_decomposed::quantize_per_tensor.out(Tensor input, float scale, int zero_point, int quant_min, "
      "int quant_max, ScalarType dtype, *, Tensor(a!) out) -> Tensor(a!)",
      "quantized_decomposed::dequantize_per_tensor.out(Tensor input, float scale, int zero_point, int quant_min, "
      "int quant_max, ScalarType dtype, *, ScalarType? out_dtype=None, Tensor(a!) out) -> Tensor(a!)",
      "quantized_decomposed::quantize_per_channel.out(Tensor input, Tensor scales, Tensor zero_points, int axis, "
      "int quant_min, int quant_max, ScalarType dtype, *, Tensor(a!) out) -> Tensor(a!)",
      "quantized_decomposed::dequantize_per_channel.out(Tensor input, Tensor scales, Tensor? zero_points, "
      "int axis, int quant_min, int quant_max, ScalarType dtype, *, ScalarType? out_dtype=None, "
      "Tensor(a!) out) -> Tensor(a!)",
      "quantized_decomposed::add.out(Tensor a, float a_scale, int a_zero_point, int a_quant_min, int "
      "a_quant_max, Tensor b, float b_scale, int b_zero_point, int b_quant_min, int b_quant_max, float "
      "out_scale, int out_zero_point, int out_quant_min, int out_quant_max, *, Tensor(a!) out) -> "
      "Tensor(a!)",
      "quantized_decomposed::choose_qparams.Tensor_out(Tensor input, int quant_min, int quant_max, float "
      "eps, ScalarType dtype, *, Tensor(a!) scale_out, Tensor(b!) zero_point_out) -> (Tensor(a!), "
      "Tensor(b!))",
      "quantized_decomposed::dequantize_per_tensor.Tensor_out(Tensor input, Tensor scale, Tensor "
      "zero_point, int quant_min, int quant_max, ScalarType dtype, *, ScalarType? out_dtype=None, "
      "Tensor(a!) out) -> Tensor(a!)",
      "quantized_decomposed::embedding_byte.out(Tensor weight, Tensor weight_scales, Tensor? "
      "weight_zero_points, int weight_quant_min, int weight_quant_max, Tensor indices, *, Tensor(a!) out) "
      "-> Tensor(a!)",
      "quantized_decomposed::embedding_byte.dtype_out(Tensor weight, Tensor weight_scales, Tensor? "
      "weight_zero_points, int weight_quant_min, int weight_quant_max, Tensor indices, *, ScalarType? "
      "dtype=None, Tensor(a!) out) -> Tensor(a!)",
      "quantized_decomposed::embedding_2bit.out(Tensor weight, Tensor weight_scales, Tensor? "
      "weight_zero_points, int weight_quant_min, int weight_quant_max, Tensor indices, *, Tensor(a!) out) "
      "-> Tensor(a!)",
      "quantized_decomposed::embedding_2bit.dtype_out(Tensor weight, Tensor weight_scales, Tensor? "
      "weight_zero_points, int weight_quant_min, int weight_quant_max, Tensor indices, ScalarType? "
      "dtype=None, *, Tensor(a!) out) -> Tensor(a!)",
      "quantized_decomposed::embedding_4bit.out(Tensor weight, Tensor weight_scales, Tensor? "
      "weight_zero_points, int weight_quant_min, int weight_quant_max, Tensor indices, *, Tensor(a!) out) "
      "-> Tensor(a!)",
      "quantized_decomposed::embedding_4bit.dtype_out(Tensor weight, Tensor weight_scales, Tensor? "
      "weight_zero_points, int weight_quant_min, int weight_quant_max, Tensor indices, ScalarType? "
      "dtype=None, *, Tensor(a!) out) -> Tensor(a!)",
      "quantized_decomposed::mixed_mm.out(Tensor input, Tensor weight, Tensor weight_scales, Tensor? "
      "weight_zero_points, *, Tensor(a!) out) -> Tensor(a!)",
      "quantized_decomposed::mixed_linear.out(Tensor input, Tensor weight, Tensor weight_scales, Tensor? "
      "weight_zero_points, ScalarType? dtype=None, *, Tensor(a!) out) -> Tensor(a!)",
      "quantized_decomposed::quantize_per_tensor.Tensor_out(Tensor input, Tensor scale, Tensor zero_point, "
      "int quant_min, int quant_max, ScalarType dtype, *, Tensor(a!) out) -> Tensor(a!)",
      "quantized_decomposed::choose_qparams_per_token_asymmetric.out(Tensor input, ScalarType dtype, *, "
      "Tensor(a!) scale_out, Tensor(b!) zero_point_out) -> (Tensor(a!), Tensor(b!))",
      "quantized_decomposed::quantize_per_token.out(Tensor input, Tensor scales, Tensor zero_points, int "
      "quant_min, int quant_max, ScalarType dtype, *, Tensor(a!) out) -> Tensor(a!)",
      "quantized_decomposed::dequantize_per_token.out(Tensor input, Tensor scales, Tensor zero_points, int "
      "quant_min, int quant_max, ScalarType dtype, ScalarType output_dtype, *, Tensor(a!) out) -> "
      "Tensor(a!)",
      // ATen ops newer than the PyTorch 1.13 Debian ships, as later
      // native_functions.yaml declares them (out variant autogenerated).
      "aten::_native_batch_norm_legit_no_training.out(Tensor input, Tensor? weight, Tensor? bias, "
      "Tensor running_mean, Tensor running_var, float momentum, float eps, *, Tensor(a!) out0, "
      "Tensor(b!) out1, Tensor(c!) out2) -> (Tensor(a!), Tensor(b!), Tensor(c!))",
      "aten::_cdist_forward.out(Tensor x1, Tensor x2, float p, int? compute_mode, *, Tensor(a!) out) -> Tensor(a!)",
      "aten::_conj_physical.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
      "aten::_native_batch_norm_legit.out(Tensor input, Tensor? weight, Tensor? bias, Tensor(a!) running_mean, "
      "Tensor(b!) running_var, bool training, float momentum, float eps, *, Tensor(d!) out, Tensor(e!) save_mean, "
      "Tensor(f!) save_invstd) -> (Tensor(d!), Tensor(e!), Tensor(f!))",
      "aten::_native_batch_norm_legit.no_stats_out(Tensor input, Tensor? weight, Tensor? bias, bool training, "
      "float momentum, float eps, *, Tensor(a!) out, Tensor(b!) save_mean, Tensor(c!) save_invstd) -> "
      "(Tensor(a!), Tensor(b!), Tensor(c!))",
      "aten::_pdist_forward.out(Tensor self, float p=2, *, Tensor(a!) out) -> Tensor(a!)",
      "aten::any.dims_out(Tensor self, int[]? dim=None, bool keepdim=False, *, Tensor(a!) out) -> Tensor(a!)",
      "aten::copy.out(Tensor self, Tensor src, bool non_blocking=False, *, Tensor(a!) out) -> Tensor(a!)",
      "aten::fill.Scalar_out(Tensor self, Scalar value, *, Tensor(a!) out) -> Tensor(a!)",
      "aten::fill.Tensor_out(Tensor self, Tensor value, *, Tensor(a!) out) -> Tensor(a!)",
      "aten::flip.out(Tensor self, int[] dims, *, Tensor(a!) out) -> Tensor(a!)",
      "aten::grid_sampler_2d.out(Tensor input, Tensor grid, int interpolation_mode, int padding_mode, "
      "bool align_corners, *, Tensor(a!) out) -> Tensor(a!)",
      "aten::index_put.out(Tensor self, Tensor?[] indices, Tensor values, bool accumulate=False, *, "
      "Tensor(a!) out) -> Tensor(a!)",
      "aten::isinf.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
      "aten::isnan.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
      "aten::lift_fresh_copy.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
      "aten::masked_scatter.out(Tensor self, Tensor mask, Tensor source, *, Tensor(a!) out) -> Tensor(a!)",
      "aten::max.unary_out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
      "aten::min.unary_out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
      "aten::mean.dtype_out(Tensor self, *, ScalarType? dtype=None, Tensor(a!) out) -> Tensor(a!)",
      "aten::native_dropout.out(Tensor input, float p, bool? train, *, Tensor(a!) out0, Tensor(b!) out1) -> "
      "(Tensor(a!), Tensor(b!))",
      "aten::pixel_shuffle.out(Tensor self, int upscale_factor, *, Tensor(a!) out) -> Tensor(a!)",
      "aten::pixel_unshuffle.out(Tensor self, int downscale_factor, *, Tensor(a!) out) -> Tensor(a!)",
      "aten::prod.out(Tensor self, *, ScalarType? dtype=None, Tensor(a!) out) -> Tensor(a!)",
      "aten::repeat_interleave.Tensor_out(Tensor repeats, *, SymInt? output_size=None, Tensor(a!) out) -> Tensor(a!)",
      "aten::roll.out(Tensor self, SymInt[1] shifts, int[1] dims=[], *, Tensor(a!) out) -> Tensor(a!)",
      "aten::rsub.Scalar_out(Tensor self, Scalar other, Scalar alpha=1, *, Tensor(a!) out) -> Tensor(a!)",
      "aten::scalar_tensor.out(Scalar s, *, Tensor(a!) out) -> Tensor(a!)",
      "aten::select_scatter.out(Tensor self, Tensor src, int dim, SymInt index, *, Tensor(a!) out) -> Tensor(a!)",
      "aten::slice_scatter.out(Tensor self, Tensor src, int dim=0, SymInt? start=None, SymInt? end=None, "
      "SymInt step=1, *, Tensor(a!) out) -> Tensor(a!)",
      "aten::upsample_bilinear2d.vec_out(Tensor input, SymInt[]? output_size, bool align_corners, "
      "float[]? scale_factors, *, Tensor(a!) out) -> Tensor(a!)",
      // Later ATen takes a Scalar correction (1.13: int).
      "aten::var.correction_out(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False, "
      "Tensor(a!) out) -> Tensor(a!)",
      "aten::var_mean.correction_out(Tensor self, int[1]? dim=None, *, Scalar? correction=None, "
      "bool keepdim=False, Tensor(a!) out0, Tensor(b!) out1) -> (Tensor(a!), Tensor(b!))",
      "et_copy::_h2d_copy.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
      "et_copy::_d2h_copy.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
      "dim_order_ops::_empty_dim_order.out(int[] size, *, int[]? dim_order=None, Tensor(a!) out) -> Tensor(a!)",
      "aten::_local_scalar_dense(Tensor self) -> Scalar",
      // Upstream's prim ops (kernels/prim_ops), as their registrations declare them.
      "executorch_prim::et_view.default(Tensor self, int[] size) -> Tensor",
      "executorch_prim::et_copy_index.tensor(Tensor(a!) copy_to, Tensor copy_from, int index) -> ()",
      "executorch_prim::sym_not.Scalar(bool a) -> bool",
      "executorch_prim::sym_ite.Scalar(bool b, Scalar t, Scalar f) -> Scalar",
      "aten::sym_numel(Tensor self) -> SymInt",
      "aten::sym_size.int(Tensor self, int dim) -> SymInt",
      "aten::squeeze_copy.dims_out(Tensor self, int[] dim, *, Tensor(a!) out) -> Tensor(a!)",
      "dim_order_ops::_to_dim_order_copy.out(Tensor self, *, bool non_blocking=False, int[]? dim_order=None, "
      "Tensor(a!) out) -> Tensor(a!)",
      "dim_order_ops::_clone_dim_order.out(Tensor self, *, bool non_blocking=False, int[]? dim_order=None, "
      "Tensor(a!) out) -> Tensor(a!)",
      // Upstream's Cortex-M backend, in the version that wrote the corpus's
      // keyword-spotting program (the argument lists its instructions carry).
      "cortex_m::quantize_per_tensor.out(Tensor input, float scale, int zero_point, int quant_min, "
      "int quant_max, ScalarType dtype, *, Tensor(a!) out) -> Tensor(a!)",
      "cortex_m::dequantize_per_tensor.out(Tensor input, float scale, int zero_point, int quant_min, "
      "int quant_max, ScalarType dtype, *, Tensor(a!) out) -> Tensor(a!)",
      "cortex_m::quantized_conv2d.out(Tensor input, Tensor weight, Tensor? bias, int[] stride, int[] padding, "
      "int[] dilation, int input_offset, int output_offset, Tensor requantize_multipliers, "
      "Tensor requantize_shifts, int activation_min, int activation_max, Tensor scratch, *, Tensor(a!) out) "
      "-> Tensor(a!)",
      "cortex_m::quantized_depthwise_conv2d.out(Tensor input, Tensor weight, Tensor? bias, int[] stride, "
      "int[] padding, int[] dilation, int depth_multiplier, int input_offset, int output_offset, "
      "Tensor requantize_multipliers, Tensor requantize_shifts, int activation_min, int activation_max, "
      "Tensor scratch, *, Tensor(a!) out) -> Tensor(a!)",
      "cortex_m::quantized_linear.out(Tensor input, Tensor weights, Tensor? bias, Tensor? kernel_sum, "
      "int input_offset, int filter_offset, int output_offset, int[] requantize_multipliers, "
      "int[] requantize_shifts, int activation_max, int activation_min, *, Tensor(a!) out) -> Tensor(a!)",
      "cortex_m::quantized_avg_pool2d.out(Tensor input, int[] kernel_size, int[] stride, int[] padding, "
      "bool ceil_mode, int zero_point, int multiplier, int shift, Tensor scratch, *, Tensor(a!) out) "
      "-> Tensor(a!)",
      "cortex_m::pad.out(Tensor input, int[] pre_pad, int[] post_pad, int pad_value, *, Tensor(a!) out) "
      "-> Tensor(a!)",
      // The rest of its op set, from its operators.yaml at the commit in kernels/op_lists.
      "cortex_m::quantized_add.out(Tensor self, int self_zero_point, int self_multiplier, int self_shift, "
      "Tensor other, int other_zero_point, int other_multiplier, int other_shift, int output_zero_point, "
      "int output_multiplier, int output_shift, int activation_min, int activation_max, *, Tensor(a!) out) "
      "-> Tensor(a!)",
      "cortex_m::quantized_mul.out(Tensor self, int self_zero_point, Tensor other, int other_zero_point, "
      "int output_zero_point, int output_multiplier, int output_shift, *, Tensor(a!) out) -> Tensor(a!)",
      "cortex_m::quantized_div.out(Tensor self, int self_zero_point, Tensor other, int other_zero_point, "
      "int output_zero_point, float output_scale, *, Tensor(a!) out) -> Tensor(a!)",
      "cortex_m::quantized_activation.out(Tensor input, Tensor lut, *, Tensor(a!) out) -> Tensor(a!)",
      "cortex_m::minimum.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
      "cortex_m::maximum.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
      "cortex_m::softmax.out(Tensor input, int dim, int input_zero_point, int output_zero_point, int "
      "input_multiplier, int input_shift, int diff_min, *, Tensor(a!) out) -> Tensor(a!)",
      "cortex_m::transpose.out(Tensor input, int[] perm, *, Tensor(a!) out) -> Tensor(a!)",
      "cortex_m::quantized_transpose_conv2d.out(Tensor input, Tensor weight, Tensor? bias, int[] stride, "
      "int[] padding, int[] output_padding, int[] dilation, int input_offset, int output_offset, Tensor "
      "requantize_multipliers, Tensor requantize_shifts, int activation_min, int activation_max, Tensor "
      "scratch, Tensor output_scratch, *, Tensor(a!) out) -> Tensor(a!)",
      "cortex_m::quantized_max_pool2d.out(Tensor input, int[] kernel_size, int[] stride, int[] padding, "
      "int[] dilation, bool ceil_mode, int input_zero_point, int output_zero_point, int activation_min, int "
      "activation_max, *, Tensor(a!) out) -> Tensor(a!)",
      "cortex_m::quantized_batch_matmul.out(Tensor lhs, int lhs_zero_point, Tensor rhs_transposed, int "
      "rhs_zero_point, int output_zero_point, int output_multiplier, int output_shift, Tensor scratch, *, "
      "Tensor(a!) out) -> Tensor(a!)",
      // Upstream's LLM custom ops (extension/llm/custom_ops/op_sdpa_aot.cpp and
      // op_fast_hadamard_transform_aten.cpp at the commit in kernels/op_lists).
      "llama::sdpa_with_kv_cache.out(Tensor query, Tensor key, Tensor value, Tensor(a!) key_cache, "
      "Tensor(b!) value_cache, SymInt start_pos, SymInt seq_len, Tensor? attn_mask=None, float drpout_p=0.0, "
      "bool is_causal=False, float? scale=None, *, Tensor(c!) out) -> Tensor(c!)",
      "llama::custom_sdpa.out(Tensor query, Tensor key, Tensor value, SymInt start_pos, Tensor? attn_mask=None, "
      "float drpout_p=0.0, bool is_causal=False, float? scale=None, *, Tensor(a!) out) -> Tensor(a!)",
      "llama::custom_quantized_sdpa.out(Tensor query, Tensor key, Tensor value, SymInt start_pos, "
      "Tensor? attn_mask=None, float drpout_p=0.0, bool is_causal=False, float? scale=None, "
      "Tensor? q_zero_points=None, Tensor? q_scales=None, Tensor? k_zero_points=None, Tensor? k_scales=None, "
      "Tensor? v_zero_points=None, Tensor? v_scales=None, bool is_seq_at_dim_2=False, *, Tensor(a!) out) "
      "-> Tensor(a!)",
      "llama::update_cache.out(Tensor value, Tensor(a!) cache, SymInt start_pos, *, Tensor(b!) out) -> Tensor(b!)",
      "llama::update_cache_with_indices.out(Tensor value, Tensor(a!) cache, SymInt start_pos, Tensor indices, *, "
      "Tensor(b!) out) -> Tensor(b!)",
      "llama::fast_hadamard_transform.out(Tensor mat, *, Tensor(a!) out) -> Tensor(a!)",
  };
  std::map<std::string, Schema> schemas;
  for (const char* text : texts) {
    std::string name;
    Schema schema;
    if (parse_schema(text, name, schema)) schemas[name] = schema;
  }
  // executorch_prim::<op>.Scalar(Scalar a, Scalar b) -> Scalar; neg takes one.
  for (const char* op : {"add.Scalar", "sub.Scalar", "mul.Scalar", "floordiv.Scalar", "floordiv.int",
                         "truediv.Scalar", "mod.Scalar", "mod.int", "eq.Scalar", "gt.Scalar", "lt.Scalar",
                         "ge.Scalar", "le.Scalar"}) {
    schemas[std::string("executorch_prim::") + op] = Schema{{"Scalar", "Scalar"}};
  }
  for (const char* op : {"sym_max.Scalar", "sym_min.Scalar"}) {
    schemas[std::string("executorch_prim::") + op] = Schema{{"Scalar", "Scalar"}};
  }
  for (const char* op : {"neg.Scalar", "ceil.Scalar", "round.Scalar", "trunc.Scalar", "sym_float.Scalar",
                         "sym_int.Scalar"}) {
    schemas[std::string("executorch_prim::") + op] = Schema{{"Scalar"}};
  }
  return schemas;
}

// Whether signature letter `letter` can stand for schema type `type`.
bool letter_fits(char letter, const std::string& type) {
  const bool mutable_alias = type.find('!') != std::string::npos;
  if (mutable_alias) return type.find("[]") != std::string::npos ? letter == 'M' : letter == 'W';
  if (letter == 'x') return true;
  if (type == "Tensor") return letter == 'T';
  if (type == "Tensor?") return letter == 't';
  if (type == "Tensor[]") return letter == 'L';
  if (type == "Tensor?[]") return letter == 'O';
  if (type == "int" || type == "SymInt") return letter == 'i';
  if (type == "int?" || type == "SymInt?" || type == "ScalarType" || type == "ScalarType?" ||
      type == "MemoryFormat?") {
    return letter == 'n' || letter == 'i';
  }
  if (type.rfind("int[", 0) == 0 || type.rfind("SymInt[", 0) == 0) {
    return type.back() == '?' ? letter == 'J' : letter == 'I' || letter == 'J';
  }
  if (type == "float") return letter == 'd';
  if (type == "float?") return letter == 'e';
  if (type == "float[]?") return letter == 'E';
  if (type == "bool?") return letter == 'c';
  if (type == "Scalar") return letter == 's';
  if (type == "Scalar?") return letter == 'o';
  if (type == "bool") return letter == 'b';
  if (type == "str" || type == "str?") return letter == 'S';
  return false;
}

TEST(KernelArity, EveryKernelTakesTheSchemaArgumentsAndTheReturnSlot) {
  const std::map<std::string, Schema> aten = aten_schemas();
  ASSERT_GT(aten.size(), 1000u) << "cannot read " << ETKIT_NATIVE_FUNCTIONS_YAML
                                << " (scripts/install-deps --tests installs python3-torch)";
  const std::map<std::string, Schema> other = other_schemas();
  KernelRegistry registry;
  register_all_kernels(registry);
  ASSERT_GT(registry.size(), 100u);
  for (const std::string& name : registry.names()) {
    SCOPED_TRACE(name);
    // A later schema (other_schemas) overrides PyTorch 1.13's where ATen changed it.
    const std::map<std::string, Schema>& schemas = other.count(name) ? other : aten;
    const auto it = schemas.find(name);
    ASSERT_NE(it, schemas.end()) << "no schema for " << name;
    const Schema& schema = it->second;
    const std::string& signature = registry.find(name)->signature;
    // Upstream's et_copy_index takes its three arguments and no return slot.
    const size_t return_slots = name == "executorch_prim::et_copy_index.tensor" ? 0 : 1;
    ASSERT_EQ(signature.size(), schema.argument_types.size() + return_slots)
        << "signature " << signature << " for " << schema.argument_types.size() << " schema arguments";
    for (size_t a = 0; a < schema.argument_types.size(); ++a) {
      EXPECT_TRUE(letter_fits(signature[a], schema.argument_types[a]))
          << "argument " << a << ": letter " << signature[a] << " for " << schema.argument_types[a];
    }
  }
}

TEST(KernelArity, SchemaParserReadsOutsAndKeywordMarkers) {
  std::string name;
  Schema schema;
  ASSERT_TRUE(parse_schema("split_with_sizes_copy.out(Tensor self, SymInt[] split_sizes, int dim=0, *, "
                           "Tensor(a!)[] out) -> ()",
                           name, schema));
  EXPECT_EQ(name, "split_with_sizes_copy.out");
  EXPECT_EQ(schema.argument_types, (std::vector<std::string>{"Tensor", "SymInt[]", "int", "Tensor(a!)[]"}));
  ASSERT_TRUE(parse_schema("max_pool2d_with_indices.out(Tensor self, int[2] kernel_size, int[2] stride=[], "
                           "int[2] padding=0, int[2] dilation=1, bool ceil_mode=False, *, Tensor(a!) out, "
                           "Tensor(b!) indices) -> (Tensor(a!), Tensor(b!))",
                           name, schema));
  EXPECT_EQ(schema.argument_types.size(), 8u);
  EXPECT_EQ(schema.argument_types[7], "Tensor(b!)");
}

// A split without its return slot: upstream's runtime refuses it
// ("Expected 5 args received 4"), and so must etkit, naming op and counts.
TEST(KernelArity, ProgramMissingTheReturnSlotIsRefusedAtLoad) {
  test::ProgramBuilder builder;
  const int32_t x = builder.tensor({4, 2}, 0);
  const int32_t a = builder.tensor({2, 2}, 32);
  const int32_t b = builder.tensor({2, 2}, 48);
  const int32_t parts = builder.tensor_list({a, b});
  builder.kernel_call("aten::split_with_sizes_copy", "out",
                      {x, builder.int_list({2, 2}), builder.integer(0), parts});
  builder.inputs({x});
  builder.outputs({a, b});
  auto program = builder.load();
  ASSERT_TRUE(program.ok()) << program.error().message();
  auto method = Method::load(*program, "forward", test::with_kernels());
  ASSERT_FALSE(method.ok());
  const std::string message = method.error().message();
  EXPECT_NE(message.find("aten::split_with_sizes_copy.out"), std::string::npos) << message;
  EXPECT_NE(message.find("passes 4 arguments, the kernel takes 5"), std::string::npos) << message;
}

// The shipped nanoGPT sample (made by upstream's exporter), read through
// Debian's flatc (a second path): its split carries 5 arguments, the last
// (the return slot) a list of the same tensors as the out list.
TEST(KernelArity, NanoGptSampleSplitCarriesTheReturnSlot) {
  std::string text = test::flatc_json(std::string(ETKIT_SCHEMA_DIR) + "/program.fbs",
                                      std::string(ETKIT_SOURCE_DIR) + "/samples/nano_gpt/nano_gpt.pte", false);
  // flatc writes non-finite doubles (the attention mask's -inf) as bare
  // words, which JSON lacks; they do not matter here.
  text = std::regex_replace(text, std::regex(R"(([:\[,]\s*)[-+]?(inf|nan)\b)"), "$1null");
  const auto program = nlohmann::json::parse(text);
  const auto& plan = program["execution_plan"][0];
  size_t splits = 0;
  for (const auto& instruction : plan["chains"][0]["instructions"]) {
    if (instruction["instr_args_type"] != "KernelCall") continue;
    const auto& call = instruction["instr_args"];
    const auto& op = plan["operators"][call.value("op_index", 0)];
    if (op["name"] != "aten::split_with_sizes_copy") continue;
    ASSERT_EQ(call["args"].size(), 5u);
    const auto& out = plan["values"][call["args"][3].get<size_t>()];
    const auto& returned = plan["values"][call["args"][4].get<size_t>()];
    ASSERT_EQ(out["val_type"], "TensorList");
    EXPECT_EQ(returned["val"]["items"], out["val"]["items"]);
    ++splits;
  }
  EXPECT_GT(splits, 0u);
}

}  // namespace
}  // namespace etkit
