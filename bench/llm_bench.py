#!/usr/bin/python3
"""Token generation with the tiny_llama samples (float and 8da4w), one
thread: prefill and decode tokens per second and time to first token from
`etinspect generate` (median of N generations, untraced), the same decode loop on upstream's
runtime (the pinned wheel's pybindings, from Python), and, in the same run, llama::custom_sdpa at
a context of 512 against the same attention in libtorch ops
(`kernel_bench --only attention`).

    bench/llm_bench.py ETINSPECT [--kernel-bench PATH] [--runs N] [--new-tokens N]
"""
import argparse
import json
import os
import statistics
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SAMPLES = ["tiny_llama", "tiny_llama_8da4w"]


def etkit_generation(etinspect, sample, prompt, new_tokens):
    program = os.path.join(ROOT, "samples", sample, sample + ".pte")
    result = subprocess.run([etinspect, "generate", program, "--prompt-tokens", ",".join(map(str, prompt)),
                             "--max-new", str(new_tokens), "--threads", "1", "--json"],
                            capture_output=True, text=True, check=True)
    return json.loads(result.stdout)


UPSTREAM_DECODE = """
import sys, time, torch
from executorch.extension.pybindings import portable_lib as runtime
import executorch.extension.llm.custom_ops.custom_ops  # registers llama:: kernels
import executorch.kernels.quantized
program = open(sys.argv[1], "rb").read()
prompt, new_tokens = [int(t) for t in sys.argv[2].split(",")], int(sys.argv[3])
module = runtime._load_for_executorch_from_buffer(program)
for position, token in enumerate(prompt):
    logits = module.run_method("forward", (torch.tensor([[token]]), torch.tensor([position])))[0]
start = time.perf_counter()
for i in range(new_tokens):
    token = int(logits.reshape(-1)[-logits.shape[-1]:].argmax())
    logits = module.run_method("forward", (torch.tensor([[token]]), torch.tensor([len(prompt) + i])))[0]
print(new_tokens / (time.perf_counter() - start))
"""


def upstream_decode_tokens_per_second(sample, prompt, new_tokens):
    """Upstream's runtime (the pinned wheel's pybindings) decoding the same
    program token by token, Python loop included."""
    program = os.path.join(ROOT, "samples", sample, sample + ".pte")
    result = subprocess.run([os.path.join(ROOT, "scripts", "upstream-python"), "-c", UPSTREAM_DECODE, program,
                             ",".join(map(str, prompt)), str(new_tokens)], capture_output=True, text=True, check=True)
    return float(result.stdout.split()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("etinspect")
    parser.add_argument("--kernel-bench", default=None, help="default: kernel_bench beside etinspect's build")
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--new-tokens", type=int, default=64)
    args = parser.parse_args()
    with open(os.path.join(ROOT, "samples", "tiny_llama", "upstream_generation.json")) as f:
        prompt = json.load(f)["prompt_tokens"]
    print("tiny_llama (2 layers, dim 64, GQA 4/2 heads, vocab 256), prompt %d tokens, %d new, one thread, "
          "median of %d generations" % (len(prompt), args.new_tokens, args.runs))
    for sample in SAMPLES:
        runs = [etkit_generation(args.etinspect, sample, prompt, args.new_tokens) for _ in range(args.runs)]
        median = {key: statistics.median(r[key] for r in runs)
                  for key in ("prefill_token_per_sec", "decode_token_per_sec", "time_to_first_token_ms")}
        print("%-18s prefill (token by token) %7.0f tokens/s, decode %7.0f tokens/s, time to first token %.3f ms"
              % (sample, median["prefill_token_per_sec"], median["decode_token_per_sec"],
                 median["time_to_first_token_ms"]))
        print("%-18s decode %7.0f tokens/s on upstream's runtime (its pybindings, from Python)" % (
            "", upstream_decode_tokens_per_second(sample, prompt, args.new_tokens)))
    kernel_bench = args.kernel_bench or os.path.join(os.path.dirname(os.path.dirname(
        os.path.abspath(args.etinspect))), "bench", "kernel_bench")
    print("llama::custom_sdpa vs libtorch attention (kernel_bench --only attention):", flush=True)
    subprocess.run([kernel_bench, "--only", "attention"], check=True)


if __name__ == "__main__":
    main()
