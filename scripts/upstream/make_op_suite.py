"""Makes the upstream op suite: tests/upstream/op_suite/op_suite.bpte and
op_suite.json, with upstream's own tools only.

    scripts/upstream-python scripts/upstream/make_op_suite.py [--out DIR]

The cases (scripts/upstream/op_suite_cases.py) are grouped by op and dtype into
methods of one program: each group is exported with torch.export and
upstream's to_edge (portable kernels, no delegate), lowered with
to_executorch and run by upstream's runtime. A group that fails anywhere is
split and each case tried alone, so one case upstream cannot export or run
leaves out only itself, with the stage and the message in the manifest. The
cases upstream runs are bundled with upstream's BundledProgram, the expected
outputs being upstream's runtime's; the manifest maps every method output to
its case, its dtype and the kernels (out variants) it calls.

tests/upstream/test_op_suite.py runs the bundle on both runtimes. Takes a
few minutes (one to_edge per group); progress goes to stderr.
"""

import argparse
import copy
import hashlib
import importlib.metadata
import json
import os
import pickle
import re
import signal
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import torch

from executorch.devtools import BundledProgram
from executorch.devtools.bundled_program.config import MethodTestCase, MethodTestSuite
from executorch.devtools.bundled_program.serialize import serialize_from_bundled_program_to_flatbuffer
from executorch.exir import EdgeCompileConfig, EdgeProgramManager, to_edge
from executorch.exir.operator.convert import to_out_variant
from executorch.extension.pybindings import portable_lib as runtime
import executorch.kernels.quantized  # noqa: F401  registers quantized_decomposed kernels
import executorch.extension.llm.custom_ops.custom_ops  # noqa: F401  registers llama:: kernels

sys.path.insert(0, str(Path(__file__).resolve().parent))
import op_suite_cases  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
WHEEL = Path(list(executorch.__path__)[0])
SOURCES = [Path(__file__), Path(op_suite_cases.__file__)]


def op_list(yaml_path, key):
    """Op names of one of the wheel's op-list YAML files ("- op: add.out" or
    "- func: quantized_decomposed::add.out(...)")."""
    names = []
    for line in yaml_path.read_text().splitlines():
        if line.startswith(f"- {key}:"):
            name = line.split(":", 1)[1].strip().split("(")[0]
            names.append(name if "::" in name else f"aten::{name}")
    return names


def sources_digest():
    return hashlib.sha256(b"".join(p.read_bytes() for p in SOURCES)).hexdigest()


class Group(torch.nn.Module):
    """The cases of one method: each reads its own inputs; every output is
    made contiguous (an expanded view's zero strides cannot be planned)."""

    def __init__(self, cases):
        super().__init__()
        self.cases = cases

    def forward(self, *inputs):
        outputs, at = [], 0
        for case in self.cases:
            result = case.fn(*inputs[at:at + len(case.inputs)])
            at += len(case.inputs)
            outputs += [o.contiguous() if isinstance(o, torch.Tensor) else o for o in _leaves(result)]
        return tuple(outputs)


def _leaves(result):
    return [result] if isinstance(result, torch.Tensor) else list(torch.utils._pytree.tree_leaves(result))


def kernel_names(edge_program, output_count):
    """Per method output, the kernels (out-variant names, as the runtime
    registers them) its value is computed by."""
    graph = edge_program.graph
    output_node = next(n for n in graph.nodes if n.op == "output")
    outputs = list(output_node.args[0])
    assert len(outputs) == output_count, (len(outputs), output_count)
    names = []
    for out in outputs:
        seen, stack, kernels = set(), [out], set()
        while stack:
            node = stack.pop()
            if not isinstance(node, torch.fx.Node) or node in seen:
                continue
            seen.add(node)
            if node.op == "call_function":
                op = getattr(node.target, "_op", node.target)
                kernels.add(out_name(op) if hasattr(op, "_schema") else getattr(op, "__name__", str(op)))
            stack.extend(node.all_input_nodes)
        names.append(sorted(kernels))
    return names


def out_name(op):
    try:
        out = to_out_variant(op)[0]
        op = out if hasattr(out, "_schema") else op
    except Exception:  # noqa: BLE001  already an out variant, or a view the emitter keeps
        pass
    schema = op._schema
    return f"{schema.name}.{schema.overload_name}" if schema.overload_name else schema.name


def try_group(cases):
    """(edge program, upstream outputs, eager PyTorch outputs, output counts)
    or raises with the stage."""
    inputs = tuple(x for case in cases for x in case.inputs)
    module = Group(cases).eval()
    stage = "eager PyTorch"
    try:
        with torch.no_grad():
            eager = [_leaves(case.fn(*[x.clone() for x in case.inputs])) for case in cases]
        counts = [len(e) for e in eager]
        eager = [o.contiguous() if isinstance(o, torch.Tensor) else o for e in eager for o in e]
        stage = "export"
        exported = torch.export.export(module, tuple(x.clone() for x in inputs), strict=False)
        stage = "to_edge"
        kept_whole = sorted({op for case in cases for op in case.preserve}, key=str)
        edge = to_edge(exported, compile_config=EdgeCompileConfig(
            preserve_ops=kept_whole, _core_aten_ops_exception_list=kept_whole))
        kept = copy.deepcopy(edge.exported_program())  # to_executorch rewrites the graph in place
        stage = "to_executorch"
        program = edge.to_executorch().buffer
        stage = "upstream run"
        outputs = run_upstream_isolated(program, inputs)
    except GroupFailed:
        raise
    except Exception as error:  # noqa: BLE001  any failure leaves the case out, with its reason
        raise GroupFailed(stage, first_line(error)) from None
    if len(cases) == 1 and len(outputs) > counts[0]:
        # A case mutating an input returns it too, first (a KV-cache update).
        eager = [None] * (len(outputs) - counts[0]) + eager
        counts = [len(outputs)]
    if len(outputs) != sum(counts):
        raise GroupFailed("upstream run", f"{len(outputs)} outputs, eager PyTorch gives {sum(counts)}")
    return kept, list(outputs), eager, counts


def run_upstream_isolated(program, inputs):
    """Upstream's runtime loads and runs the program in a forked child: some
    of its kernels abort the process on arguments they refuse (narrow_copy
    with dim -1), which must leave out one case, not end the generator."""
    read_end, write_end = os.pipe()
    child = os.fork()
    if child == 0:
        os.close(read_end)
        try:
            loaded = runtime._load_for_executorch_from_buffer(program)
            result = ("ok", [o.clone() for o in loaded.run_method("forward", tuple(x.clone() for x in inputs))])
        except Exception as error:  # noqa: BLE001
            result = ("error", first_line(error))
        with os.fdopen(write_end, "wb") as pipe:
            pickle.dump(result, pipe)
        os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as pipe:
        payload = pipe.read()
    _, status = os.waitpid(child, 0)
    if not payload:
        raise GroupFailed("upstream run", f"the runtime ended the process ({describe_status(status)})")
    kind, value = pickle.loads(payload)
    if kind == "error":
        raise GroupFailed("upstream run", value)
    return value


def first_line(error):
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    return f"{type(error).__name__}: {lines[0][:300]}" if lines else type(error).__name__


def describe_status(status):
    if os.WIFSIGNALED(status):
        return f"signal {signal.Signals(os.WTERMSIG(status)).name}"
    return f"exit status {os.WEXITSTATUS(status)}"


class GroupFailed(Exception):
    def __init__(self, stage, message):
        super().__init__(f"{stage}: {message}")
        self.stage, self.message = stage, message


# (rtol, atol) per output dtype, for comparing one runtime with another or
# with eager PyTorch; integer and bool outputs are compared exactly. Each op
# runs alone in its output's dtype, with libm or vector code for
# transcendental functions: floats may differ in the last bits, half floats
# by one rounding. Written into the manifest for the test.
TOLERANCE = {
    "float64": [1e-10, 1e-12],
    "float32": [1e-5, 1e-6],
    "float16": [2e-3, 1e-3],
    "bfloat16": [1.6e-2, 1e-2],
}


def as_array(tensor):
    return (tensor.float() if tensor.dtype == torch.bfloat16 else tensor).detach().numpy()


def close_to_eager(actual, expected):
    """Whether upstream's output equals eager PyTorch's within TOLERANCE."""
    if not isinstance(actual, torch.Tensor) or not isinstance(expected, torch.Tensor):
        return True  # a mutated input (no eager counterpart) or a scalar
    if actual.shape != expected.shape or actual.dtype != expected.dtype:
        return False
    rtol, atol = TOLERANCE.get(str(expected.dtype).replace("torch.", ""), [0.0, 0.0])
    a, e = as_array(actual), as_array(expected)
    return bool(np.allclose(a, e, rtol=rtol, atol=atol, equal_nan=True))


def method_name(index, name):
    return f"g{index:03d}_" + re.sub(r"[^A-Za-z0-9]+", "_", name).strip("_")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=REPO / "tests" / "upstream" / "op_suite")
    parser.add_argument("--only", help="only the cases whose name matches this regular expression (for trying)")
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    started = time.time()

    portable = op_list(WHEEL / "kernels" / "portable" / "functions.yaml", "op")
    quantized = op_list(WHEEL / "kernels" / "quantized" / "quantized.yaml", "func")
    registered = set(runtime._get_operator_names())
    llm = sorted(n for n in registered if n.startswith("llama::"))
    cases = (op_suite_cases.opinfo_cases({n.split("::")[1].split(".")[0] for n in portable})
             + op_suite_cases.hand_cases() + op_suite_cases.overload_cases() + op_suite_cases.quantized_cases()
             + op_suite_cases.llm_cases() + op_suite_cases.more_quantized_and_llm_cases())
    if args.only:
        cases = [case for case in cases if re.search(args.only, case.name)]
    # One method per op and dtype: a case etkit or upstream refuses then
    # turns only its own dtype into an error, not the op's other dtypes.
    groups = {}
    for case in cases:
        groups.setdefault(f"{case.name} {case.dtype_label}", []).append(case)
    print(f"op suite: {len(cases)} cases in {len(groups)} groups", file=sys.stderr)

    methods, records, excluded, eager_outputs = {}, [], [], {}
    for number, (name, group) in enumerate(groups.items()):
        attempts = [group]
        while attempts:
            batch = attempts.pop(0)
            try:
                edge, outputs, eager, counts = try_group(batch)
            except GroupFailed as failure:
                if len(batch) > 1:
                    attempts += [[case] for case in batch]
                    continue
                excluded.append({"name": batch[0].name, "dtype": batch[0].dtype_label, "source": batch[0].source,
                                 "stage": failure.stage, "reason": failure.message})
                continue
            method = method_name(len(methods), name)
            kernels = kernel_names(edge, sum(counts))
            methods[method] = (edge, batch, outputs)
            at = 0
            for index, (case, count) in enumerate(zip(batch, counts)):
                differs = [i for i in range(at, at + count) if not close_to_eager(outputs[i], eager[i])]
                for i in differs:
                    if isinstance(eager[i], torch.Tensor):
                        eager_outputs[f"{method}/{i}"] = as_array(eager[i])
                records.append({"method": method, "case": index, "name": case.name, "dtype": case.dtype_label,
                                "source": case.source, "outputs": [at, count],
                                "kernels": sorted({k for ks in kernels[at:at + count] for k in ks}),
                                "upstream_differs_from_eager": differs})
                at += count
        print(f"  [{number + 1}/{len(groups)}] {name}: {len(methods)} methods, {len(excluded)} cases left out, "
              f"{time.time() - started:.0f} s", file=sys.stderr)

    kept_whole = sorted({op for _, batch, _ in methods.values() for case in batch for op in case.preserve}, key=str)
    manager = EdgeProgramManager({m: edge for m, (edge, _, _) in methods.items()},
                                 compile_config=EdgeCompileConfig(_core_aten_ops_exception_list=kept_whole))
    executorch_program = manager.to_executorch()
    suites = [MethodTestSuite(method_name=m, test_cases=[MethodTestCase(
        inputs=[x for case in batch for x in case.inputs], expected_outputs=outputs)])
        for m, (_, batch, outputs) in methods.items()]
    bundle = serialize_from_bundled_program_to_flatbuffer(BundledProgram(executorch_program, suites))
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "op_suite.bpte").write_bytes(bundle)
    np.savez_compressed(args.out / "op_suite_eager.npz", **eager_outputs)
    manifest = {
        "made_by": "scripts/upstream/make_op_suite.py",
        "sources_sha256": sources_digest(),
        "executorch": importlib.metadata.version("executorch"),
        "torch": torch.__version__,
        "op_lists": {"portable": portable, "quantized": quantized, "llm": llm},
        "tolerance": {"exact": [0.0, 0.0], **TOLERANCE},
        "cases": records,
        "excluded": excluded,
    }
    (args.out / "op_suite.json").write_text(json.dumps(manifest, indent=1) + "\n")
    print(f"op suite: {len(records)} cases in {len(methods)} methods, {len(excluded)} left out, "
          f"{len(bundle)} bytes, {time.time() - started:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
