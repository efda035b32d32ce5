#!/usr/bin/python3
"""Exports etkit's sample models: for each, a .pte, a .bpte whose expected
outputs come from PyTorch eager mode, an ETRecord (per-method layout) and
reference intermediate outputs (.npy per debug handle) for `etinspect gap`.

    samples/export/export_samples.py [--out DIR] [--only NAME] [--full-size]
        [--cases N] [--references] [--flatc PATH]

Needs only Debian packages: python3-torch, python3-torchvision,
python3-numpy and flatbuffers-compiler.
"""
import argparse
import contextlib
import json
import os
import sys
import time

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from etexport.bundle import eager_outputs, write_bundle  # noqa: E402
from etexport.capture import capture  # noqa: E402
from etexport import cortex_m  # noqa: E402
from etexport.emit import emit_method, record_values  # noqa: E402
from etexport.etrecord import write_etrecord  # noqa: E402
from etexport.int8 import Int8Reference  # noqa: E402
from etexport import llm  # noqa: E402
from etexport.program import MetadataMethod, write_program  # noqa: E402
import models  # noqa: E402

SAMPLES_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SEED = 20261122
CALIBRATION_RUNS = 8


def int8_outputs(method, captured, inputs):
    """Outputs of the graph with its int8 delegate calls computed by the
    reference integer arithmetic (etexport/int8.py)."""
    with torch.no_grad():
        out = Int8Reference(method.graph_module, method.delegates).run(
            *(list(captured.constants) + list(inputs)))
    return tuple(t.detach().clone() for t in (out if isinstance(out, (tuple, list)) else [out]))


def write_references(directory, method, inputs):
    """Every instruction's first output as the eager graph computed it, named
    by debug handle, plus the inputs that produced them."""
    os.makedirs(directory, exist_ok=True)
    for old in os.listdir(directory):
        if old.endswith(".npy"):
            os.remove(os.path.join(directory, old))
    index = {}
    for instruction_id, instruction in enumerate(method.instructions):
        result = method.node_results[instruction.node]
        tensor = result[0] if isinstance(result, (tuple, list)) else result
        handle = method.debug_handles[instruction.node]
        tensor = tensor.detach()
        if tensor.dtype == torch.bfloat16:  # NumPy has no bfloat16: its exact float32 values
            tensor = tensor.float()
        np.save(os.path.join(directory, "%d.npy" % handle), np.ascontiguousarray(tensor.numpy()))
        index[handle] = {"instruction_id": instruction_id, "node": instruction.node.name,
                         "kernel": instruction.kernel}
    for i, tensor in enumerate(inputs):
        np.save(os.path.join(directory, "input_%d.npy" % i), tensor.numpy())
    with open(os.path.join(directory, "index.json"), "w") as f:
        json.dump(index, f, indent=1, sort_keys=True)


LLM_PROMPT = [1, 17, 42, 7, 99, 3, 250, 64]
LLM_NEW_TOKENS = 64


def eager_llm_steps(model, tokens):
    """Logits of each step of a KV-cache model fed `tokens` one by one from
    position 0 (its caches reset first)."""
    model.reset_caches()
    with torch.no_grad():
        return [model(torch.tensor([[t]]), torch.tensor([i])).clone() for i, t in enumerate(tokens)]


def eager_greedy(model, prompt, count):
    """PyTorch eager's greedy continuation of `prompt`: token by token, the
    argmax of the last logits."""
    logits = eager_llm_steps(model, prompt)[-1]
    generated = []
    with torch.no_grad():
        for i in range(count):
            generated.append(int(logits.argmax()))
            if i + 1 < count:
                logits = model(torch.tensor([[generated[-1]]]), torch.tensor([len(prompt) + i]))
    return generated


def write_pte(out_dir, name, program):
    """Writes <out_dir>/<name>/<name>.pte; returns the folder and the stem."""
    directory = os.path.join(out_dir, name)
    os.makedirs(directory, exist_ok=True)
    stem = os.path.join(directory, name)
    with open(stem + ".pte", "wb") as f:
        f.write(program)
    return directory, stem


def print_exported(sample, method, constants, start, written):
    print("%-18s %3d instructions, arena %7.2f MiB, constants %6.2f MiB, %.1f s -> %s" % (
        sample.name, len(method.instructions), method.arena_size / 2**20,
        sum(t.numel() * t.element_size() for t in constants) / 2**20,
        time.monotonic() - start, ", ".join(os.path.basename(w.rstrip("/")) for w in written)),
        flush=True)


def eager_greedy_window(model, prompt, count, window):
    """Greedy generation with a model over a window of tokens and no cache,
    as nanoGPT's generate: the whole sequence (its last `window` tokens)
    each step, the argmax of the last position's logits."""
    sequence = list(prompt)
    with torch.no_grad():
        for _ in range(count):
            logits = model(torch.tensor([sequence[-window:]]))
            sequence.append(int(logits[0, -1].argmax()))
    return sequence[len(prompt):]


def write_eager_generation(directory, prompt, generated):
    with open(os.path.join(directory, "eager_generation.json"), "w") as f:
        json.dump({"source": "PyTorch eager, greedy, export_samples.py", "prompt_tokens": prompt,
                   "generated_tokens": generated}, f, indent=1)
        f.write("\n")


def export_kv_cache_llm(sample, model, out_dir, flatc, pte_only):
    """A decoder with KV caches as upstream's LLM flow exports it: forward
    (tokens [1, 1], input_pos [1]) with the caches as mutable buffers, the
    metadata methods its runner reads, a bundle of successive steps, and
    eager PyTorch's greedy generation for `etinspect generate` to match."""
    start = time.monotonic()
    config = model.config
    example = (torch.tensor([[LLM_PROMPT[0]]]), torch.tensor([0]))
    model.tracing = True
    captured = capture(model, example)
    model.tracing = False
    llm.rewire_start_pos(captured.graph_module,
                         [n for n in captured.graph_module.graph.nodes if n.op == "placeholder"][-1])
    caches = [n for n in captured.constant_names if n.endswith(("k_cache", "v_cache"))]
    model.reset_caches()  # tracing wrote into them (the captured constants alias them)
    constants = []
    # With a reference (8da4w), the linears go to XNNPACK and eager mode simulates them.
    method = emit_method("forward", captured, example, constants, flatc=flatc, mutable_buffers=caches,
                         delegate="xnnpack_8da4w" if sample.reference else None)
    def eager():  # a fresh context each time: the 8da4w simulation is a one-shot context manager
        return sample.reference(model) if sample.reference else contextlib.nullcontext()
    metadata = [MetadataMethod("enable_dynamic_shape", False), MetadataMethod("get_max_seq_len", config.max_seq_len),
                MetadataMethod("get_n_layers", config.n_layers), MetadataMethod("get_vocab_size", config.vocab_size),
                MetadataMethod("use_kv_cache", True), MetadataMethod("use_sdpa_with_kv_cache", False)]
    program = write_program([method] + metadata, constants, flatc)
    directory, stem = write_pte(out_dir, sample.name, program)
    written = [stem + ".pte"]
    if not pte_only:
        # Bundle: the prompt's steps in order, on one loaded method (stateful).
        with eager():
            steps = eager_llm_steps(model, LLM_PROMPT)
        bundle_cases = [((torch.tensor([[t]]), torch.tensor([i])), (logits,))
                        for i, (t, logits) in enumerate(zip(LLM_PROMPT, steps))]
        with open(stem + ".bpte", "wb") as f:
            f.write(write_bundle(program, "forward", bundle_cases, flatc))
        write_etrecord(stem + ".etrecord", [method])
        with eager():
            generated = eager_greedy(model, LLM_PROMPT, LLM_NEW_TOKENS)
        write_eager_generation(directory, LLM_PROMPT, generated)
        written += [stem + ".bpte", stem + ".etrecord", "eager_generation.json"]
    print_exported(sample, method, constants, start, written)


def export(sample, out_dir, cases, references, flatc, pte_only):
    start = time.monotonic()
    generator = torch.Generator().manual_seed(SEED)
    torch.manual_seed(SEED)
    model = models.randomize_batch_norms(sample.build(), generator).eval()
    if sample.delegate == "llm_kv_cache":
        return export_kv_cache_llm(sample, model, out_dir, flatc, pte_only)
    example = sample.make_inputs(generator)
    captured = capture(model, example)
    constants = []
    calibration = []
    if sample.delegate in ("xnnpack_qs8", "cortex_m_int8"):  # inputs of their own, not the bundle's
        calibration_generator = torch.Generator().manual_seed(SEED + 1)
        calibration = [sample.make_inputs(calibration_generator) for _ in range(CALIBRATION_RUNS)]
    lowered = None
    if sample.delegate == "cortex_m_int8":
        ranges = cortex_m.ShapeCalibration()
        for inputs in [example] + calibration:
            ranges.observe(record_values(captured.graph_module, list(captured.constants) + list(inputs)))
        lowered = cortex_m.lower_to_cortex_m(captured, ranges)
        method = emit_method("forward", lowered, example, constants, flatc=flatc, strided_dim_orders=True)
    else:
        method = emit_method("forward", captured, example, constants, delegate=sample.delegate,
                             flatc=flatc, calibration_inputs=calibration)
    program = write_program([method], constants, flatc)
    directory, stem = write_pte(out_dir, sample.name, program)
    written = [stem + ".pte"]
    if not pte_only:
        def expected(inputs):
            if sample.delegate == "xnnpack_qs8":
                return int8_outputs(method, captured, inputs)
            if lowered is not None:  # the reference integer arithmetic
                with torch.no_grad():
                    return (lowered.graph_module(*lowered.constants, *inputs).detach().clone(),)
            with sample.reference(model) if sample.reference else contextlib.nullcontext():
                return eager_outputs(model, inputs)
        bundle_cases = [(example, expected(example))]
        for _ in range(cases - 1):
            inputs = sample.make_inputs(generator)
            bundle_cases.append((inputs, expected(inputs)))
        if sample.reference or sample.delegate in ("xnnpack_qs8", "cortex_m_int8"):  # how far the quantized outputs are from the float model's
            gaps = [(q - f).abs() for inputs, outs in bundle_cases
                    for q, f in zip(outs, eager_outputs(model, inputs))]
            print("%-18s quantized vs float outputs: max |diff| %.4g, mean |diff| %.4g" % (
                sample.name, max(g.max().item() for g in gaps),
                sum(g.mean().item() for g in gaps) / len(gaps)), flush=True)
        with open(stem + ".bpte", "wb") as f:
            f.write(write_bundle(program, "forward", bundle_cases, flatc))
        write_etrecord(stem + ".etrecord", [method])
        written += [stem + ".bpte", stem + ".etrecord"]
        if sample.generates:
            window = example[0].shape[1]
            write_eager_generation(directory, LLM_PROMPT, eager_greedy_window(model, LLM_PROMPT, LLM_NEW_TOKENS, window))
            written.append("eager_generation.json")
        if references and not method.delegates:
            write_references(os.path.join(directory, "reference"), method, example)
            written.append(os.path.join(directory, "reference/"))
    print_exported(sample, method, constants, start, written)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=SAMPLES_DIR, help="output folder (default samples/)")
    parser.add_argument("--only", action="append", help="export only this sample (repeatable)")
    parser.add_argument("--full-size", action="store_true",
                        help="unreduced MobileNetV2 / ResNet-18 at 224x224, .pte only (benchmarks)")
    parser.add_argument("--cases", type=int, default=3, help="test cases per bundle")
    parser.add_argument("--references", action="store_true",
                        help="also write reference/<debug handle>.npy (large; not checked in)")
    parser.add_argument("--flatc", default="flatc")
    args = parser.parse_args()
    torch.set_num_threads(1)
    chosen = models.samples(full_size=args.full_size)
    if args.only:
        unknown = set(args.only) - {s.name for s in chosen}
        if unknown:
            parser.error("unknown sample(s): %s" % ", ".join(sorted(unknown)))
        chosen = [s for s in chosen if s.name in args.only]
    for sample in chosen:
        export(sample, args.out, args.cases, args.references, args.flatc,
               pte_only=args.full_size)


if __name__ == "__main__":
    main()
