"""Emits one method from a captured graph: the values table, the instruction
chain of edge out-variant kernels, planned memory, constants, and the
bookkeeping the ETRecord needs (debug handle per node, instruction -> handles).
"""
import torch
import torch.fx

from . import edge_ops
from . import memory_plan

SCALAR_TYPES = {
    torch.uint8: "BYTE", torch.int8: "CHAR", torch.int16: "SHORT", torch.int32: "INT",
    torch.int64: "LONG", torch.float16: "HALF", torch.float32: "FLOAT",
    torch.float64: "DOUBLE", torch.bool: "BOOL", torch.bfloat16: "BFLOAT16",
}


class ExportError(Exception):
    pass


def record_values(graph_module, inputs):
    """Runs the graph eagerly and keeps every node's result: tensor shapes for
    outputs the graph never reads, and reference intermediates for `gap`."""
    results = {}

    def snapshot(value):
        # In-place ops later in the graph (`out += identity`) would change a
        # kept tensor, so keep copies.
        if isinstance(value, torch.Tensor):
            return value.clone()
        if isinstance(value, (tuple, list)):
            return type(value)(snapshot(v) for v in value)
        return value

    class Recorder(torch.fx.Interpreter):
        def run_node(self, node):
            result = super().run_node(node)
            results[node] = snapshot(result)
            return result

    with torch.no_grad():
        Recorder(graph_module).run(*inputs)
    return results


class Instruction:
    def __init__(self, op_index, args, node, kernel, delegate_index=None, handles=None):
        self.op_index = op_index
        self.args = args
        self.node = node
        self.kernel = kernel                  # operator, or the backend of a delegate call
        self.delegate_index = delegate_index  # set for delegate calls
        self.handles = handles                # debug handles of a delegate call's nodes


class EmittedMethod:
    """Everything about one method the writers need."""

    def __init__(self, name):
        self.name = name
        self.values = []
        self.inputs = []
        self.outputs = []
        self.instructions = []
        self.operators = []        # [(name, overload)]
        self.arena_size = 0
        self.allocations = []
        self.debug_handles = {}    # node -> handle (1-based, graph order)
        self.node_kernels = {}     # node -> edge kernel, delegated nodes included
        self.delegates = []        # none: this exporter lowers to kernels only (the ETRecord writer reads it)
        self.node_results = {}     # node -> eager tensor(s)
        self.mutable_states = []   # initial state of each mutable buffer (data_buffer_idx - 1)
        self.graph_module = None


class _Emitter:
    def __init__(self, method, constants):
        self.method = method
        self.constants = constants   # shared by all methods; data_buffer_idx i is constants[i - 1]
        self.constant_index = {}
        self.value_of = {}
        self.planned = {}            # value index -> [first, last]
        self.operator_index = {}
        self.strided_dim_orders = False  # dim order from each eager result's strides
        self.mutable = []                # value indices of mutable buffers

    # values -------------------------------------------------------------
    def _add(self, kind, payload):
        self.method.values.append({"val_type": kind, "val": payload})
        return len(self.method.values) - 1

    def scalar(self, value, kind):
        """A value for an argument of signature letter `kind` (b bool, d double,
        s scalar, S string, i/n int; dtypes become their ScalarType code)."""
        if value is None:
            return self._add("Null", {})
        if kind in "bs" and isinstance(value, bool):
            return self._add("Bool", {"bool_val": value})
        if kind == "d" or (kind == "s" and isinstance(value, float)):
            return self._add("Double", {"double_val": float(value)})
        if kind == "S":
            return self._add("String", {"string_val": value})
        if isinstance(value, torch.dtype):
            value = _DTYPE_CODES[value]
        return self._add("Int", {"int_val": int(value)})

    def int_list(self, items):
        return self._add("IntList", {"items": [self.scalar(int(i), "i") for i in items]})

    def tensor_value(self, tensor, planned=True, buffer=None):
        if tensor.dtype not in SCALAR_TYPES:
            raise ExportError("dtype %s has no ExecuTorch scalar type" % tensor.dtype)
        dim_order = list(range(tensor.dim()))
        if self.strided_dim_orders:  # channels-last activations keep their layout
            dim_order = sorted(dim_order, key=lambda d: -tensor.stride(d))
        payload = {"scalar_type": SCALAR_TYPES[tensor.dtype], "sizes": list(tensor.shape),
                   "dim_order": dim_order}
        if buffer is not None:
            payload["data_buffer_idx"] = buffer
        index = self._add("Tensor", payload)
        if planned:
            self.planned[index] = [len(self.method.instructions), len(self.method.instructions)]
        return index

    def constant(self, tensor):
        key = (tensor.data_ptr(), tuple(tensor.shape), tuple(tensor.stride()), tensor.dtype)
        if key not in self.constant_index:
            self.constants.append(tensor.detach().contiguous())
            self.constant_index[key] = len(self.constants)  # index 0 is reserved
        return self.tensor_value(tensor, planned=False, buffer=self.constant_index[key])

    def mutable_buffer(self, tensor):
        """A planned tensor that keeps its bytes between executions, its
        initial state in the mutable data segment (data_buffer_idx counts
        from 1 there, as constants do in theirs)."""
        self.method.mutable_states.append(tensor.detach().clone().contiguous())
        index = self.tensor_value(tensor, buffer=len(self.method.mutable_states))
        self.planned[index] = [-1, -1]  # alive from before the first instruction...
        self.mutable.append(index)      # ...to past the last
        return index

    def read(self, index):
        if index in self.planned:
            self.planned[index][1] = max(self.planned[index][1], len(self.method.instructions))

    # nodes --------------------------------------------------------------
    def argument(self, value, kind):
        if kind in "Tt":
            if value is None:
                if kind == "t":
                    return self.scalar(None, kind)
                raise ExportError("missing tensor argument")
            index = self.value_of[value]
            self.read(index)
            return index
        if kind in "IJ":
            if value is None:
                return self.scalar(None, kind)
            return self.int_list(value if isinstance(value, (list, tuple)) else [value])
        if kind in "DE":
            if value is None:
                return self.scalar(None, kind)
            return self._add("DoubleList", {"items": [float(v) for v in value]})
        if isinstance(value, torch.fx.Node):
            if value in self.value_of and value.target is torch.ops.aten._local_scalar_dense.default:
                return self.value_of[value]  # an Int the program computes (a start position)
            raise ExportError("symbolic scalar %s is not supported" % value.name)
        return self.scalar(value, kind)

    def operator(self, kernel):
        if kernel not in self.operator_index:
            # Prim ops such as aten::_local_scalar_dense have no overload name.
            name, overload = kernel.rsplit(".", 1) if "." in kernel else (kernel, "")
            self.method.operators.append((name, overload))
            self.operator_index[kernel] = len(self.method.operators) - 1
        return self.operator_index[kernel]

    def call(self, node, kernel, args, outputs, result):
        self.method.debug_handles[node] = len(self.method.debug_handles) + 1
        self.method.node_kernels[node] = kernel
        self.method.instructions.append(Instruction(self.operator(kernel), args, node, kernel))
        for index in outputs:
            self.planned[index][0] = len(self.method.instructions) - 1
            self.planned[index][1] = max(self.planned[index][1], len(self.method.instructions) - 1)
        self.value_of[node] = outputs[0] if not isinstance(result, (tuple, list)) else tuple(outputs)

    def lower(self, node, results):
        target = edge_ops.INPLACE.get(node.target, node.target)
        if target is not node.target:
            self._check_inplace(node)
        if target in edge_ops.ALIASES:
            self.value_of[node] = self.value_of[node.args[0]]
            return
        result = results[node]
        bound = edge_ops.bind(node)
        if target is torch.ops.aten._local_scalar_dense.default:
            # The tensor's one element as an Int value the kernel writes.
            out = self.scalar(int(result), "i")
            self.method.debug_handles[node] = len(self.method.debug_handles) + 1
            self.method.node_kernels[node] = "aten::_local_scalar_dense"
            self.method.instructions.append(Instruction(
                self.operator("aten::_local_scalar_dense"), [self.argument(bound["self"], "T"), out],
                node, "aten::_local_scalar_dense"))
            self.value_of[node] = out
            return
        if target in edge_ops.SPLITS:
            parts = [self.tensor_value(t) for t in result]
            sizes = [t.shape[bound["dim"]] for t in result]
            out_list = self._add("TensorList", {"items": parts})
            # The op returns nothing; upstream's runtime still expects the
            # return slot, which then holds the out list again.
            args = [self.argument(bound["self"], "T"), self.int_list(sizes),
                    self.scalar(bound["dim"], "i"), out_list, out_list]
            self.call(node, "aten::split_with_sizes_copy.out", args, parts, result)
            return
        rule = edge_ops.rule_for(target, bound)
        if rule is None:
            raise ExportError("no edge lowering for %s (node %s)" % (target, node.name))
        if rule.check and rule.check(bound):
            raise ExportError("%s: %s" % (node.name, rule.check(bound)))
        args = []
        for source, kind in rule.args:
            value = source(bound, results) if callable(source) else bound[source]
            args.append(self.argument(value, kind))
        tensors = list(result) if isinstance(result, (tuple, list)) else [result]
        outs = [self.tensor_value(t) for t in tensors[:rule.outputs]]
        args += outs
        if rule.returns_list:
            args.append(self._add("TensorList", {"items": outs}))
        else:
            args.append(outs[0])
        self.call(node, rule.kernel, args, outs, result)

    def _check_inplace(self, node):
        mutated = node.args[0]
        later = [u for u in mutated.users if u is not node and _after(u, node)]
        if later:
            raise ExportError("%s overwrites %s, which %s still reads"
                              % (node.name, mutated.name, later[0].name))


def _after(a, b):
    node = b.next
    while node.op != "root":
        if node is a:
            return True
        node = node.next
    return False


_DTYPE_CODES = {torch.uint8: 0, torch.int8: 1, torch.int16: 2, torch.int32: 3, torch.int64: 4,
                torch.float16: 5, torch.float32: 6, torch.float64: 7, torch.bool: 11,
                torch.bfloat16: 15}


def emit_method(name, captured, example_inputs, constants, strided_dim_orders=False, mutable_buffers=()):
    """Lowers the captured graph to kernel calls (no delegates).
    strided_dim_orders: each tensor's dim order follows its eager result's
    strides (channels-last graphs such as etexport/cortex_m.py's).
    mutable_buffers: names of captured buffers the graph mutates (KV
    caches): planned for the whole method, their initial state (the buffer
    before the example runs) in the mutable data segment."""
    graph_module = captured.graph_module
    graph_module.graph.eliminate_dead_code()
    graph_module.recompile()
    mutable_positions = {i for i, n in enumerate(captured.constant_names) if n in mutable_buffers}
    if len(mutable_positions) != len(set(mutable_buffers)):
        raise ExportError("mutable buffers %s are not all buffers of the model" % sorted(mutable_buffers))
    # The example run mutates them: it gets copies, the initial state stays.
    run_constants = [c.clone() if i in mutable_positions else c for i, c in enumerate(captured.constants)]
    results = record_values(graph_module, run_constants + list(example_inputs))
    method = EmittedMethod(name)
    method.graph_module = graph_module
    method.node_results = results
    emitter = _Emitter(method, constants)
    emitter.strided_dim_orders = strided_dim_orders
    placeholders = [n for n in graph_module.graph.nodes if n.op == "placeholder"]
    constant_count = len(captured.constant_names)
    for position, node in enumerate(placeholders):
        if position in mutable_positions:
            emitter.value_of[node] = emitter.mutable_buffer(captured.constants[position])
        elif position < constant_count:
            emitter.value_of[node] = emitter.constant(captured.constants[position])
        else:
            index = emitter.tensor_value(results[node])
            emitter.planned[index] = [-1, -1]
            emitter.value_of[node] = index
            method.inputs.append(index)
    for node in graph_module.graph.nodes:
        if node.op == "get_attr":
            emitter.value_of[node] = emitter.constant(getattr(graph_module, node.target))
        elif node.op == "call_function":
            if edge_ops.is_getitem(node):
                emitter.value_of[node] = emitter.value_of[node.args[0]][node.args[1]]
            else:
                emitter.lower(node, results)
        elif node.op == "output":
            flat = node.args[0] if isinstance(node.args[0], (list, tuple)) else [node.args[0]]
            for out in flat:
                index = emitter.value_of[out]
                method.outputs.append(index)
                if index in emitter.planned:
                    emitter.planned[index][1] = len(method.instructions)
    for index in emitter.mutable:
        emitter.planned[index][1] = len(method.instructions)
    method.allocations = [
        memory_plan.Allocation(index, _nbytes(method.values[index]), first, last)
        for index, (first, last) in emitter.planned.items()]
    method.arena_size = memory_plan.plan(method.allocations)
    memory_plan.check(method.allocations)
    for allocation in method.allocations:
        method.values[allocation.key]["val"]["allocation_info"] = {
            "memory_id": 1, "memory_offset_low": allocation.offset & 0xFFFFFFFF,
            "memory_offset_high": allocation.offset >> 32}
    return method


_ELEMENT_SIZES = {"BYTE": 1, "CHAR": 1, "SHORT": 2, "INT": 4, "LONG": 8, "HALF": 2,
                  "FLOAT": 4, "DOUBLE": 8, "BOOL": 1, "BFLOAT16": 2}


def _nbytes(value):
    payload = value["val"]
    count = 1
    for size in payload["sizes"]:
        count *= size
    return count * _ELEMENT_SIZES[payload["scalar_type"]]
