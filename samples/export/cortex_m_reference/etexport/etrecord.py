"""Writes an ETRecord in upstream's per-method layout: a zip with the
ETRECORD_V0 marker, "edge_dialect_exported_program/<method>" holding the
serialized edge graph as JSON (torch.export's schema: nodes with target,
inputs, outputs and metadata debug_handle / stack_trace / nn_module_stack),
"debug_handle_map" ({method: {instruction id: [debug handles]}}) and
"delegate_map" ({method: {instruction id: {"name": backend, "delegate_map":
{delegate debug id: [debug handles]}}}}).
"""
import json
import zipfile

import torch
import torch.fx

from . import edge_ops


_SERIALIZED_DTYPES = {  # torch.export's ScalarType enum, not ExecuTorch's
    torch.uint8: 1, torch.int8: 2, torch.int16: 3, torch.int32: 4, torch.int64: 5,
    torch.float16: 6, torch.float32: 7, torch.float64: 8, torch.bool: 12, torch.bfloat16: 13,
}


def edge_target(kernel):
    """aten::view_copy.out -> the functional edge op it came from."""
    name, overload = kernel.rsplit(".", 1) if "." in kernel else (kernel, "default")
    namespace, op = name.split("::")
    overload = "default" if overload == "out" else overload[:-len("_out")] \
        if overload.endswith("_out") else overload
    return "executorch.exir.dialects.edge.ops.%s.%s.%s" % (namespace, op, overload)


def _argument(value):
    if isinstance(value, torch.fx.Node):
        if value.target is torch.ops.aten._local_scalar_dense.default:  # an int the program computes
            return {"as_sym_int": {"as_name": value.name}}
        return {"as_tensor": {"name": value.name}}
    if value is None:
        return {"as_none": []}
    if isinstance(value, bool):
        return {"as_bool": value}
    if isinstance(value, int):
        return {"as_int": value}
    if isinstance(value, float):
        return {"as_float": value if value == value and abs(value) != float("inf") else str(value)}
    if isinstance(value, str):
        return {"as_string": value}
    if isinstance(value, torch.dtype):
        return {"as_scalar_type": _SERIALIZED_DTYPES.get(value, 0)}
    if isinstance(value, (list, tuple)):
        if all(isinstance(v, torch.fx.Node) for v in value) and value:
            return {"as_tensors": [{"name": v.name} for v in value]}
        if all(isinstance(v, bool) for v in value):
            return {"as_bools": list(value)}
        if all(isinstance(v, int) for v in value):
            return {"as_ints": list(value)}
        return {"as_floats": [float(v) for v in value]}
    return {"as_string": str(value)}


def _tensor_meta(tensor):
    return {"meta": {"dtype": _SERIALIZED_DTYPES.get(tensor.dtype, 0),
                     "sizes": [{"as_int": s} for s in tensor.shape],
                     "strides": [{"as_int": s} for s in tensor.stride()],
                     "requires_grad": False, "device": {"type": "cpu", "index": None},
                     "storage_offset": 0, "layout": 7}}


def _metadata(node, handle):
    stack = node.meta.get("nn_module_stack") or []
    metadata = {"debug_handle": str(handle)}
    if node.meta.get("stack_trace"):
        metadata["stack_trace"] = node.meta["stack_trace"]
    if stack:
        metadata["nn_module_stack"] = ";".join("%s,%s,%s" % entry for entry in stack)
        innermost = stack[-1]
        metadata["source_fn_stack"] = "%s,%s" % (innermost[0], innermost[2])
    return metadata


def serialize_edge_program(method):
    """The edge graph of one emitted method as torch.export JSON."""
    graph = method.graph_module.graph
    kernels = method.node_kernels
    nodes, tensor_values = [], {}
    results = method.node_results
    for node in graph.nodes:
        result = results.get(node)
        if isinstance(result, torch.Tensor):
            tensor_values[node.name] = _tensor_meta(result)
        if node not in kernels:
            continue
        inputs = [{"name": name, "arg": _argument(value)}
                  for name, value in edge_ops.bind(node, with_defaults=False).items()]
        if isinstance(result, (tuple, list)):
            # As torch.export names them: each output after the getitem
            # that reads it (what consumers' inputs name), else generated.
            taken = {u.args[1]: u.name for u in node.users
                     if u.op == "call_function" and edge_ops.is_getitem(u)}
            outputs = [{"as_tensors": [{"name": taken.get(i, "%s_%d" % (node.name, i))}
                                       for i in range(len(result))]}]
        else:
            outputs = [{"as_tensor": {"name": node.name}}]
        nodes.append({"target": edge_target(kernels[node]), "inputs": inputs,
                      "outputs": outputs,
                      "metadata": _metadata(node, method.debug_handles[node])})
    placeholders = [n for n in graph.nodes if n.op == "placeholder"]
    output_node = next(n for n in graph.nodes if n.op == "output")
    flat_outputs = output_node.args[0]
    if not isinstance(flat_outputs, (list, tuple)):
        flat_outputs = [flat_outputs]
    return {
        "graph_module": {
            "graph": {"inputs": [{"as_tensor": {"name": n.name}} for n in placeholders],
                      "outputs": [{"as_tensor": {"name": n.name}} for n in flat_outputs],
                      "nodes": nodes, "tensor_values": tensor_values,
                      "sym_int_values": {}, "sym_bool_values": {}},
            "signature": {}, "module_call_graph": []},
        "opset_version": {"aten": 10}, "range_constraints": {},
        "schema_version": {"major": 1, "minor": 0},
    }


def debug_handle_map(method):
    # A delegate call maps to no edge node of its own; its nodes are in the
    # delegate map.
    return {str(i): [] if instr.delegate_index is not None else [method.debug_handles[instr.node]]
            for i, instr in enumerate(method.instructions)}


def delegate_map(method):
    """Per delegate instruction: backend name and delegate debug id -> the
    edge graph's debug handles."""
    return {str(i): {"name": instr.kernel,
                     "delegate_map": method.delegates[instr.delegate_index].delegate_map}
            for i, instr in enumerate(method.instructions) if instr.delegate_index is not None}


def write_etrecord(path, methods):
    def add(archive, name, text):
        # A fixed timestamp keeps the archive byte-identical across exports.
        info = zipfile.ZipInfo(name, date_time=(2024, 1, 1, 0, 0, 0))
        info.compress_type = zipfile.ZIP_DEFLATED
        archive.writestr(info, text)

    with zipfile.ZipFile(path, "w") as archive:
        add(archive, "ETRECORD_V0", "")
        for method in methods:
            add(archive, "edge_dialect_exported_program/" + method.name,
                json.dumps(serialize_edge_program(method)))
        add(archive, "debug_handle_map",
            json.dumps({m.name: debug_handle_map(m) for m in methods}))
        add(archive, "delegate_map", json.dumps({m.name: delegate_map(m) for m in methods}))
