#!/usr/bin/python3
"""Token generation with the tiny_llama samples (float and 8da4w), one
thread: prefill and decode tokens per second and time to first token from
`etinspect generate` (median of N generations, untraced), the same decode loop in PyTorch eager
(the exporter's model, whose llama ops are Python reference bodies, so a
floor rather than a fair rival), and, in the same run, llama::custom_sdpa at
a context of 512 against the same attention in libtorch ops
(`kernel_bench --only attention`).

    bench/llm_bench.py ETINSPECT [--kernel-bench PATH] [--runs N] [--new-tokens N]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SAMPLES = ["tiny_llama", "tiny_llama_8da4w"]


def etkit_generation(etinspect, sample, prompt, new_tokens):
    program = os.path.join(ROOT, "samples", sample, sample + ".pte")
    result = subprocess.run([etinspect, "generate", program, "--prompt-tokens", ",".join(map(str, prompt)),
                             "--max-new", str(new_tokens), "--threads", "1", "--json"],
                            capture_output=True, text=True, check=True)
    return json.loads(result.stdout)


def eager_decode_tokens_per_second(prompt, new_tokens):
    sys.path.insert(0, os.path.join(ROOT, "samples", "export"))
    import export_samples  # noqa: E402  (seeds and builds the sample's model as the exporter does)
    import models  # noqa: E402
    torch.set_num_threads(1)
    torch.manual_seed(export_samples.SEED)
    generator = torch.Generator().manual_seed(export_samples.SEED)
    model = models.randomize_batch_norms(models.TinyLlama(), generator).eval()
    export_samples.eager_llm_steps(model, prompt)
    token = 0
    start = time.perf_counter()
    with torch.no_grad():
        for i in range(new_tokens):
            logits = model(torch.tensor([[token]]), torch.tensor([len(prompt) + i]))
            token = int(logits.argmax())
    return new_tokens / (time.perf_counter() - start)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("etinspect")
    parser.add_argument("--kernel-bench", default=None, help="default: kernel_bench beside etinspect's build")
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--new-tokens", type=int, default=64)
    args = parser.parse_args()
    with open(os.path.join(ROOT, "samples", "tiny_llama", "eager_generation.json")) as f:
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
    print("%-18s decode %7.0f tokens/s (PyTorch eager, the float model, llama ops in Python)" % (
        "eager reference", eager_decode_tokens_per_second(prompt, args.new_tokens)))
    kernel_bench = args.kernel_bench or os.path.join(os.path.dirname(os.path.dirname(
        os.path.abspath(args.etinspect))), "bench", "kernel_bench")
    print("llama::custom_sdpa vs libtorch attention (kernel_bench --only attention):", flush=True)
    subprocess.run([kernel_bench, "--only", "attention"], check=True)


if __name__ == "__main__":
    main()
