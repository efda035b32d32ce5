"""Exports samples with upstream's own tools, as users make their programs.

    scripts/upstream-python samples/export/upstream/export_samples.py [--only NAME] [--full-size] [--out DIR]

For each sample: torch.export, then upstream's to_edge_transform_and_lower
(with its XNNPACK partitioner for the delegated ones; after PT2E static int8
with upstream's XNNPACKQuantizer, or torchao's 8da4w linears, for the
quantized ones), to_executorch; a bundle made by upstream's BundledProgram;
an ETRecord from upstream's generate_etrecord. Expected outputs come from
PyTorch eager mode, except for static int8 and 8da4w programs: their integer
arithmetic is what a device must
reproduce, so their expected outputs are upstream's runtime's (the distance
to the float emulation convert_pt2e or torchao makes, where quantize and
dequantize pairs compute in float, is printed).
For every sample the distance between upstream's runtime and the bundle's
expected outputs is printed. Weights are random from a fixed seed; nothing
is downloaded. Writes samples/<name>/<name>.{pte,bpte,etrecord} (and
eager_generation.json for nanoGPT). The Llama-style samples come from
make_tiny_llama.py (upstream's LLM export); the Cortex-M sample from
samples/export/cortex_m_reference/ (see samples/README.md).

--full-size writes the unreduced MobileNetV2 / ResNet-18 at 1x3x224x224
(.pte only) for the runtime benchmarks.
"""

import argparse
import copy
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

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
LLM_PROMPT = [1, 17, 42, 7, 99, 3, 250, 64]
LLM_NEW_TOKENS = 64


def images(*shape):
    return lambda generator: (torch.randn(shape, generator=generator),)


def unit_images(*shape):  # camera-like pixels in [0, 1)
    return lambda generator: (torch.rand(shape, generator=generator),)


def image_and_labels(generator):
    return (torch.randn((1, 3, 64, 64), generator=generator),
            torch.randint(0, 6, (1, 1, 64, 64), generator=generator))


def gpt_tokens(generator):
    config = models.GPTConfig
    return (torch.randint(0, config.vocab_size, (1, config.block_size), generator=generator),)


def log_mel(generator):  # roughly zero mean, unit spread, over 80 mels and 2 s of 10 ms frames
    return (torch.randn((1, 80, 200), generator=generator),)


@dataclass
class Sample:
    build: Callable[[], torch.nn.Module]
    make_inputs: Callable[[torch.Generator], tuple]
    # "portable": no delegate; "xnnpack": upstream's XNNPACK partitioner;
    # "xnnpack_int8": PT2E static int8 first; "xnnpack_8da4w": torchao's
    # 8da4w linears (int8 per-token activations, int4 weights in groups of 32) first.
    lowering: str = "portable"
    dtype: torch.dtype = torch.float32
    generates: bool = False  # a language model over a window: also eager greedy generation


MOBILENET = lambda: models.MobileNetV2(width=0.5, classes=100)  # noqa: E731
SAMPLE_KINDS = {
    "tutorial_cnn": Sample(models.TutorialCNN, images(1, 1, 32, 32)),
    "mobilenet_v2": Sample(MOBILENET, images(1, 3, 128, 128)),
    "mobilenet_v2_xnnpack": Sample(MOBILENET, images(1, 3, 128, 128), "xnnpack"),
    "mobilenet_v2_xnnpack_int8": Sample(MOBILENET, images(1, 3, 128, 128), "xnnpack_int8"),
    "resnet18": Sample(lambda: models.ResNet18(width=0.25, classes=100), images(1, 3, 128, 128)),
    "deeplab_head": Sample(models.SegmentationHead, image_and_labels),
    "transformer_8da4w": Sample(models.TransformerBlock, images(1, 16, 64), "xnnpack_8da4w"),
    "nano_gpt": Sample(models.NanoGPT, gpt_tokens, generates=True),
    "nano_gpt_bf16": Sample(models.NanoGPT, gpt_tokens, dtype=torch.bfloat16),
    "yolo_detector_xnnpack": Sample(models.TinyYolo, unit_images(1, 3, 128, 128), "xnnpack"),
    "yolo_detector_xnnpack_int8": Sample(models.TinyYolo, unit_images(1, 3, 128, 128), "xnnpack_int8"),
    "speech_encoder_xnnpack": Sample(models.SpeechEncoder, log_mel, "xnnpack"),
}
FULL_SIZE_KINDS = {
    "mobilenet_v2_full": Sample(models.MobileNetV2, images(1, 3, 224, 224)),
    "mobilenet_v2_xnnpack_full": Sample(models.MobileNetV2, images(1, 3, 224, 224), "xnnpack"),
    "mobilenet_v2_xnnpack_int8_full": Sample(models.MobileNetV2, images(1, 3, 224, 224), "xnnpack_int8"),
    "resnet18_full": Sample(models.ResNet18, images(1, 3, 224, 224)),
}


def quantized_int8(model, example, make_inputs):
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


def quantized_8da4w(model):
    """torchao's 8da4w as upstream's LLM export applies it to linears: int8
    per-token dynamic activations, int4 symmetric weights per group of 32."""
    from torchao.quantization import Int8DynamicActivationIntxWeightConfig, quantize_
    from torchao.quantization.granularity import PerGroup

    quantize_(model, Int8DynamicActivationIntxWeightConfig(weight_dtype=torch.int4, weight_granularity=PerGroup(32)))
    return model


def upstream_outputs(program, inputs):
    from executorch.extension.pybindings import portable_lib as runtime
    import executorch.kernels.quantized  # noqa: F401  registers quantized_decomposed:: kernels

    module = runtime._load_for_executorch_from_buffer(program)  # borrows `program`, kept alive by the caller
    return [o.clone() for o in module.run_method("forward", tuple(inputs))]


def as_list(outputs):
    return list(outputs if isinstance(outputs, (tuple, list)) else (outputs,))


def largest_difference(a, b):
    return max(float((x.float() - y.float()).abs().max()) for x, y in zip(a, b))


def eager_greedy_window(model, prompt, count, window):
    """Greedy generation as nanoGPT's generate: the whole sequence (its last
    `window` tokens) each step, the argmax of the last position's logits."""
    sequence = list(prompt)
    with torch.no_grad():
        for _ in range(count):
            logits = model(torch.tensor([sequence[-window:]]))
            sequence.append(int(logits[0, -1].argmax()))
    return sequence[len(prompt):]


def export(name, sample, out, pte_only=False):
    torch.manual_seed(SEED)
    generator = torch.Generator().manual_seed(SEED)
    model = models.randomize_batch_norms(sample.build(), generator).to(sample.dtype).eval()
    make_inputs = lambda: sample.make_inputs(generator)  # noqa: E731
    example = make_inputs()
    if sample.lowering == "xnnpack_int8":
        model = quantized_int8(model, example, make_inputs)
    elif sample.lowering == "xnnpack_8da4w":
        model = quantized_8da4w(model)
    exported = torch.export.export(model, example)
    partitioners = [] if sample.lowering == "portable" else [XnnpackPartitioner()]
    edge = to_edge_transform_and_lower(exported, partitioner=partitioners)
    edge_for_record = None if pte_only else copy.deepcopy(edge)  # to_executorch changes the edge program
    program = edge.to_executorch()
    folder = out / name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.pte").write_bytes(program.buffer)
    if pte_only:
        return folder
    cases, distance = [], 0.0
    integer = sample.lowering in ("xnnpack_int8", "xnnpack_8da4w")
    with torch.no_grad():
        for inputs in [example] + [make_inputs() for _ in range(CASES - 1)]:
            eager = as_list(model(*inputs))
            upstream = upstream_outputs(program.buffer, inputs)
            distance = max(distance, largest_difference(upstream, eager))
            expected = upstream if integer else eager
            cases.append(MethodTestCase(inputs=list(inputs), expected_outputs=expected))
    what = "the float emulation" if integer else "eager PyTorch"
    print(f"{name}: upstream's runtime is {distance:.3g} from {what} at most", file=sys.stderr)
    bundle = BundledProgram(program, [MethodTestSuite(method_name="forward", test_cases=cases)])
    (folder / f"{name}.bpte").write_bytes(serialize_from_bundled_program_to_flatbuffer(bundle))
    generate_etrecord(folder / f"{name}.etrecord", edge_for_record, program)
    if sample.generates:
        window = example[0].shape[1]
        generation = {"made_by": "samples/export/upstream/export_samples.py (PyTorch eager, greedy, the last "
                                 f"{window} tokens each step)", "prompt_tokens": LLM_PROMPT,
                      "generated_tokens": eager_greedy_window(model, LLM_PROMPT, LLM_NEW_TOKENS, window)}
        (folder / "eager_generation.json").write_text(json.dumps(generation, indent=1) + "\n")
    return folder


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", action="append", help="export only this sample (repeatable)")
    parser.add_argument("--full-size", action="store_true",
                        help="unreduced MobileNetV2 / ResNet-18 at 224x224, .pte only (benchmarks)")
    parser.add_argument("--out", type=Path, default=SAMPLES, help="output folder (default samples/)")
    args = parser.parse_args()
    kinds = FULL_SIZE_KINDS if args.full_size else SAMPLE_KINDS
    unknown = set(args.only or []) - set(kinds)
    if unknown:
        parser.error(f"unknown sample(s): {', '.join(sorted(unknown))}; known: {', '.join(kinds)}")
    torch.set_num_threads(1)  # the same sums in the same order on every machine
    for name in args.only or kinds:
        started = time.time()
        folder = export(name, kinds[name], args.out, pte_only=args.full_size)
        sizes = ", ".join(f"{p.name} {p.stat().st_size:,} bytes" for p in sorted(folder.iterdir()) if p.is_file())
        print(f"{name}: {sizes} ({time.time() - started:.0f} s)", file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
