"""Static int8 lowering to upstream's Cortex-M op set (cortex_m::, CMSIS-NN
semantics), the way its quantizer and passes leave a CNN: the input moved to
channels-last and quantized, each convolution with its batch norm folded and
its ReLU as the activation range, residual adds with CMSIS-NN's per-input
multipliers, pooling on int8, a per-tensor fully connected layer, the logits
dequantized.

The ops are defined here as PyTorch custom ops (torch.library) whose Python
implementations are the reference integer arithmetic, written from
CMSIS-NN's documented semantics (Q31 multipliers with a power-of-two shift,
rounding doubling high multiply, rounding right shift ties away from zero,
the add's 2^20 input scaling, averages rounded half away from zero). The
lowered graph run eagerly gives the bundle's expected outputs, so etkit's
kernels (core/kernels/cortex_m) are checked against an implementation that
shares no code with them. Activation parameters follow int8.py (min/max
over calibration inputs); weights are symmetric int8, per output channel for
convolutions and per tensor for the fully connected layer (whose op takes
one multiplier).
"""
import math

import torch
import torch.fx
import torch.nn.functional as F
from torch.library import Library

from . import edge_ops
from . import int8
from .capture import Captured

aten = torch.ops.aten
QMIN, QMAX = -128, 127
ADD_LEFT_SHIFT = 20  # CMSIS-NN scales add inputs by 2^20 before requantizing

_CORTEX_M = Library("cortex_m", "DEF")
_DIM_ORDER = Library("dim_order_ops", "DEF")


# ---- CMSIS-NN integer arithmetic on int64 tensors --------------------------

def quantize_multiplier(real):
    """A positive real as (Q31 multiplier, shift): real = m / 2^31 * 2^shift."""
    if not real > 0:
        raise ValueError("requantization scale %r is not positive" % real)
    mantissa, exponent = math.frexp(real)
    multiplier = round(mantissa * 2**31)
    if multiplier == 2**31:
        multiplier //= 2
        exponent += 1
    if not -31 <= exponent <= 31:
        raise ValueError("requantization scale %r needs a shift outside [-31, 31]" % real)
    return multiplier, exponent


def _wrap32(x):
    return ((x + 2**31) % 2**32) - 2**31


def rounding_divide_by_power_of_two(x, exponent):
    """x / 2^exponent rounded to nearest, ties away from zero."""
    mask = (torch.ones_like(x) << exponent) - 1
    remainder = x & mask
    threshold = (mask >> 1) + (x < 0).long()
    return (x >> exponent) + (remainder > threshold).long()


def requantize(acc, multiplier, shift):
    """acc * multiplier / 2^(31 - shift) as CMSIS-NN computes it: a positive
    shift scales up (32-bit wrap) before the rounding doubling high multiply
    (offset 2^30, floor), a negative one divides after it."""
    multiplier = torch.as_tensor(multiplier, dtype=torch.long)
    shift = torch.as_tensor(shift, dtype=torch.long)
    left, right = shift.clamp(min=0), (-shift).clamp(min=0)
    scaled = _wrap32(acc.long() << left)
    high = (scaled * multiplier + 2**30) >> 31
    return rounding_divide_by_power_of_two(high, torch.broadcast_to(right, high.shape))


def _channels(t):
    return t.view(1, -1, 1, 1)


def _int8_nhwc(values):
    out = values.clamp(QMIN, QMAX).to(torch.int8)
    return out.contiguous(memory_format=torch.channels_last) if out.dim() == 4 else out.contiguous()


# ---- the ops: upstream's schemas, reference implementations ---------------

def _define(library, schema, fn):
    library.define(schema)
    library.impl(schema.split("(")[0], fn, "CPU")


def _to_dim_order_copy(x, non_blocking=False, dim_order=None):
    if dim_order is None or list(dim_order) == list(range(x.dim())):
        return x.contiguous()
    if list(dim_order) == [0, 2, 3, 1]:
        return x.contiguous(memory_format=torch.channels_last)
    raise ValueError("dim order %s" % (dim_order,))


def _quantize_per_tensor(x, scale, zero_point, quant_min, quant_max, dtype):
    inverse = torch.tensor(1.0, dtype=torch.float32) / torch.tensor(scale, dtype=torch.float32)
    q = torch.round(x.float() * inverse).long() + zero_point  # half to even, as nearbyint
    return q.clamp(quant_min, quant_max).to(torch.int8)


def _dequantize_per_tensor(q, scale, zero_point, quant_min, quant_max, dtype):
    return (q.long() - zero_point).float() * torch.tensor(scale, dtype=torch.float32)


def _quantized_conv2d(x, weight, bias, stride, padding, dilation, input_offset, output_offset,
                      multipliers, shifts, activation_min, activation_max, scratch):
    # Exact integer sums through float64 (|terms| < 2^15, fewer than 2^20 of them).
    w = weight.permute(0, 3, 1, 2).double()  # OHWI -> OIHW
    acc = F.conv2d(x.double() + input_offset, w, None, stride, padding, dilation).round().long()
    if bias is not None:
        acc = acc + _channels(bias.long())
    out = requantize(acc, _channels(multipliers.long()), _channels(shifts.long())) + output_offset
    return _int8_nhwc(out.clamp(activation_min, activation_max))


def _quantized_add(a, a_zero_point, a_multiplier, a_shift, b, b_zero_point, b_multiplier, b_shift,
                   output_zero_point, output_multiplier, output_shift, activation_min, activation_max):
    lhs = requantize((a.long() - a_zero_point) << ADD_LEFT_SHIFT, a_multiplier, a_shift)
    rhs = requantize((b.long() - b_zero_point) << ADD_LEFT_SHIFT, b_multiplier, b_shift)
    out = requantize(lhs + rhs, output_multiplier, output_shift) + output_zero_point
    return _int8_nhwc(out.clamp(activation_min, activation_max))


def _quantized_max_pool2d(x, kernel_size, stride, padding, dilation, ceil_mode, input_zero_point,
                          output_zero_point, activation_min, activation_max):
    # Padding never wins: pad with a value below every int8.
    padded = F.pad(x.double(), [padding[1], padding[1], padding[0], padding[0]], value=-1000.0)
    out = F.max_pool2d(padded, kernel_size, stride).long()
    return _int8_nhwc(out.clamp(activation_min, activation_max))


def _quantized_avg_pool2d(x, kernel_size, stride, padding, ceil_mode, zero_point, multiplier, shift,
                          scratch):
    if any(padding):
        raise ValueError("the reference average pool takes no padding")
    sums = (F.avg_pool2d(x.double(), kernel_size, stride) * (kernel_size[0] * kernel_size[1])).round().long()
    count = kernel_size[0] * kernel_size[1]
    half = count // 2
    # Half away from zero: the magnitude rounds up at .5, the sign stays.
    out = torch.where(sums > 0, (sums + half) // count, -((-sums + half) // count))
    return _int8_nhwc(out)


def _quantized_linear(x, weights, bias, kernel_sum, input_offset, filter_offset, output_offset,
                      requantize_multipliers, requantize_shifts, activation_max, activation_min):
    acc = ((x.double() + input_offset) @ (weights.double() + filter_offset).t()).round().long()
    if bias is not None:
        acc = acc + bias.long()
    out = requantize(acc, requantize_multipliers[0], requantize_shifts[0]) + output_offset
    return out.clamp(activation_min, activation_max).to(torch.int8)


_define(_DIM_ORDER, "_to_dim_order_copy(Tensor self, bool non_blocking=False, int[]? dim_order=None) -> Tensor",
        _to_dim_order_copy)
_define(_CORTEX_M, "quantize_per_tensor(Tensor input, float scale, int zero_point, int quant_min, "
        "int quant_max, ScalarType dtype) -> Tensor", _quantize_per_tensor)
_define(_CORTEX_M, "dequantize_per_tensor(Tensor input, float scale, int zero_point, int quant_min, "
        "int quant_max, ScalarType dtype) -> Tensor", _dequantize_per_tensor)
_define(_CORTEX_M, "quantized_conv2d(Tensor input, Tensor weight, Tensor? bias, int[] stride, "
        "int[] padding, int[] dilation, int input_offset, int output_offset, "
        "Tensor requantize_multipliers, Tensor requantize_shifts, int activation_min, "
        "int activation_max, Tensor scratch) -> Tensor", _quantized_conv2d)
_define(_CORTEX_M, "quantized_add(Tensor self, int self_zero_point, int self_multiplier, int self_shift, "
        "Tensor other, int other_zero_point, int other_multiplier, int other_shift, "
        "int output_zero_point, int output_multiplier, int output_shift, int activation_min, "
        "int activation_max) -> Tensor", _quantized_add)
_define(_CORTEX_M, "quantized_max_pool2d(Tensor input, int[] kernel_size, int[] stride, int[] padding, "
        "int[] dilation, bool ceil_mode, int input_zero_point, int output_zero_point, "
        "int activation_min, int activation_max) -> Tensor", _quantized_max_pool2d)
_define(_CORTEX_M, "quantized_avg_pool2d(Tensor input, int[] kernel_size, int[] stride, int[] padding, "
        "bool ceil_mode, int zero_point, int multiplier, int shift, Tensor scratch) -> Tensor",
        _quantized_avg_pool2d)
_define(_CORTEX_M, "quantized_linear(Tensor input, Tensor weights, Tensor? bias, Tensor? kernel_sum, "
        "int input_offset, int filter_offset, int output_offset, int[] requantize_multipliers, "
        "int[] requantize_shifts, int activation_max, int activation_min) -> Tensor",
        _quantized_linear)
cm = torch.ops.cortex_m


# ---- lowering a captured float CNN ----------------------------------------

class CortexMLowering:
    """Builds the int8 graph from the float one, node by node; every new node
    keeps the module stack and source lines of the float node it replaces."""

    def __init__(self, captured, calibration):
        self.source = captured.graph_module.graph
        self.calibration = calibration
        placeholders = [n for n in self.source.nodes if n.op == "placeholder"]
        self.float_constants = {n: captured.constants[i] for i, n in enumerate(placeholders)
                                if i < len(captured.constant_names)}
        self.graph = torch.fx.Graph()
        self.constant_names, self.constants = [], []
        self.value = {}     # float node -> (int8 graph node, (scale, zero point))
        self.done = set()   # float nodes folded into an earlier op
        self.scratch = None

    # constants are the new graph's leading placeholders, as capture() makes them
    def constant(self, name, tensor):
        self.constant_names.append(name)
        self.constants.append(tensor.contiguous())
        with self.graph.inserting_before(self._first_input()):
            return self.graph.placeholder(name)

    def _first_input(self):
        for node in self.graph.nodes:
            if node.op == "placeholder" and node.name not in self.constant_names:
                return node
        return None

    def call(self, target, args, like):
        node = self.graph.call_function(target, tuple(args))
        node.meta["nn_module_stack"] = like.meta.get("nn_module_stack", [])
        node.meta["stack_trace"] = like.meta.get("stack_trace", "")
        return node

    def scratch_tensor(self):
        # CMSIS-NN working memory the ops carry; the reference and etkit need none.
        if self.scratch is None:
            self.scratch = self.constant("scratch", torch.zeros(1, dtype=torch.int8))
        return self.scratch

    def only_user(self, node, targets):
        users = list(node.users)
        if len(users) == 1 and users[0].op == "call_function" and users[0].target in targets:
            return users[0]
        return None

    def lower(self):
        for node in self.source.nodes:
            if node in self.done or node in self.float_constants or (node.op == "call_function" and not node.users):
                continue  # folded, a float constant, or dead (batch norm's unused empty())
            if node.op == "placeholder":
                self.input(node)
            elif node.op == "output":
                self.output(node)
            elif node.target is aten.convolution.default:
                self.convolution(node)
            elif node.target in (aten.add.Tensor, aten.add_.Tensor):
                self.add(node)
            elif node.target is aten.max_pool2d_with_indices.default:
                self.max_pool(node)
            elif node.target in (aten._adaptive_avg_pool2d.default, aten.mean.dim):
                self.global_average(node)
            elif node.target in (aten.view.default, aten._unsafe_view.default, aten._reshape_alias.default):
                source, params = self.value[node.args[0]]
                self.value[node] = (self.call(aten.view.default, [source, list(node.args[1])], node), params)
            elif node.target is aten.t.default and node.args[0] in self.float_constants:
                continue  # a linear's weight: read by its addmm
            elif node.target is aten.addmm.default:
                self.linear(node)
            else:
                raise ValueError("no Cortex-M lowering for %s (node %s)" % (node.target, node.name))
        graph_module = torch.fx.GraphModule(torch.nn.Module(), self.graph)
        return Captured(graph_module, self.constant_names, self.constants, 1)

    def input(self, node):
        x = self.graph.placeholder(node.name)
        params = self.calibration.params(node)
        nhwc = self.call(torch.ops.dim_order_ops._to_dim_order_copy.default, [x, False, [0, 2, 3, 1]], node)
        q = self.call(cm.quantize_per_tensor.default, [nhwc, params[0], params[1], QMIN, QMAX, torch.int8], node)
        self.value[node] = (q, params)

    def output(self, node):
        flat = node.args[0] if isinstance(node.args[0], (list, tuple)) else [node.args[0]]
        outs = []
        for value in flat:
            q, (scale, zero_point) = self.value[value]
            outs.append(self.call(cm.dequantize_per_tensor.default,
                                  [q, scale, zero_point, QMIN, QMAX, torch.int8], value))
        self.graph.output(outs[0] if len(outs) == 1 else tuple(outs))

    def _relu_after(self, node):
        relu = self.only_user(node, (aten.relu.default, aten.relu_.default))
        if relu is not None:
            self.done.add(relu)
        return relu

    def convolution(self, node):
        x, weight, bias, stride, padding, dilation, transposed, _output_padding, groups = node.args
        if transposed or groups != 1:
            raise ValueError("%s: only plain convolutions are lowered" % node.name)
        w = self.float_constants[weight].double()
        b = self.float_constants[bias].double() if bias is not None else torch.zeros(w.shape[0], dtype=torch.double)
        end = node
        norm = self.only_user(node, (aten.native_batch_norm.default,))
        if norm is not None:  # fold: w * gamma / sqrt(var + eps), (b - mean) * gamma / sqrt(var + eps) + beta
            _, gamma, beta, mean, var, _training, _momentum, eps = norm.args
            gamma, beta, mean, var = (self.float_constants[t].double() for t in (gamma, beta, mean, var))
            factor = gamma / torch.sqrt(var + eps)
            w = w * factor.view(-1, 1, 1, 1)
            b = (b - mean) * factor + beta
            first = [u for u in norm.users if edge_ops.is_getitem(u) and u.args[1] == 0]
            self.done.update([norm] + list(norm.users))
            end = first[0]
        relu = self._relu_after(end)
        end = relu or end
        source, (in_scale, in_zero) = self.value[x]
        out_scale, out_zero = self.calibration.params(end)
        q_w, w_scales = int8.channel_weights(w.float())
        q_b = torch.round(b / (in_scale * w_scales.double())).clamp(-2**31, 2**31 - 1).to(torch.int32)
        pairs = [quantize_multiplier(float(in_scale * s / out_scale)) for s in w_scales.double()]
        name = end.name
        args = [source, self.constant(name + "_weight", q_w.permute(0, 2, 3, 1)),
                self.constant(name + "_bias", q_b), list(stride), list(padding), list(dilation),
                -in_zero, out_zero,
                self.constant(name + "_multipliers", torch.tensor([m for m, _ in pairs], dtype=torch.int32)),
                self.constant(name + "_shifts", torch.tensor([s for _, s in pairs], dtype=torch.int32)),
                out_zero if relu is not None else QMIN, QMAX, self.scratch_tensor()]
        self.value[end] = (self.call(cm.quantized_conv2d.default, args, node), (out_scale, out_zero))

    def add(self, node):
        a, b = node.args[:2]
        if node.kwargs.get("alpha", 1) != 1 or not isinstance(b, torch.fx.Node):
            raise ValueError("%s: only a + b of two tensors is lowered" % node.name)
        relu = self._relu_after(node)
        end = relu or node
        (qa, (sa, za)), (qb, (sb, zb)) = self.value[a], self.value[b]
        so, zo = self.calibration.params(end)
        twice_max = 2 * max(sa, sb)
        ma, sha = quantize_multiplier(sa / twice_max)
        mb, shb = quantize_multiplier(sb / twice_max)
        mo, sho = quantize_multiplier(twice_max / ((1 << ADD_LEFT_SHIFT) * so))
        args = [qa, za, ma, sha, qb, zb, mb, shb, zo, mo, sho, zo if relu is not None else QMIN, QMAX]
        self.value[end] = (self.call(cm.quantized_add.default, args, node), (so, zo))

    def max_pool(self, node):
        bound = edge_ops.bind(node)
        x, kernel, padding, dilation = bound["self"], bound["kernel_size"], bound["padding"], bound["dilation"]
        stride, ceil_mode = bound["stride"] or kernel, bound["ceil_mode"]
        source, (scale, zero) = self.value[x]
        first = [u for u in node.users if edge_ops.is_getitem(u) and u.args[1] == 0]
        self.done.update(node.users)
        args = [source, list(kernel), list(stride), list(padding), list(dilation), bool(ceil_mode),
                zero, zero, QMIN, QMAX]
        # Max commutes with the affine map: the output keeps the input's parameters.
        self.value[first[0]] = (self.call(cm.quantized_max_pool2d.default, args, node), (scale, zero))

    def global_average(self, node):
        x = node.args[0]
        source, params = self.value[x]
        height, width = self.calibration.shapes[x][2:]
        if node.target is aten._adaptive_avg_pool2d.default and list(node.args[1]) != [1, 1]:
            raise ValueError("%s: only a global average pool is lowered" % node.name)
        # The op carries a zero point, multiplier and shift it does not apply
        # (as upstream's kernel): the mean keeps the input's parameters.
        args = [source, [height, width], [height, width], [0, 0], False, params[1], 1 << 30, 1,
                self.scratch_tensor()]
        self.value[node] = (self.call(cm.quantized_avg_pool2d.default, args, node), params)

    def linear(self, node):
        bias, x, transposed = node.args[:3]
        if transposed.target is not aten.t.default or node.kwargs.get("beta", 1) != 1 \
                or node.kwargs.get("alpha", 1) != 1:
            raise ValueError("%s: only nn.Linear's addmm is lowered" % node.name)
        w = self.float_constants[transposed.args[0]].float()
        b = self.float_constants[bias].double()
        source, (in_scale, in_zero) = self.value[x]
        out_scale, out_zero = self.calibration.params(node)
        w_scale = max(float(w.abs().max()) / 127, float(torch.finfo(torch.float32).eps))
        q_w = torch.clamp(torch.round(w / w_scale), -127, 127).to(torch.int8)
        q_b = torch.round(b / (in_scale * w_scale)).clamp(-2**31, 2**31 - 1).to(torch.int32)
        multiplier, shift = quantize_multiplier(in_scale * w_scale / out_scale)
        args = [source, self.constant(node.name + "_weight", q_w), self.constant(node.name + "_bias", q_b),
                None, -in_zero, 0, out_zero, [multiplier], [shift], QMAX, QMIN]
        self.value[node] = (self.call(cm.quantized_linear.default, args, node), (out_scale, out_zero))


class ShapeCalibration(int8.Calibration):
    """int8.Calibration that also keeps each node's result shape."""

    def __init__(self):
        super().__init__()
        self.shapes = {}

    def observe(self, results):
        super().observe(results)
        for node, value in results.items():
            if isinstance(value, torch.Tensor):
                self.shapes[node] = tuple(value.shape)


def lower_to_cortex_m(captured, calibration):
    """The captured float graph as a graph of cortex_m:: ops (a Captured
    whose constants are the int8 weights, int32 biases and requantization
    parameters)."""
    return CortexMLowering(captured, calibration).lower()
