"""Delegates runs of consecutive ops to XNNPACK in upstream's payload format:
an "XH00" header, the XNNGraph flatbuffer (etkit's own schema,
delegates/xnnpack/schema/xnnpack_graph.fbs, compiled by Debian's flatc) and
constants as the program's named data keyed by their sha256.

What is delegated (what MobileNet-class models need): convolutions (batch
norms that follow them folded in, as upstream's lowering does), hardtanh and
relu as clamps, same-shape adds, global average pools (mean over H and W),
reshapes that keep memory order, and addmm with a constant weight as a fully
connected node. 4-D activations are NHWC inside a delegate: an NCHW input
enters through a static transpose (which Debian's XNNPACK lacks, so etkit
runs it on its portable kernels), a channels-last input enters as is.

With quantize="qs8", everything above is delegated with int8 values
(xnnpack_int8.py). With quantize="8da4w" (upstream's dynamically quantized linears), only
linear layers are delegated, each as a Convert of its input to per-token
int8 (qdint8) and a fully connected node with 4-bit blockwise weights
(qbint4, groups of 32, bf16 scales as named data) and an fp32 bias.

Every node carries the debug handle of the edge node it lowers; a folded
batch norm and an entry transpose map through the ETRecord's delegate map.
"""
import hashlib
import struct

import torch
import torch.fx

from . import edge_ops
from . import quantize as quantization
from .program import compile_json, SCHEMAS

aten = torch.ops.aten
NO_VALUE = 0xFFFFFFFF
NAMED = 0xFFFFFFFFFFFFFFFF
HEADER_SIZE = 32  # 30 bytes of fields, padded so the flatbuffer starts aligned


class Delegated:
    """One delegate call: its payload, named data and bookkeeping."""

    def __init__(self):
        self.nodes = []          # fx nodes lowered into it, in order
        self.inputs = []         # fx nodes read from outside
        self.outputs = []        # fx nodes read outside (or graph outputs)
        self.payload = b""
        self.named_data = {}     # key -> bytes
        self.delegate_map = {}   # str(XNode debug handle) -> [edge debug handles]
        self.node_count = 0
        self.steps = []          # qs8: the reference arithmetic (int8.Int8Reference)


def _is_getitem(node):
    return node.op == "call_function" and edge_ops.is_getitem(node)



class Partitioner:
    """Decides which nodes XNNPACK takes. `constant_of(node)` returns the
    tensor of a constant node (or None)."""

    def __init__(self, graph_module, results, constant_of, quantize=None, calibration=None):
        self.quantize = quantize  # None, "8da4w" or "qs8"
        self.calibration = calibration  # int8.Calibration, for "qs8"
        self.results = results
        self.constant_of = constant_of
        self.folded_constants = {}  # t/permute of a constant, folded
        for node in graph_module.graph.nodes:
            if node.op != "call_function":
                continue
            if node.target in (aten.t.default, aten.permute.default):
                source = constant_of(node.args[0])
                if source is not None:
                    self.folded_constants[node] = self.results[node]

    def constant(self, node):
        if node in self.folded_constants:
            return self.folded_constants[node]
        return self.constant_of(node)

    def _is_tensor4(self, node):
        value = self.results.get(node)
        return isinstance(value, torch.Tensor) and value.dim() == 4 and value.dtype == torch.float32

    def supported(self, node):
        target = edge_ops.INPLACE.get(node.target, node.target)
        if node in self.folded_constants:
            return True
        if self.quantize == "8da4w":
            if _is_getitem(node):
                return False
            args = edge_ops.bind(node)
            if target in (aten.view.default, aten._reshape_alias.default, aten._unsafe_view.default):
                return self.results[args["self"]].dim() != 4  # the reshapes around a linear
            if target == aten.mm.default:  # a linear without bias
                return (self.constant(args["mat2"]) is not None
                        and self.results[args["self"]].shape[-1] % quantization.GROUP == 0)
            return (target == aten.addmm.default and self.constant(args["mat2"]) is not None
                    and self.constant(args["self"]) is not None and args["beta"] == 1
                    and args["alpha"] == 1 and self.results[args["self"]].dim() == 1
                    and self.results[args["mat1"]].shape[-1] % quantization.GROUP == 0)
        if _is_getitem(node):
            return node.args[0].target == aten.native_batch_norm.default and node.args[1] == 0
        args = edge_ops.bind(node)
        if target == aten.convolution.default:
            return (not args["transposed"] and self._is_tensor4(node)
                    and self.constant(args["weight"]) is not None
                    and (args["bias"] is None or self.constant(args["bias"]) is not None))
        if target == aten.native_batch_norm.default:
            source = args["input"]
            return (not args["training"] and source.target == aten.convolution.default
                    and len(source.users) == 1
                    and all(self.constant(args[k]) is not None
                            for k in ("weight", "bias", "running_mean", "running_var")))
        if target in (aten.hardtanh.default, aten.relu.default):
            return True
        if target == aten.add.Tensor:
            other = args["other"]
            return (isinstance(other, torch.fx.Node) and args["alpha"] == 1
                    and self.results[args["self"]].shape == self.results[other].shape)
        if target == aten.mean.dim:
            dims = sorted(d % 4 for d in args["dim"]) if self._is_tensor4(args["self"]) else []
            return dims == [2, 3]
        if target in (aten.view.default, aten._reshape_alias.default, aten._unsafe_view.default):
            source = self.results[args["self"]]
            # NHWC and NCHW hold the same bytes only when H = W = 1.
            return source.dim() != 4 or (source.shape[2] == 1 and source.shape[3] == 1)
        if target == aten.addmm.default:
            return (self.constant(args["mat2"]) is not None and self.constant(args["self"]) is not None
                    and args["beta"] == 1 and args["alpha"] == 1
                    and self.results[args["self"]].dim() == 1)
        return False


class _Builder:
    def __init__(self, partitioner, handles, delegated):
        self.p = partitioner
        self.handles = handles          # node -> edge debug handle
        self.d = delegated
        self.values = []
        self.nodes = []
        self.constant_data = [{}]
        self.external = 0
        self.value_of = {}              # fx node -> (xnn id, layout "nhwc" | "plain")
        self.input_ids, self.output_ids = [], []

    def value(self, dims, constant=0, flags=0):
        external = NO_VALUE
        if flags:
            external = self.external
            self.external += 1
        self.values.append({"value_type": "TensorValue", "value": {
            "datatype": "fp32", "num_dims": len(dims), "dims": [int(d) for d in dims],
            "constant_buffer_idx": constant, "external_id": external, "flags": flags,
            "id_out": len(self.values)}})
        return len(self.values) - 1

    def named(self, data):
        """Bytes as named data: their constant_data index."""
        key = hashlib.sha256(data).hexdigest()
        self.d.named_data[key] = data
        self.constant_data.append({"offset": NAMED, "size": len(data), "named_key": key})
        return len(self.constant_data) - 1

    def constant(self, tensor):
        data = tensor.detach().to(torch.float32).contiguous().numpy().tobytes()
        return self.value(list(tensor.shape), constant=self.named(data))

    def quantized_value(self, datatype, dims, quant_type, quant, constant=0):
        self.values.append({"value_type": "QuantizedTensorValue", "value": {
            "tensor_value": {"datatype": datatype, "num_dims": len(dims), "dims": [int(d) for d in dims],
                             "constant_buffer_idx": constant, "external_id": NO_VALUE, "flags": 0,
                             "id_out": len(self.values)},
            "quant_params_type": quant_type, "quant_params": quant}})
        return len(self.values) - 1

    def linear_8da4w(self, node, args, handle):
        """Convert to qdint8, then a fully connected node with qbint4 weights."""
        input_node = args["mat1"] if "mat1" in args else args["self"]  # addmm / mm
        source = self.operand(input_node, node)
        rows, k = self.p.results[input_node].shape
        activations = self.quantized_value("qdint8", [rows, k], "PerTokenDynamicQuant",
                                           {"num_nonbatch_dims": 1})
        self.node("Convert", {"input_id": source, "output_id": activations}, handle)
        weight = self.p.constant(args["mat2"]).t().contiguous()  # [N, K]
        q, scales = quantization.quantize_weight(weight)
        packed = quantization.pack_nibbles(q).numpy().tobytes()
        scale_bytes = scales.contiguous().view(torch.int16).numpy().tobytes()
        scale_index = self.named(scale_bytes)
        filter_id = self.quantized_value(
            "qbint4", list(weight.shape), "PerChannelGroupQuant",
            {"channel_dim": 0, "group_size": quantization.GROUP, "scale_buffer_idx": scale_index,
             "num_scales": scales.numel()}, constant=self.named(packed))
        # No bias (mm): XNNPACK's invalid value id.
        bias = self.constant(self.p.constant(args["self"])) if "mat1" in args else NO_VALUE
        self.node("FullyConnected", {"input1_id": activations, "filter_id": filter_id, "bias_id": bias,
                                     "output_id": self.result(node, "plain")}, handle)

    def node(self, kind, params, handle, minmax=None):
        entry = {"node_type": kind, "node": params, "debug_handle": handle}
        if minmax is not None:
            entry["output_min_max"] = {"output_min": minmax[0], "output_max": minmax[1]}
        self.nodes.append(entry)

    def enter(self, node, consumer):
        """An input from outside: NCHW tensors pass a transpose to NHWC."""
        tensor = self.p.results[node]
        channels_last = tensor.dim() == 4 and not tensor.is_contiguous() and \
            tensor.is_contiguous(memory_format=torch.channels_last)
        if tensor.dim() != 4:
            vid = self.value(list(tensor.shape), flags=1)
            self.value_of[node] = (vid, "plain")
        elif channels_last:
            n, c, h, w = tensor.shape
            vid = self.value([n, h, w, c], flags=1)
            self.value_of[node] = (vid, "nhwc")
        else:
            n, c, h, w = tensor.shape
            outer = self.value([n, c, h, w], flags=1)
            vid = self.value([n, h, w, c])
            self.node("StaticTranspose", {"num_dims": 4, "perm": [0, 2, 3, 1], "input_id": outer,
                                          "output_id": vid}, self.handles[consumer])
            self.value_of[node] = (vid, "nhwc")
            self.d.delegate_map.setdefault(str(self.handles[consumer]), [self.handles[consumer]])
            vid = outer
        self.input_ids.append(vid)

    def operand(self, node, consumer):
        if node not in self.value_of:
            constant = self.p.constant(node)
            if constant is not None:
                self.value_of[node] = (self.constant(constant), "plain")
            else:
                self.enter(node, consumer)
        return self.value_of[node][0]

    def result(self, node, layout):
        tensor = self.p.results[node]
        dims = list(tensor.shape)
        if layout == "nhwc":
            dims = [dims[0], dims[2], dims[3], dims[1]]
        vid = self.value(dims)
        self.value_of[node] = (vid, layout)
        return vid

    # ops ----------------------------------------------------------------
    def lower(self, node):
        if node in self.p.folded_constants:
            return  # a transposed weight, folded into the fully connected node
        if _is_getitem(node):
            self.value_of[node] = self.value_of[node.args[0]]
            return
        target = edge_ops.INPLACE.get(node.target, node.target)
        handle = self.handles[node]
        args = edge_ops.bind(node)
        if target == aten.convolution.default:
            self._convolution(node, args, handle)
        elif target == aten.native_batch_norm.default:
            self._fold_batch_norm(node, args)
        elif target in (aten.hardtanh.default, aten.relu.default):
            low, high = (args["min_val"], args["max_val"]) if target == aten.hardtanh.default \
                else (0.0, float("inf"))
            source = self.operand(args["self"], node)
            layout = self.value_of[args["self"]][1]
            self.node("Clamp", {"input_id": source, "output_id": self.result(node, layout)}, handle,
                      (float(low), float(high)))
        elif target == aten.add.Tensor:
            a = self.operand(args["self"], node)
            b = self.operand(args["other"], node)
            layouts = {self.value_of[args["self"]][1], self.value_of[args["other"]][1]}
            if len(layouts) != 1:
                raise ValueError("%s adds tensors of two layouts" % node.name)
            self.node("Add", {"input1_id": a, "input2_id": b,
                              "output_id": self.result(node, layouts.pop())}, handle)
        elif target == aten.mean.dim:
            source = self.operand(args["self"], node)
            if args["keepdim"]:
                output = self.result(node, "nhwc")
            else:
                tensor = self.p.results[node]
                output = self.value([tensor.shape[0], 1, 1, tensor.shape[1]])
            self.node("GlobalAvgPooling2d", {"input_id": source, "output_id": output}, handle)
            if not args["keepdim"]:
                self.node("StaticReshape", {"num_dims": 2, "new_shape": list(self.p.results[node].shape),
                                            "input_id": output, "output_id": self.result(node, "plain")},
                          handle)
        elif target in (aten.view.default, aten._reshape_alias.default, aten._unsafe_view.default):
            source = self.operand(args["self"], node)
            shape = list(self.p.results[node].shape)
            layout = "nhwc" if len(shape) == 4 else "plain"
            self.node("StaticReshape", {"num_dims": len(shape), "new_shape": shape, "input_id": source,
                                        "output_id": self.result(node, layout)}, handle)
        elif target in (aten.addmm.default, aten.mm.default) and self.p.quantize == "8da4w":
            self.linear_8da4w(node, args, handle)
            if isinstance(args["mat2"], torch.fx.Node) and args["mat2"] in self.handles:
                self.d.delegate_map[str(handle)] = [self.handles[args["mat2"]], handle]
        elif target == aten.addmm.default:
            source = self.operand(args["mat1"], node)
            weight = self.constant(self.p.constant(args["mat2"]).t())
            bias = self.constant(self.p.constant(args["self"]))
            self.node("FullyConnected", {"input1_id": source, "filter_id": weight, "bias_id": bias,
                                         "output_id": self.result(node, "plain")}, handle)
            if isinstance(args["mat2"], torch.fx.Node) and args["mat2"] in self.handles:
                self.d.delegate_map[str(handle)] = [self.handles[args["mat2"]], handle]
        else:
            raise ValueError("no XNNPACK lowering for %s" % node.name)

    def folded_weights(self, node, args):
        """A convolution's weight and bias (None when it has none) with the
        batch norm that is its only user folded in, and that fold (or None)."""
        weight = self.p.constant(args["weight"]).detach()
        bias = self.p.constant(args["bias"]) if args["bias"] is not None else None
        fold = self._batch_norm_after(node)
        if fold is not None:
            scale, shift = fold
            weight = weight * scale.reshape(-1, 1, 1, 1)
            bias = shift if bias is None else bias * scale + shift
        return weight, bias, fold

    def _convolution(self, node, args, handle):
        source = self.operand(args["input"], node)
        weight, bias, fold = self.folded_weights(node, args)
        groups = args["groups"]
        out_channels, group_in, kh, kw = weight.shape
        in_channels = group_in * groups
        depthwise = groups > 1 and group_in == 1 and groups == in_channels
        if depthwise:
            filter_id = self.constant(weight.permute(1, 2, 3, 0))  # [1, KH, KW, C*M]
            kind, group_input, group_output = "DepthwiseConv2d", 1, out_channels // groups
        else:
            filter_id = self.constant(weight.permute(0, 2, 3, 1))  # OHWI
            kind, group_input, group_output = "Conv2d", group_in, out_channels // groups
        bias_id = self.constant(bias) if bias is not None else NO_VALUE
        (sh, sw), (ph, pw), (dh, dw) = args["stride"], args["padding"], args["dilation"]
        output_node = node
        if fold is not None:  # the batch norm's first output is the result
            norm = next(iter(node.users))
            output_node = next(u for u in norm.users if _is_getitem(u) and u.args[1] == 0)
        params = {"padding_top": ph, "padding_right": pw, "padding_bottom": ph, "padding_left": pw,
                  "kernel_height": kh, "kernel_width": kw, "subsampling_height": sh,
                  "subsampling_width": sw, "dilation_height": dh, "dilation_width": dw,
                  "group_input_channels": group_input, "group_output_channels": group_output,
                  "groups": groups, "input1_id": source, "filter_id": filter_id,
                  "bias_id": bias_id, "output_id": self.result(output_node, "nhwc")}
        self.node(kind, params, handle)
        if fold is not None:
            self.value_of[node] = self.value_of[norm] = self.value_of[output_node]
            self.d.delegate_map[str(handle)] = [handle, self.handles[norm]]

    def _batch_norm_after(self, node):
        """(scale, shift) of the batch norm that is this convolution's only
        user, folded into it; None when there is none."""
        users = list(node.users)
        if len(users) != 1 or users[0].target != aten.native_batch_norm.default:
            return None
        args = edge_ops.bind(users[0])
        mean, var = self.p.constant(args["running_mean"]), self.p.constant(args["running_var"])
        gamma, beta = self.p.constant(args["weight"]), self.p.constant(args["bias"])
        scale = gamma / torch.sqrt(var + args["eps"])
        return scale, beta - mean * scale

    def _fold_batch_norm(self, node, args):
        if node not in self.value_of:
            raise ValueError("%s: batch norm not folded into its convolution" % node.name)

    # the whole payload --------------------------------------------------
    def finish(self, flatc):
        for node in self.d.outputs:
            vid, layout = self.value_of[node]
            tensor = self.p.results[node]
            if layout == "nhwc" and tensor.dim() == 4:
                outer = self.value(list(tensor.shape), flags=2)
                self.node("StaticTranspose", {"num_dims": 4, "perm": [0, 3, 1, 2], "input_id": vid,
                                              "output_id": outer}, self.handles[_producer(_producer(node))])
                vid = outer
            else:
                entry = self.values[vid]["value"]
                entry["flags"], entry["external_id"] = 2, self.external
                self.external += 1
            self.output_ids.append(vid)
        graph = {"version": "0", "nodes": self.nodes, "values": self.values,
                 "num_externs": self.external, "input_ids": self.input_ids,
                 "output_ids": self.output_ids, "constant_data": self.constant_data}
        flatbuffer = compile_json(SCHEMAS["xnnpack"], graph, flatc)
        header = b"\0\0\0\0XH00" + struct.pack("<HIIIQ", 30, HEADER_SIZE, len(flatbuffer),
                                                 HEADER_SIZE + len(flatbuffer), 0)
        self.d.payload = header + b"\0" * (HEADER_SIZE - len(header)) + flatbuffer
        self.d.node_count = len(self.nodes)
        for entry in self.nodes:
            handle = entry["debug_handle"]
            self.d.delegate_map.setdefault(str(handle), [handle])


def _producer(node):
    return node.args[0] if _is_getitem(node) else node


def partition(graph_module, partitioner):
    """Maximal runs of consecutive delegable call_function nodes."""
    groups, current = [], []
    for node in graph_module.graph.nodes:
        if node.op != "call_function":
            continue
        if partitioner.supported(node):
            current.append(node)
        else:
            if current:
                groups.append(current)
            current = []
    if current:
        groups.append(current)
    # A run of nothing but reshapes and folded weight transposes computes
    # nothing worth a delegate call: it stays with the portable kernels.
    return [g for g in groups if any(edge_ops.INPLACE.get(n.target, n.target) == aten.addmm.default
                                     or n.target not in (aten.view.default, aten._reshape_alias.default,
                                                         aten._unsafe_view.default)
                                     and n not in partitioner.folded_constants for n in g)]


def lower_group(nodes, partitioner, handles, flatc):
    """The Delegated call for `nodes`: inputs read from outside, outputs read
    outside, and its payload."""
    delegated = Delegated()
    delegated.nodes = list(nodes)
    inside = set(nodes)
    for node in nodes:
        if node in partitioner.folded_constants:
            continue
        if any(user not in inside for user in node.users) and not _is_folded_bn_alias(node):
            delegated.outputs.append(node)
    if partitioner.quantize == "qs8":
        from .xnnpack_int8 import Int8Builder  # it builds on this module
        builder = Int8Builder(partitioner, handles, delegated)
    else:
        builder = _Builder(partitioner, handles, delegated)
    for node in nodes:
        builder.lower(node)
    delegated.inputs = [n for n in builder.value_of
                        if n not in inside and partitioner.constant(n) is None]
    builder.finish(flatc)
    return delegated


def _is_folded_bn_alias(node):
    # The batch norm itself is read through getitem; its getitem is the output.
    return node.target == aten.native_batch_norm.default
