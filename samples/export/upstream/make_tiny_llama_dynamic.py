"""Makes samples/tiny_llama_dynamic/ with upstream's LLM export, as users do:

    scripts/upstream-python samples/export/upstream/make_tiny_llama_dynamic.py [--variant 8da4w]

A Llama-style decoder (2 layers, dim 64, 4 query / 2 kv heads, vocab 256,
max_seq_len 64) built by upstream's llama model code with seeded random
weights (nothing is downloaded), exported by upstream's export_llm with a KV
cache, upstream's SDPA-with-KV-cache op and a dynamic sequence length (the
prompt is one call), portable kernels (no delegate); with --variant 8da4w
(samples/tiny_llama_dynamic_8da4w/) its linears quantized by torchao's
8da4w (int8 per-token activations, 4-bit weights in groups of 32) and
lowered to XNNPACK, as upstream's LLM guide exports for phones. Writes
<name>.pte and upstream_generation.json: upstream's runtime's
greedy tokens for a fixed prompt (prefill in one call, then one token per
call), the reference `etinspect generate` is tested against.
"""

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import torch

REPO = Path(__file__).resolve().parents[3]
# Per variant: the sample's name and what export_llm is told beyond the common options.
VARIANTS = {
    "portable": ("tiny_llama_dynamic", []),
    "8da4w": ("tiny_llama_dynamic_8da4w", ["quantization.qmode=8da4w", "quantization.group_size=32",
                                           "backend.xnnpack.enabled=True"]),
}
PARAMS = {"dim": 64, "n_layers": 2, "n_heads": 4, "n_kv_heads": 2, "vocab_size": 256, "multiple_of": 32,
          "norm_eps": 1e-5, "rope_theta": 10000.0}
MAX_SEQ_LEN = 64
PROMPT = [1, 17, 42, 99, 7, 3, 250, 64]
MAX_NEW = 16


def seeded_checkpoint(path):
    from executorch.examples.models.llama.llama_transformer import construct_transformer
    from executorch.examples.models.llama.model_args import ModelArgs

    torch.manual_seed(20261128)
    model = construct_transformer(ModelArgs(max_seq_len=MAX_SEQ_LEN, max_context_len=MAX_SEQ_LEN, **PARAMS))
    state = {}
    for name, value in model.state_dict().items():
        if not value.is_floating_point():
            state[name] = value
        elif "norm" in name:
            state[name] = torch.ones_like(value)  # RMSNorm weights start at one
        else:
            state[name] = torch.randn_like(value) * 0.1
    torch.save(state, path)


def export(folder, name, options):
    (folder / "params.json").write_text(json.dumps(PARAMS))
    seeded_checkpoint(folder / "checkpoint.pth")
    subprocess.run([sys.executable, "-m", "executorch.extension.llm.export.export_llm",
                    "base.model_class=llama3", "base.params=params.json", "base.checkpoint=checkpoint.pth",
                    "model.use_kv_cache=True", "model.use_sdpa_with_kv_cache=True", "model.enable_dynamic_shape=True",
                    f"export.max_seq_length={MAX_SEQ_LEN}", f"export.max_context_length={MAX_SEQ_LEN}",
                    f"export.output_name={name}.pte", *options], cwd=folder, check=True, capture_output=True)
    return (folder / f"{name}.pte").read_bytes()


def upstream_greedy(program):
    """Upstream's runtime: the prompt in one call, then one token per call."""
    from executorch.extension.pybindings import portable_lib as runtime
    import executorch.extension.llm.custom_ops.custom_ops  # noqa: F401  registers llama:: kernels
    import executorch.kernels.quantized  # noqa: F401

    module = runtime._load_for_executorch_from_buffer(program)
    logits = module.run_method("forward", (torch.tensor([PROMPT]), torch.tensor([0])))[0]
    tokens = [int(logits.reshape(-1, logits.shape[-1])[-1].argmax())]
    while len(tokens) < MAX_NEW:
        logits = module.run_method("forward", (torch.tensor([[tokens[-1]]]), torch.tensor([len(PROMPT) + len(tokens) - 1])))[0]
        tokens.append(int(logits.reshape(-1, logits.shape[-1])[-1].argmax()))
    return tokens


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", choices=sorted(VARIANTS), default="portable")
    variant = parser.parse_args().variant
    name, options = VARIANTS[variant]
    with tempfile.TemporaryDirectory() as folder:
        program = export(Path(folder), name, options)
    out = REPO / "samples" / name
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{name}.pte").write_bytes(program)
    command = "samples/export/upstream/make_tiny_llama_dynamic.py" + ("" if variant == "portable" else
                                                                        f" --variant {variant}")
    reference = {"made_by": f"{command} (upstream's runtime, greedy)",
                 "prompt_tokens": PROMPT, "max_new": MAX_NEW, "generated_tokens": upstream_greedy(program)}
    (out / "upstream_generation.json").write_text(json.dumps(reference, indent=1) + "\n")
    print(f"{out}: {len(program)} bytes; upstream's tokens {reference['generated_tokens']}", file=sys.stderr)


if __name__ == "__main__":
    main()
