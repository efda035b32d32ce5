#!/usr/bin/python3
"""Writes the tiny hand-described samples in this folder.

Each program is described here as JSON in etkit's schema and compiled to a
binary by Debian's flatc (no PyTorch needed), which also exercises our
schemas through a second writer. The real-model samples (CNN, MobileNetV2,
ResNet-18, a small transformer) come from samples/export/.

    samples/tiny/make_tiny_samples.py [--flatc PATH]
"""
import argparse
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "export", "cortex_m_reference"))
from etexport import program as program_writer  # noqa: E402

SCHEMAS = program_writer.SCHEMAS


def f32_bytes(values):
    return list(struct.pack("<%df" % len(values), *values))


def tensor(sizes, dtype="FLOAT", buffer=0, memory_offset=None):
    t = {"scalar_type": dtype, "sizes": sizes, "dim_order": list(range(len(sizes)))}
    if buffer:
        t["data_buffer_idx"] = buffer
    if memory_offset is not None:
        t["allocation_info"] = {"memory_id": 1, "memory_offset_low": memory_offset}
    return {"val_type": "Tensor", "val": t}


def affine_program():
    """forward(x) = a * x + b with a = 3, b = 2, f32[2, 2]; the constants live
    in a segment behind the eh00 header (the current layout: upstream's
    runtime refuses the deprecated inline constant buffer)."""
    values = [
        tensor([2, 2], memory_offset=0),   # 0: x (input)
        tensor([2, 2], buffer=1),          # 1: a
        tensor([2, 2], buffer=2),          # 2: b
        tensor([2, 2], memory_offset=16),  # 3: a * x
        {"val_type": "Int", "val": {"int_val": 1}},  # 4: alpha
        tensor([2, 2], memory_offset=32),  # 5: y (output)
    ]
    call = lambda op, args: {"instr_args_type": "KernelCall",
                             "instr_args": {"op_index": op, "args": args}}
    plan = {
        "name": "forward",
        "values": values,
        "inputs": [0],
        "outputs": [5],
        "chains": [{"inputs": [0], "outputs": [5],
                    "instructions": [call(0, [1, 0, 3, 3]), call(1, [3, 2, 4, 5, 5])]}],
        "operators": [{"name": "aten::mul", "overload": "out"},
                      {"name": "aten::add", "overload": "out"}],
        "non_const_buffer_sizes": [0, 48],
        # Upstream's runtime refuses a plan without this field ("Missing
        # delegates field"): write it empty.
        "delegates": [],
    }
    document = {
        "version": 0,
        "execution_plan": [plan],
        "constant_buffer": [],
        "segments": [{"offset": 0, "size": len(CONSTANTS)}],
        "constant_segment": {"segment_index": 0, "offsets": [0, 0, 16]},
    }
    return document


# a (16 bytes) then b (16 bytes): both at 16-byte aligned offsets.
CONSTANTS = bytes(f32_bytes([3.0] * 4) + f32_bytes([2.0] * 4))


def compile_json(flatc, schema, document, out_path):
    data = program_writer.compile_json(schema, document, flatc)
    with open(out_path, "wb") as f:
        f.write(data)
    return data


def affine_bundle(program_bytes):
    """Three cases; expected outputs from the formula y = 3x + 2."""
    cases = []
    for inputs in ([1, 2, 3, 4], [0, 0, 0, 0], [-1.5, 0.25, 10, -7]):
        expected = [3.0 * x + 2.0 for x in inputs]
        cases.append({
            "inputs": [{"val_type": "Tensor", "val": {
                "scalar_type": "FLOAT", "sizes": [2, 2], "dim_order": [0, 1],
                "data": f32_bytes(inputs)}}],
            "expected_outputs": [{"val_type": "Tensor", "val": {
                "scalar_type": "FLOAT", "sizes": [2, 2], "dim_order": [0, 1],
                "data": f32_bytes(expected)}}],
        })
    return {"version": 2,
            "method_test_suites": [{"method_name": "forward", "test_cases": cases}],
            "program": list(program_bytes)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--flatc", default="flatc")
    args = parser.parse_args()
    flatbuffer = program_writer.compile_json(SCHEMAS["program"], affine_program(), args.flatc)
    program = program_writer.insert_header_and_segments(flatbuffer, CONSTANTS)
    with open(os.path.join(HERE, "affine.pte"), "wb") as f:
        f.write(program)
    compile_json(args.flatc, SCHEMAS["bundled"], affine_bundle(program),
                 os.path.join(HERE, "affine.bpte"))
    print("wrote affine.pte, affine.bpte")


if __name__ == "__main__":
    main()
