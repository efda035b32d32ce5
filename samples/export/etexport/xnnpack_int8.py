"""Static int8 XNNPACK calls (quantize="qs8"), as upstream lowers a PT2E
program quantized with the XNNPACK quantizer: a Convert from fp32 to qs8 at
each input, qs8 activations per tensor between nodes (the q/dq pairs of the
edge graph become quantization parameters of the values), convolutions and
fully connected layers with per-channel int8 filters (qcint8) and int32
biases (qcint32), and a Convert back to fp32 at each output.

A hardtanh or relu that is a convolution's only user is fused into it as
the node's output range, as upstream's activation fusion does: the
convolution's value is the activation's, quantized to its range, and its
debug handle joins the convolution's in the delegate map.

Each lowering also appends a step of the reference arithmetic (int8.py) to
the Delegated call, so a bundle's expected outputs come from PyTorch ops
rather than from the runtime under test.
"""
import torch
import torch.nn.functional as F

from . import edge_ops
from . import int8
from . import xnnpack

aten = torch.ops.aten
_VIEWS = (aten.view.default, aten._reshape_alias.default, aten._unsafe_view.default)
_ACTIVATIONS = (aten.hardtanh.default, aten.relu.default)


def _target(node):
    return edge_ops.INPLACE.get(node.target, node.target)


class Int8Builder(xnnpack._Builder):
    def __init__(self, partitioner, handles, delegated):
        super().__init__(partitioner, handles, delegated)
        self.inside = set(delegated.nodes)
        self.fused = set()  # activations fused into their convolution
        delegated.steps = []
        self.steps = delegated.steps

    # quantization parameters ---------------------------------------------
    def params(self, node):
        """(scale, zero point) of the qs8 value holding `node`'s result."""
        if node.op == "call_function" and _target(node) in _VIEWS:
            return self.params(edge_ops.bind(node)["self"])
        users = [u for u in node.users if u in self.inside]
        if len(node.users) == 1 and users and _target(users[0]) in _ACTIVATIONS:
            # A convolution feeding its activation is quantized to the
            # activation's range (upstream's fused conv-relu annotation).
            return self.params(users[0])
        return self.p.calibration.params(node)

    def quantized(self, dims, params):
        scale, zero_point = params
        return self.quantized_value("qint8", dims, "PerTensorQuant",
                                    {"scale": scale, "zero_point": zero_point})

    def result(self, node, layout):
        tensor = self.p.results[node]
        dims = list(tensor.shape)
        if layout == "nhwc":
            dims = [dims[0], dims[2], dims[3], dims[1]]
        vid = self.quantized(dims, self.params(node))
        self.value_of[node] = (vid, layout)
        return vid

    def channel_constant(self, q, scales, datatype, channel_dim):
        data = q.contiguous().numpy().tobytes()
        return self.quantized_value(datatype, list(q.shape), "PerChannelQuant",
                                    {"scale": [float(s) for s in scales], "channel_dim": channel_dim},
                                    constant=self.named(data))

    # inputs and outputs ------------------------------------------------
    def enter(self, node, consumer):
        super().enter(node, consumer)
        source, layout = self.value_of[node]
        params = self.p.calibration.params(node)
        tensor = self.p.results[node]
        dims = list(tensor.shape)
        if layout == "nhwc":
            dims = [dims[0], dims[2], dims[3], dims[1]]
        vid = self.quantized(dims, params)
        self.node("Convert", {"input_id": source, "output_id": vid}, self.handles[consumer])
        self.value_of[node] = (vid, layout)
        self.steps.append(lambda floats, ints: ints.__setitem__(node, int8.quantize(floats[node], *params)))

    def finish(self, flatc):
        for node in self.d.outputs:
            vid, layout = self.value_of[node]
            params = self.params(node)
            out = self.value(self.values[vid]["value"]["tensor_value"]["dims"])
            self.node("Convert", {"input_id": vid, "output_id": out},
                      self.handles[xnnpack._producer(node)])
            self.value_of[node] = (out, layout)
            self.steps.append(lambda floats, ints, node=node, params=params:
                              floats.__setitem__(node, int8.dequantize(ints[node], *params)))
        super().finish(flatc)

    # ops ---------------------------------------------------------------
    def fused_activation(self, node):
        """The hardtanh or relu that is `node`'s only user, or None."""
        users = list(node.users)
        if len(users) == 1 and users[0] in self.inside and _target(users[0]) in _ACTIVATIONS:
            return users[0]
        return None

    def lower(self, node):
        if node in self.p.folded_constants or xnnpack._is_getitem(node):
            return super().lower(node)
        if node in self.fused:
            return  # its convolution computed it
        target = _target(node)
        args = edge_ops.bind(node)
        handle = self.handles[node]
        if target == aten.convolution.default:
            return self._convolution(node, args, handle)
        if target == aten.addmm.default:
            return self._linear(node, args, handle)
        if target == aten.mean.dim:
            return self._mean(node, args, handle)
        super().lower(node)
        if target in _ACTIVATIONS:
            low, high = (args["min_val"], args["max_val"]) if target == aten.hardtanh.default \
                else (0.0, float("inf"))
            lo, hi = int8.clamp_bounds(float(low), float(high), self.params(node))
            source = args["self"]
            self.steps.append(lambda floats, ints: ints.__setitem__(node, ints[source].clamp(lo, hi)))
        elif target == aten.add.Tensor:
            a, b = args["self"], args["other"]
            pa, pb, po = self.params(a), self.params(b), self.params(node)
            self.steps.append(lambda floats, ints: ints.__setitem__(
                node, int8.add(ints[a], pa, ints[b], pb, po)))
        elif target in _VIEWS:
            source, shape = args["self"], list(self.p.results[node].shape)
            self.steps.append(lambda floats, ints: ints.__setitem__(node, ints[source].reshape(shape)))

    def _convolution(self, node, args, handle):
        source_node = args["input"]
        source = self.operand(source_node, node)
        in_params = self.params(source_node)
        weight, bias, fold = self.folded_weights(node, args)
        weight = weight.float()
        if bias is None:
            bias = torch.zeros(weight.shape[0])
        q, w_scales = int8.channel_weights(weight)
        q_bias, b_scales = int8.bias_int32(bias, in_params[0], w_scales)
        groups = args["groups"]
        out_channels, group_in, kh, kw = weight.shape
        depthwise = groups > 1 and group_in == 1 and groups == group_in * groups
        if depthwise:
            filter_id = self.channel_constant(q.permute(1, 2, 3, 0), w_scales, "qcint8", 3)
            kind, group_input = "DepthwiseConv2d", 1
        else:
            filter_id = self.channel_constant(q.permute(0, 2, 3, 1), w_scales, "qcint8", 0)
            kind, group_input = "Conv2d", group_in
        bias_id = self.channel_constant(q_bias, b_scales, "qcint32", 0)
        output_node = node
        if fold is not None:
            norm = next(iter(node.users))
            output_node = next(u for u in norm.users if xnnpack._is_getitem(u) and u.args[1] == 0)
        activation = self.fused_activation(output_node)
        minmax, bounds = None, (int8.QMIN, int8.QMAX)
        if activation is not None:
            act_args = edge_ops.bind(activation)
            minmax = (float(act_args["min_val"]), float(act_args["max_val"])) \
                if _target(activation) == aten.hardtanh.default else (0.0, float("inf"))
            bounds = int8.clamp_bounds(minmax[0], minmax[1], self.params(output_node))
        (sh, sw), (ph, pw), (dh, dw) = args["stride"], args["padding"], args["dilation"]
        self.node(kind, {"padding_top": ph, "padding_right": pw, "padding_bottom": ph,
                         "padding_left": pw, "kernel_height": kh, "kernel_width": kw,
                         "subsampling_height": sh, "subsampling_width": sw, "dilation_height": dh,
                         "dilation_width": dw, "group_input_channels": group_input,
                         "group_output_channels": out_channels // groups, "groups": groups,
                         "input1_id": source, "filter_id": filter_id, "bias_id": bias_id,
                         "output_id": self.result(output_node, "nhwc")}, handle, minmax)
        if fold is not None:
            self.value_of[node] = self.value_of[norm] = self.value_of[output_node]
            self.d.delegate_map[str(handle)] = [handle, self.handles[norm]]
        if activation is not None:
            self.fused.add(activation)
            self.value_of[activation] = self.value_of[output_node]
            self.d.delegate_map.setdefault(str(handle), [handle]).append(self.handles[activation])
        out_params = self.params(output_node)
        rescale = int8.requant_scales(in_params[0], w_scales, out_params[0]).reshape(1, -1, 1, 1)
        stride, padding, dilation = list(args["stride"]), list(args["padding"]), list(args["dilation"])

        def step(floats, ints):
            acc = F.conv2d(ints[source_node].double() - in_params[1], q.double(), q_bias.double(),
                           stride, padding, dilation, groups)
            ints[output_node] = int8.requantize(acc, rescale, out_params[1], *bounds)
            if activation is not None:
                ints[activation] = ints[output_node]
        self.steps.append(step)

    def _linear(self, node, args, handle):
        source_node = args["mat1"]
        source = self.operand(source_node, node)
        in_params, out_params = self.params(source_node), self.params(node)
        weight = self.p.constant(args["mat2"]).t().contiguous().float()  # [N, K]
        q, w_scales = int8.channel_weights(weight)
        q_bias, b_scales = int8.bias_int32(self.p.constant(args["self"]), in_params[0], w_scales)
        filter_id = self.channel_constant(q, w_scales, "qcint8", 0)
        bias_id = self.channel_constant(q_bias, b_scales, "qcint32", 0)
        self.node("FullyConnected", {"input1_id": source, "filter_id": filter_id, "bias_id": bias_id,
                                     "output_id": self.result(node, "plain")}, handle)
        if isinstance(args["mat2"], torch.fx.Node) and args["mat2"] in self.handles:
            self.d.delegate_map[str(handle)] = [self.handles[args["mat2"]], handle]
        rescale = int8.requant_scales(in_params[0], w_scales, out_params[0])

        def step(floats, ints):
            acc = (ints[source_node].double() - in_params[1]) @ q.double().t() + q_bias.double()
            ints[node] = int8.requantize(acc, rescale, out_params[1])
        self.steps.append(step)

    def _mean(self, node, args, handle):
        source_node = args["self"]
        source = self.operand(source_node, node)
        in_params, out_params = self.params(source_node), self.params(node)
        tensor = self.p.results[node]
        if args["keepdim"]:
            output = self.result(node, "nhwc")
        else:
            output = self.quantized([tensor.shape[0], 1, 1, tensor.shape[1]], out_params)
        self.node("GlobalAvgPooling2d", {"input_id": source, "output_id": output}, handle)
        if not args["keepdim"]:
            self.node("StaticReshape", {"num_dims": 2, "new_shape": list(tensor.shape),
                                        "input_id": output, "output_id": self.result(node, "plain")},
                      handle)
        shape = list(tensor.shape)

        def step(floats, ints):
            ints[node] = int8.global_average(ints[source_node], in_params, out_params).reshape(shape)
        self.steps.append(step)
