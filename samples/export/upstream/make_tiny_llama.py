"""Makes the Llama-style samples with upstream's LLM export, as users do:

    scripts/upstream-python samples/export/upstream/make_tiny_llama.py [--only NAME]

A Llama-style decoder (2 layers, dim 64, 4 query / 2 kv heads, vocab 256)
built by upstream's llama model code with seeded random weights (nothing is
downloaded), exported by upstream's export_llm with a KV cache in mutable
buffers and upstream's SDPA-with-KV-cache op, in four variants:

- tiny_llama: one token per call (static shapes, max_seq_len 128), token
  embeddings in 4 bits (groups of 32), portable kernels; a bundle of the
  prompt's successive steps and upstream's ETRecord;
- tiny_llama_8da4w: the same with its linears quantized by torchao's 8da4w
  (int8 per-token activations, 4-bit weights in groups of 32) and lowered to
  XNNPACK, as upstream's LLM guide exports for phones;
- tiny_llama_dynamic and tiny_llama_dynamic_8da4w: a dynamic sequence length
  (up to 127 tokens per call, max_seq_len 128), so the prompt is one call.

Each folder gets <name>.pte and upstream_generation.json: upstream's
runtime's greedy tokens for a fixed prompt (one call for the whole prompt
where the program takes it, else token by token), the reference
`etinspect generate` is tested against. Bundled expected outputs are
upstream's runtime's logits too (the model lives inside export_llm; its
runtime is the oracle).
"""

import argparse
import json
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import torch

REPO = Path(__file__).resolve().parents[3]
PARAMS = {"dim": 64, "n_layers": 2, "n_heads": 4, "n_kv_heads": 2, "vocab_size": 256, "multiple_of": 32,
          "norm_eps": 1e-5, "rope_theta": 10000.0}
QUANTIZE_8DA4W = ["quantization.qmode=8da4w", "quantization.group_size=32", "backend.xnnpack.enabled=True"]


@dataclass
class Variant:
    dynamic: bool
    max_seq_len: int
    prompt: list
    max_new: int
    options: list = field(default_factory=list)


STATIC_PROMPT = [1, 17, 42, 7, 99, 3, 250, 64]
DYNAMIC_PROMPT = [1, 17, 42, 99, 7, 3, 250, 64]
VARIANTS = {
    "tiny_llama": Variant(False, 128, STATIC_PROMPT, 64, ["quantization.embedding_quantize='4,32'"]),
    "tiny_llama_8da4w": Variant(False, 128, STATIC_PROMPT, 64,
                                ["quantization.embedding_quantize='4,32'", *QUANTIZE_8DA4W]),
    "tiny_llama_dynamic": Variant(True, 128, DYNAMIC_PROMPT, 64),
    "tiny_llama_dynamic_8da4w": Variant(True, 128, DYNAMIC_PROMPT, 64, QUANTIZE_8DA4W),
}


def seeded_checkpoint(path, max_seq_len):
    from executorch.examples.models.llama.llama_transformer import construct_transformer
    from executorch.examples.models.llama.model_args import ModelArgs

    torch.manual_seed(20261128)
    model = construct_transformer(ModelArgs(max_seq_len=max_seq_len, max_context_len=max_seq_len, **PARAMS))
    state = {}
    for name, value in model.state_dict().items():
        if not value.is_floating_point():
            state[name] = value
        elif "norm" in name:
            state[name] = torch.ones_like(value)  # RMSNorm weights start at one
        else:
            state[name] = torch.randn_like(value) * 0.1
    torch.save(state, path)


def export(folder, name, variant):
    """Runs export_llm as a user would; returns the program's bytes and the
    ETRecord's path (static variants only)."""
    (folder / "params.json").write_text(json.dumps(PARAMS))
    seeded_checkpoint(folder / "checkpoint.pth", variant.max_seq_len)
    record = [] if variant.dynamic else ["debug.generate_etrecord=True"]
    subprocess.run([sys.executable, "-m", "executorch.extension.llm.export.export_llm",
                    "base.model_class=llama3", "base.params=params.json", "base.checkpoint=checkpoint.pth",
                    "model.use_kv_cache=True", "model.use_sdpa_with_kv_cache=True",
                    f"model.enable_dynamic_shape={variant.dynamic}",
                    f"export.max_seq_length={variant.max_seq_len}", f"export.max_context_length={variant.max_seq_len}",
                    f"export.output_name={name}.pte", *variant.options, *record], cwd=folder, check=True,
                   capture_output=True)
    return folder / f"{name}.pte", folder / "etrecord.bin"


def upstream_module(program):
    from executorch.extension.pybindings import portable_lib as runtime
    import executorch.extension.llm.custom_ops.custom_ops  # noqa: F401  registers llama:: kernels
    import executorch.kernels.quantized  # noqa: F401

    return runtime._load_for_executorch_from_buffer(program)  # borrows `program`, kept alive by the caller


def last_logits(outputs):
    logits = outputs[0]
    return logits.reshape(-1, logits.shape[-1])[-1]


# A greedy step whose top two logits lie closer than this is a near tie: a
# runtime summing in another order may pick the other token, and from there
# on the two generations part. Tests compare tokens up to the first near tie.
NEAR_TIE = 0.005


def upstream_greedy(program, variant):
    """Upstream's runtime: the prompt in one call where the program takes
    it, else token by token; then one token per call. Returns the tokens
    and each step's margin between its top two logits."""
    module = upstream_module(program)
    if variant.dynamic:
        logits = last_logits(module.run_method("forward", (torch.tensor([variant.prompt]), torch.tensor([0]))))
    else:
        for position, token in enumerate(variant.prompt):
            logits = last_logits(module.run_method("forward", (torch.tensor([[token]]), torch.tensor([position]))))
    tokens, margins = [], []
    while True:
        top = torch.topk(logits, 2)
        tokens.append(int(top.indices[0]))
        margins.append(round(float(top.values[0] - top.values[1]), 6))
        if len(tokens) == variant.max_new:
            return tokens, margins
        position = len(variant.prompt) + len(tokens) - 1
        logits = last_logits(module.run_method("forward", (torch.tensor([[tokens[-1]]]), torch.tensor([position]))))


def write_bundle(pte, variant, out):
    """The prompt's steps in order, one token per call (the program is
    stateful: a verifier runs them in order on one loaded method), expected
    logits from upstream's runtime."""
    from executorch.devtools import BundledProgram
    from executorch.devtools.bundled_program.config import MethodTestCase, MethodTestSuite
    from executorch.devtools.bundled_program.serialize import serialize_from_bundled_program_to_flatbuffer

    program = pte.read_bytes()
    module = upstream_module(program)
    cases = []
    for position, token in enumerate(variant.prompt):
        inputs = [torch.tensor([[token]]), torch.tensor([position])]
        outputs = [o.clone() for o in module.run_method("forward", tuple(inputs))]
        cases.append(MethodTestCase(inputs=inputs, expected_outputs=outputs))
    bundle = BundledProgram(None, [MethodTestSuite(method_name="forward", test_cases=cases)], pte_file_path=str(pte))
    out.write_bytes(serialize_from_bundled_program_to_flatbuffer(bundle))


def make(name):
    variant = VARIANTS[name]
    out = REPO / "samples" / name
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch:
        pte, record = export(Path(scratch), name, variant)
        program = pte.read_bytes()
        (out / f"{name}.pte").write_bytes(program)
        if not variant.dynamic:
            write_bundle(pte, variant, out / f"{name}.bpte")
            (out / f"{name}.etrecord").write_bytes(record.read_bytes())
    command = f"samples/export/upstream/make_tiny_llama.py --only {name}"
    tokens, margins = upstream_greedy(program, variant)
    near_ties = [i for i, margin in enumerate(margins) if margin < NEAR_TIE]
    reference = {"made_by": f"{command} (upstream's runtime, greedy)", "prompt_tokens": variant.prompt,
                 "max_new": variant.max_new, "generated_tokens": tokens, "top_two_margins": margins,
                 "tokens_before_first_near_tie": near_ties[0] if near_ties else len(tokens)}
    (out / "upstream_generation.json").write_text(json.dumps(reference, indent=1) + "\n")
    print(f"{name}: {len(program):,} bytes; upstream's tokens {reference['generated_tokens']}", file=sys.stderr)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=sorted(VARIANTS), action="append")
    for name in parser.parse_args().only or VARIANTS:
        make(name)


if __name__ == "__main__":
    main()
