"""Writes a .pte: the program flatbuffer compiled by Debian's flatc from JSON
in etkit's schema, then the "eh00" extended header inserted after the file
identifier and the constant segment appended, laid out as upstream does
(segments at a 128-byte aligned base, constants 16-byte aligned inside).
"""
import json
import os
import struct
import subprocess
import tempfile

import torch

from .memory_plan import align

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), *[os.pardir] * 4))  # the repository
SCHEMAS = {
    "program": os.path.join(ROOT, "core", "schema", "program.fbs"),
    "bundled": os.path.join(ROOT, "bundled", "schema", "bundled_program.fbs"),
    "xnnpack": os.path.join(ROOT, "delegates", "xnnpack", "schema", "xnnpack_graph.fbs"),
}
SEGMENT_ALIGNMENT = 128
CONSTANT_ALIGNMENT = 16
HEADER_LENGTH = 32


def compile_json(schema, document, flatc="flatc"):
    """flatc --binary on a JSON document; returns the flatbuffer bytes."""
    with tempfile.TemporaryDirectory() as tmp:
        source = os.path.join(tmp, "document.json")
        with open(source, "w") as f:
            json.dump(document, f)
        subprocess.run([flatc, "--binary", "-I", os.path.dirname(SCHEMAS["program"]),
                        "-o", tmp, schema, source], check=True)
        [binary] = [os.path.join(tmp, n) for n in os.listdir(tmp) if not n.endswith(".json")]
        with open(binary, "rb") as f:
            return f.read()


def _instruction_json(instruction):
    if instruction.delegate_index is not None:
        return {"instr_args_type": "DelegateCall",
                "instr_args": {"delegate_index": instruction.delegate_index,
                               "args": instruction.args}}
    return {"instr_args_type": "KernelCall",
            "instr_args": {"op_index": instruction.op_index, "args": instruction.args}}


def _plan_json(method, delegate_segments):
    return {
        "name": method.name,
        "values": method.values,
        "inputs": method.inputs,
        "outputs": method.outputs,
        "chains": [{"inputs": method.inputs, "outputs": method.outputs,
                    "instructions": [_instruction_json(i) for i in method.instructions]}],
        "operators": [{"name": n, "overload": o} for n, o in method.operators],
        "delegates": [{"id": "XnnpackBackend",
                       "processed": {"location": "SEGMENT", "index": segment},
                       "compile_specs": []} for segment in delegate_segments],
        "non_const_buffer_sizes": [0, method.arena_size],
    }


class MetadataMethod:
    """A method of no inputs returning one constant, as upstream's LLM
    export writes `get_max_seq_len`, `use_kv_cache` and the like for its
    runner to read."""

    def __init__(self, name, value):
        self.name = name
        kind = ("Bool", {"bool_val": value}) if isinstance(value, bool) else ("Int", {"int_val": int(value)})
        self.values = [{"val_type": kind[0], "val": kind[1]}]
        self.inputs, self.outputs = [], [0]
        self.instructions, self.operators, self.delegates = [], [], []
        self.arena_size = 0


def tensor_bytes(tensor):
    """The tensor's little-endian bytes in C order; bfloat16, which NumPy
    lacks, through its 16-bit pattern."""
    tensor = tensor.detach().contiguous()
    if tensor.dtype == torch.bfloat16:
        tensor = tensor.view(torch.int16)
    return tensor.numpy().tobytes()


def constant_segment(constants):
    """Packs constants; returns (bytes, offsets) with offsets[0] reserved."""
    data = bytearray()
    offsets = [0]
    for tensor in constants:
        data.extend(b"\0" * (align(len(data), CONSTANT_ALIGNMENT) - len(data)))
        offsets.append(len(data))
        data.extend(tensor_bytes(tensor))
    return bytes(data), offsets


def write_program(methods, constants, flatc="flatc"):
    """Returns the .pte bytes for `methods` sharing `constants`. Segments:
    the constants, then each method's delegate payloads, then the
    delegates' named data (one segment per distinct key)."""
    segment, offsets = constant_segment(constants)
    segments = [segment]
    stateful = [m for m in methods if getattr(m, "mutable_states", None)]
    if len(stateful) > 1:
        raise ValueError("mutable buffers in more than one method are not written")
    mutable_data = None
    if stateful:  # the initial state of mutable buffers, addressed as constants are
        state, state_offsets = constant_segment(stateful[0].mutable_states)
        mutable_data = {"segment_index": len(segments), "offsets": state_offsets}
        segments.append(state)
    plans, named = [], {}
    for method in methods:
        delegate_segments = []
        for delegated in method.delegates:
            delegate_segments.append(len(segments))
            segments.append(delegated.payload)
            named.update(delegated.named_data)
        plans.append(_plan_json(method, delegate_segments))
    named_data = []
    for key, data in named.items():
        named_data.append({"key": key, "segment_index": len(segments)})
        segments.append(data)
    layout, position = [], 0
    for data in segments:
        position = align(position, SEGMENT_ALIGNMENT)
        layout.append({"offset": position, "size": len(data)})
        position += len(data)
    document = {
        "version": 0,
        "execution_plan": plans,
        "constant_buffer": [],
        "segments": layout,
        "constant_segment": {"segment_index": 0, "offsets": offsets},
    }
    if named_data:
        document["named_data"] = named_data
    if mutable_data:
        document["mutable_data_segments"] = [mutable_data]
    flatbuffer = compile_json(SCHEMAS["program"], document, flatc)
    packed = bytearray()
    for data, place in zip(segments, layout):
        packed.extend(b"\0" * (place["offset"] - len(packed)))
        packed.extend(data)
    return insert_header_and_segments(flatbuffer, bytes(packed))


def insert_header_and_segments(flatbuffer, segment):
    # Inserting 32 bytes after the identifier moves every object by a
    # multiple of 16, so only the root offset (byte 0) changes; all other
    # flatbuffer offsets are relative and alignment is kept.
    (root,) = struct.unpack_from("<I", flatbuffer, 0)
    program_size = len(flatbuffer) + HEADER_LENGTH
    base = align(program_size, SEGMENT_ALIGNMENT)
    header = b"eh00" + struct.pack("<IQQQ", HEADER_LENGTH, program_size, base, len(segment))
    body = struct.pack("<I", root + HEADER_LENGTH) + flatbuffer[4:8] + header + flatbuffer[8:]
    return body + b"\0" * (base - len(body)) + segment
