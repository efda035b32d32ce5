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

from .memory_plan import align

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
SCHEMAS = {
    "program": os.path.join(ROOT, "core", "schema", "program.fbs"),
    "bundled": os.path.join(ROOT, "bundled", "schema", "bundled_program.fbs"),
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


def _plan_json(method):
    instructions = [{"instr_args_type": "KernelCall",
                     "instr_args": {"op_index": i.op_index, "args": i.args}}
                    for i in method.instructions]
    return {
        "name": method.name,
        "values": method.values,
        "inputs": method.inputs,
        "outputs": method.outputs,
        "chains": [{"inputs": method.inputs, "outputs": method.outputs,
                    "instructions": instructions}],
        "operators": [{"name": n, "overload": o} for n, o in method.operators],
        "delegates": [],
        "non_const_buffer_sizes": [0, method.arena_size],
    }


def constant_segment(constants):
    """Packs constants; returns (bytes, offsets) with offsets[0] reserved."""
    data = bytearray()
    offsets = [0]
    for tensor in constants:
        data.extend(b"\0" * (align(len(data), CONSTANT_ALIGNMENT) - len(data)))
        offsets.append(len(data))
        data.extend(tensor.numpy().tobytes())
    return bytes(data), offsets


def write_program(methods, constants, flatc="flatc"):
    """Returns the .pte bytes for `methods` sharing `constants`."""
    segment, offsets = constant_segment(constants)
    document = {
        "version": 0,
        "execution_plan": [_plan_json(m) for m in methods],
        "constant_buffer": [],
        "segments": [{"offset": 0, "size": len(segment)}],
        "constant_segment": {"segment_index": 0, "offsets": offsets},
    }
    flatbuffer = compile_json(SCHEMAS["program"], document, flatc)
    return insert_header_and_segments(flatbuffer, segment)


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
