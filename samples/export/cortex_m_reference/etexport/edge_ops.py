"""ATen ops as make_fx records them -> the edge-dialect out-variant kernels the
real ExecuTorch exporter emits (linear -> permute_copy + addmm, batch norm ->
_native_batch_norm_legit_no_training, views -> view_copy, clone ->
dim_order_ops::_clone_dim_order, ...).

Each rule lists the kernel's non-out arguments as (source, kind): source is
the functional op's argument name, or a callable of the bound arguments and
the eager results for values the lowering derives itself. Kinds match etkit's kernel signature
letters: T tensor, t optional tensor, I int list, J optional int list,
i int, n optional int, d double, s scalar, b bool, S string/None, E optional
double list.
"""
import operator

import torch

aten = torch.ops.aten


class Rule:
    def __init__(self, kernel, args, outputs=1, returns_list=False, check=None):
        self.kernel = kernel          # "namespace::name.overload"
        self.args = args              # [(source, kind)]
        self.outputs = outputs        # out tensors the kernel writes
        self.returns_list = returns_list  # multi-output ops also return a list
        self.check = check            # bound -> error message or None


def _const(value):
    return lambda bound, results: value


def _unary(name):
    return Rule("aten::%s.out" % name, [("self", "T")])


def _binary(name, scalar_overload, alpha):
    """Tensor/Scalar pairs: a Python number as `other` selects the Scalar
    overload, as the edge dialect does."""
    tensor_args = [("self", "T"), ("other", "T")] + ([("alpha", "s")] if alpha else [])
    scalar_args = [("self", "T"), ("other", "s")] + ([("alpha", "s")] if alpha else [])
    return {"tensor": Rule("aten::%s.out" % name, tensor_args),
            "scalar": Rule("aten::%s.%s" % (name, scalar_overload), scalar_args)}


def _permutation_for_t(bound, results):
    return [1, 0] if results[bound["self"]].dim() == 2 else [0]


RULES = {
    aten.convolution.default: Rule("aten::convolution.out", [
        ("input", "T"), ("weight", "T"), ("bias", "t"), ("stride", "I"), ("padding", "I"),
        ("dilation", "I"), ("transposed", "b"), ("output_padding", "I"), ("groups", "i")]),
    aten.native_batch_norm.default: Rule(
        "aten::_native_batch_norm_legit_no_training.out",
        [("input", "T"), ("weight", "t"), ("bias", "t"), ("running_mean", "T"),
         ("running_var", "T"), ("momentum", "d"), ("eps", "d")],
        outputs=3, returns_list=True,
        check=lambda b: "batch norm in training mode" if b["training"] else None),
    aten.native_layer_norm.default: Rule(
        "aten::native_layer_norm.out",
        [("input", "T"), ("normalized_shape", "I"), ("weight", "t"), ("bias", "t"), ("eps", "d")],
        outputs=3, returns_list=True),
    aten.max_pool2d_with_indices.default: Rule(
        "aten::max_pool2d_with_indices.out",
        [("self", "T"), ("kernel_size", "I"), ("stride", "I"), ("padding", "I"),
         ("dilation", "I"), ("ceil_mode", "b")], outputs=2, returns_list=True),
    aten.avg_pool2d.default: Rule("aten::avg_pool2d.out", [
        ("self", "T"), ("kernel_size", "I"), ("stride", "I"), ("padding", "I"),
        ("ceil_mode", "b"), ("count_include_pad", "b"), ("divisor_override", "n")]),
    aten._adaptive_avg_pool2d.default: Rule("aten::_adaptive_avg_pool2d.out",
                                            [("self", "T"), ("output_size", "I")]),
    aten.relu.default: _unary("relu"),
    aten.silu.default: _unary("silu"),
    aten.sigmoid.default: _unary("sigmoid"),
    aten.tanh.default: _unary("tanh"),
    aten.exp.default: _unary("exp"),
    aten.neg.default: _unary("neg"),
    aten.rsqrt.default: _unary("rsqrt"),
    aten.sqrt.default: _unary("sqrt"),
    aten.hardtanh.default: Rule("aten::hardtanh.out",
                                [("self", "T"), ("min_val", "s"), ("max_val", "s")]),
    aten.gelu.default: Rule("aten::gelu.out", [("self", "T"), ("approximate", "S")]),
    aten.addmm.default: Rule("aten::addmm.out", [
        ("self", "T"), ("mat1", "T"), ("mat2", "T"), ("beta", "s"), ("alpha", "s")]),
    aten.mm.default: Rule("aten::mm.out", [("self", "T"), ("mat2", "T")]),
    aten.bmm.default: Rule("aten::bmm.out", [("self", "T"), ("mat2", "T")]),
    aten.mean.dim: Rule("aten::mean.out", [
        ("self", "T"), ("dim", "J"), ("keepdim", "b"), ("dtype", "n")]),
    aten._softmax.default: Rule("aten::_softmax.out", [
        ("self", "T"), ("dim", "i"), ("half_to_float", "b")]),
    aten.embedding.default: Rule("aten::embedding.out", [
        ("weight", "T"), ("indices", "T"), ("padding_idx", "i"),
        ("scale_grad_by_freq", "b"), ("sparse", "b")]),
    aten.view.default: Rule("aten::view_copy.out", [("self", "T"), ("size", "I")]),
    aten._unsafe_view.default: Rule("aten::view_copy.out", [("self", "T"), ("size", "I")]),
    aten._reshape_alias.default: Rule("aten::view_copy.out", [("self", "T"), ("size", "I")]),
    aten.t.default: Rule("aten::permute_copy.out", [("self", "T"), (_permutation_for_t, "I")]),
    aten.permute.default: Rule("aten::permute_copy.out", [("self", "T"), ("dims", "I")]),
    aten.transpose.int: Rule("aten::transpose_copy.int_out",
                             [("self", "T"), ("dim0", "i"), ("dim1", "i")]),
    aten.unsqueeze.default: Rule("aten::unsqueeze_copy.out", [("self", "T"), ("dim", "i")]),
    aten.expand.default: Rule("aten::expand_copy.out",
                              [("self", "T"), ("size", "I"), ("implicit", "b")]),
    aten.slice.Tensor: Rule("aten::slice_copy.Tensor_out", [
        ("self", "T"), ("dim", "i"), ("start", "n"), ("end", "n"), ("step", "i")]),
    aten.select.int: Rule("aten::select_copy.int_out",
                          [("self", "T"), ("dim", "i"), ("index", "i")]),
    aten.clone.default: Rule("dim_order_ops::_clone_dim_order.out", [
        ("self", "T"), (_const(False), "b"), (_const(None), "J")]),
    aten.eq.Scalar: Rule("aten::eq.Scalar_out", [("self", "T"), ("other", "s")]),
    aten.masked_fill.Scalar: Rule("aten::masked_fill.Scalar_out",
                                  [("self", "T"), ("mask", "T"), ("value", "s")]),
    aten.where.self: Rule("aten::where.self_out",
                          [("condition", "T"), ("self", "T"), ("other", "T")]),
    aten.upsample_bilinear2d.vec: Rule("aten::upsample_bilinear2d.vec_out", [
        ("input", "T"), ("output_size", "J"), ("align_corners", "b"), ("scale_factors", "E")]),
    aten.reflection_pad2d.default: Rule("aten::reflection_pad2d.out", [("self", "T"), ("padding", "I")]),
    aten.pixel_shuffle.default: Rule("aten::pixel_shuffle.out", [("self", "T"), ("upscale_factor", "i")]),
    aten.gather.default: Rule("aten::gather.out", [
        ("self", "T"), ("dim", "i"), ("index", "T"), ("sparse_grad", "b")]),
    aten.arange.start: Rule("aten::arange.start_out",
                            [("start", "s"), ("end", "s"), (_const(1), "s")]),
}

BINARY = {
    aten.add.Tensor: _binary("add", "Scalar_out", alpha=True),
    aten.sub.Tensor: _binary("sub", "Scalar_out", alpha=True),
    aten.mul.Tensor: _binary("mul", "Scalar_out", alpha=False),
    aten.div.Tensor: _binary("div", "Scalar_out", alpha=False),
}

# Ops that return their input (or a value equal to it) and need no kernel.
ALIASES = {aten.detach.default, aten.alias.default, aten.lift_fresh_copy.default}

# In-place forms traced from user code such as `out += identity`; lowered to
# the functional op after checking nothing reads the overwritten input.
INPLACE = {aten.add_.Tensor: aten.add.Tensor, aten.relu_.default: aten.relu.default,
           aten.mul_.Tensor: aten.mul.Tensor, aten.hardtanh_.default: aten.hardtanh.default}

SPLITS = {aten.split.Tensor, aten.split_with_sizes.default}


def bind(node, with_defaults=True):
    """The node's arguments by schema name; defaults filled in, or (for
    serializing the graph as traced) left out."""
    schema = node.target._schema
    bound = {}
    for index, argument in enumerate(schema.arguments):
        if index < len(node.args):
            bound[argument.name] = node.args[index]
        elif argument.name in node.kwargs:
            bound[argument.name] = node.kwargs[argument.name]
        elif not with_defaults:
            continue
        elif argument.has_default_value():
            bound[argument.name] = argument.default_value
        else:
            bound[argument.name] = None
    return bound


# Ops defined by the exporter itself (torch.library, etexport/cortex_m.py):
# their kernel is the schema's out variant, with every argument in order.
SCHEMA_NAMESPACES = ("cortex_m::", "dim_order_ops::", "llama::", "quantized_decomposed::")
_SCHEMA_KINDS = {"Tensor": "T", "Optional[Tensor]": "t", "List[int]": "I", "Optional[List[int]]": "J",
                 "int": "i", "float": "d", "Optional[float]": "d", "bool": "b"}


def _schema_rule(target):
    schema = target._schema
    return Rule(schema.name + ".out", [(a.name, _SCHEMA_KINDS[str(a.type)]) for a in schema.arguments])


def rule_for(target, bound):
    """The lowering rule for a functional ATen op, or None if unsupported."""
    if hasattr(target, "_schema") and target._schema.name.startswith(SCHEMA_NAMESPACES):
        return _schema_rule(target)
    if target in BINARY:
        other = bound["other"]
        return BINARY[target]["scalar" if not isinstance(other, torch.fx.Node) else "tensor"]
    return RULES.get(target)


def is_getitem(node):
    return node.op == "call_function" and node.target is operator.getitem
