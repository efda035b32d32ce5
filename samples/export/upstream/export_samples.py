"""Exports samples with upstream's own tools, as users make their programs.

    scripts/upstream-python samples/export/upstream/export_samples.py [--only NAME]

For each sample: torch.export, upstream's to_edge_transform_and_lower with
its XNNPACK partitioner (after PT2E quantization with upstream's
XNNPACKQuantizer for the int8 ones), to_executorch; a bundle made by
upstream's BundledProgram whose expected outputs come from PyTorch eager
mode, except for int8 programs: their integer arithmetic is what a device
must reproduce, so their expected outputs are upstream's runtime's (the
distance to the float emulation convert_pt2e makes, where quantize and
dequantize pairs compute in float, is printed); an ETRecord from
upstream's generate_etrecord. Weights are random from a fixed seed; nothing is
downloaded. Writes samples/<name>/<name>.{pte,bpte,etrecord}.
"""

import argparse
import copy
import sys
import time
from pathlib import Path

import torch

from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
from executorch.backends.xnnpack.quantizer.xnnpack_quantizer import (XNNPACKQuantizer,
                                                                     get_symmetric_quantization_config)
from executorch.devtools import BundledProgram, generate_etrecord
from executorch.devtools.bundled_program.config import MethodTestCase, MethodTestSuite
from executorch.devtools.bundled_program.serialize import serialize_from_bundled_program_to_flatbuffer
from executorch.exir import to_edge_transform_and_lower
from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

sys.path.insert(0, str(Path(__file__).resolve().parent))
import models  # noqa: E402

SAMPLES = Path(__file__).resolve().parents[2]
SEED = 20261128
CASES = 3
CALIBRATION_RUNS = 8


def detector(generator):
    model = models.TinyYolo()
    models.randomize_batch_norms(model, generator)
    return model, lambda: (torch.rand((1, 3, 128, 128), generator=generator),)


def speech_encoder(generator):
    # Log-mel-like inputs: roughly zero mean, unit spread, over 80 mels and 2 s of 10 ms frames.
    return models.SpeechEncoder(), lambda: (torch.randn((1, 80, 200), generator=generator),)


# name -> (model and input maker, quantize to int8 first)
SAMPLE_KINDS = {
    "yolo_detector_xnnpack": (detector, False),
    "yolo_detector_xnnpack_int8": (detector, True),
    "speech_encoder_xnnpack": (speech_encoder, False),
}


def quantized(model, example, make_inputs):
    """PT2E static int8 with upstream's XNNPACK quantizer: symmetric
    per-channel weights, per-tensor activations calibrated on inputs of
    their own."""
    captured = torch.export.export(model, example).module()
    quantizer = XNNPACKQuantizer().set_global(get_symmetric_quantization_config(is_per_channel=True))
    prepared = prepare_pt2e(captured, quantizer)
    with torch.no_grad():
        for _ in range(CALIBRATION_RUNS):
            prepared(*make_inputs())
    return convert_pt2e(prepared)


def upstream_outputs(program, inputs):
    from executorch.extension.pybindings import portable_lib as runtime

    module = runtime._load_for_executorch_from_buffer(program)  # borrows `program`, kept alive by the caller
    return [o.clone() for o in module.run_method("forward", tuple(inputs))]


def export(name):
    make, to_int8 = SAMPLE_KINDS[name]
    torch.manual_seed(SEED)
    generator = torch.Generator().manual_seed(SEED)
    model, make_inputs = make(generator)
    model = model.eval()
    example = make_inputs()
    if to_int8:
        model = quantized(model, example, make_inputs)
    exported = torch.export.export(model, example)
    edge = to_edge_transform_and_lower(exported, partitioner=[XnnpackPartitioner()])
    edge_for_record = copy.deepcopy(edge)  # to_executorch changes the edge program in place
    program = edge.to_executorch()
    cases = []
    with torch.no_grad():
        for _ in range(CASES):
            inputs = make_inputs()
            outputs = model(*inputs)
            outputs = list(outputs if isinstance(outputs, tuple) else (outputs,))
            if to_int8:
                emulated, outputs = outputs, upstream_outputs(program.buffer, inputs)
                distance = max(float((a - b).abs().max()) for a, b in zip(outputs, emulated))
                print(f"{name}: upstream's runtime is {distance:.4g} from the float emulation at most", file=sys.stderr)
            cases.append(MethodTestCase(inputs=list(inputs), expected_outputs=outputs))
    bundle = BundledProgram(program, [MethodTestSuite(method_name="forward", test_cases=cases)])
    folder = SAMPLES / name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.pte").write_bytes(program.buffer)
    (folder / f"{name}.bpte").write_bytes(serialize_from_bundled_program_to_flatbuffer(bundle))
    generate_etrecord(folder / f"{name}.etrecord", edge_for_record, program)
    return folder


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=sorted(SAMPLE_KINDS), action="append")
    args = parser.parse_args()
    for name in args.only or SAMPLE_KINDS:
        started = time.time()
        folder = export(name)
        sizes = ", ".join(f"{p.name} {p.stat().st_size:,} bytes" for p in sorted(folder.iterdir()))
        print(f"{name}: {sizes} ({time.time() - started:.0f} s)", file=sys.stderr)


if __name__ == "__main__":
    main()
