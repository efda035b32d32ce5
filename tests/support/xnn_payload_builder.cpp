#include "support/xnn_payload_builder.h"

#include <cstring>

#include "support/corpus.h"
#include "support/xnn_payload_layout.h"

namespace etkit::test {

using nlohmann::json;

int PayloadBuilder::constant(const void* bytes, size_t size) {
  data.resize((data.size() + 15) / 16 * 16);
  offsets.push_back({{"offset", data.size()}, {"size", size}});
  const auto* raw = static_cast<const uint8_t*>(bytes);
  if (size > 0) data.insert(data.end(), raw, raw + size);
  return int(offsets.size() - 1);
}

int PayloadBuilder::value(const char* datatype, std::vector<int64_t> dims, int constant_index, int flags,
                          const json& quant, const char* quant_type) {
  const int id = int(values.size());
  unsigned external = kNoExternal;
  if (flags == 1) external = unsigned(inputs.size()), inputs.push_back(id);
  if (flags == 2) external = unsigned(inputs.size() + outputs.size()), outputs.push_back(id);
  const json tensor = {{"datatype", datatype}, {"num_dims", dims.size()}, {"dims", dims},
                       {"constant_buffer_idx", constant_index}, {"flags", flags},
                       {"external_id", external}, {"id_out", id}};
  if (quant.is_null()) {
    values.push_back({{"value_type", "TensorValue"}, {"value", tensor}});
  } else {
    values.push_back({{"value_type", "QuantizedTensorValue"},
                      {"value", {{"tensor_value", tensor}, {"quant_params_type", quant_type},
                                 {"quant_params", quant}}}});
  }
  return id;
}

int PayloadBuilder::per_tensor(const char* datatype, std::vector<int64_t> dims, float scale, int zero_point,
                               int flags, int constant_index) {
  return value(datatype, dims, constant_index, flags, {{"scale", scale}, {"zero_point", zero_point}},
               "PerTensorQuant");
}

int PayloadBuilder::per_channel(const char* datatype, std::vector<int64_t> dims, const std::vector<float>& scales,
                                int constant_index, int channel_dim) {
  return value(datatype, dims, constant_index, 0, {{"scale", scales}, {"channel_dim", channel_dim}},
               "PerChannelQuant");
}

void PayloadBuilder::node(const char* type, int debug_handle, json params) {
  nodes.push_back({{"node_type", type}, {"debug_handle", debug_handle}, {"node", params}});
}

void PayloadBuilder::convert(int in, int out, int handle) {
  node("Convert", handle, {{"input_id", in}, {"output_id", out}});
}

void PayloadBuilder::fully_connected(int in, int filter, int bias, int out, int handle) {
  node("FullyConnected", handle,
       {{"input1_id", in}, {"filter_id", filter}, {"bias_id", bias < 0 ? kNoExternal : unsigned(bias)},
        {"output_id", out}});
}

std::vector<uint8_t> PayloadBuilder::finish() const {
  const json graph = {{"version", "0"}, {"nodes", nodes}, {"values", values},
                      {"num_externs", inputs.size() + outputs.size()}, {"input_ids", inputs},
                      {"output_ids", outputs}, {"constant_data", offsets}};
  const std::vector<uint8_t> flatbuffer = flatc_binary(
      std::string(ETKIT_SOURCE_DIR) + "/delegates/xnnpack/schema/xnnpack_graph.fbs", graph.dump());
  return xnn_payload(flatbuffer.data(), flatbuffer.size(), data);
}

}  // namespace etkit::test
