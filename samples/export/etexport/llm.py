"""What upstream's LLM export flow puts in a KV-cache program, for the
exporter: its custom ops (extension/llm/custom_ops: llama::update_cache,
llama::custom_sdpa) and the 4-bit embedding (quantized_decomposed::
embedding_4bit) as PyTorch custom ops whose Python bodies are the eager
reference (attention written in torch ops), and the graph rewiring that
turns the traced literal start position into upstream's
`aten::_local_scalar_dense(input_pos)`.

Schemas as upstream defines them (pytorch/executorch at
cff6f4dd32e630945b7188512c1f2b4f102b05ad); no code of theirs.

make_fx cannot trace a tensor's `.item()`: the model is traced with a
literal start position (`TRACE_START_POS`), and `rewire_start_pos` replaces
that literal in every llama op by one `_local_scalar_dense` of the input
position tensor, as torch.export records it.
"""
import math

import torch
import torch.fx
from torch.library import Library

aten = torch.ops.aten
TRACE_START_POS = 0

_LLAMA = Library("llama", "DEF")
_QUANTIZED = Library("quantized_decomposed", "DEF")  # torch 1.13 defines none of it


def _update_cache(value, cache, start_pos):
    """Writes value [B, S, H, D] into cache [B, max_seq, H, D] at positions
    start_pos..; returns an empty tensor (upstream's out is not written)."""
    cache[:, start_pos:start_pos + value.shape[1]] = value
    return torch.empty(0, dtype=value.dtype)


def _custom_sdpa(query, key, value, start_pos, attn_mask=None, drpout_p=0.0, is_causal=False, scale=None):
    """Attention of query [B, S, Hq, D] over the cache's first start_pos + S
    positions [B, max_seq, Hkv, D]; query s sees positions <= start_pos + s
    when causal; query head h reads kv head h // (Hq / Hkv)."""
    if attn_mask is not None or drpout_p != 0.0:
        raise ValueError("the reference takes no mask and no dropout")
    seq, heads, dim = query.shape[1], query.shape[2], query.shape[3]
    length = start_pos + seq
    k = key[:, :length].transpose(1, 2)    # [B, Hkv, L, D]
    v = value[:, :length].transpose(1, 2)
    group = heads // k.shape[1]
    k = k.repeat_interleave(group, dim=1)
    v = v.repeat_interleave(group, dim=1)
    q = query.transpose(1, 2)              # [B, Hq, S, D]
    scores = (q @ k.transpose(2, 3)) * (scale if scale is not None else 1.0 / math.sqrt(dim))
    if is_causal:
        positions = torch.arange(length).view(1, length)
        allowed = positions <= (start_pos + torch.arange(seq)).view(seq, 1)
        scores = scores.masked_fill(~allowed, float("-inf"))
    return (torch.softmax(scores, dim=-1) @ v).transpose(1, 2).contiguous()


def unpack_4bit(packed):
    """[rows, cols / 2] uint8 -> [rows, cols] int values in [-8, 7]: each
    stored + 8, the even column in the high nibble (upstream's packing)."""
    high = (packed.long() >> 4) - 8
    low = (packed.long() & 0x0F) - 8
    return torch.stack([high, low], dim=-1).reshape(packed.shape[0], -1)


def pack_4bit(values):
    """The inverse of unpack_4bit for [rows, cols] ints in [-8, 7]."""
    stored = (values.long() + 8).reshape(values.shape[0], -1, 2)
    return ((stored[..., 0] << 4) | stored[..., 1]).to(torch.uint8)


def quantize_embedding_4bit(table, group):
    """Symmetric 4-bit rows in groups of `group` columns: (packed, scales)."""
    rows, cols = table.shape
    grouped = table.reshape(rows, cols // group, group)
    scales = (grouped.abs().amax(-1) / 7).clamp(min=torch.finfo(torch.float32).eps)
    q = torch.clamp(torch.round(grouped / scales.unsqueeze(-1)), -8, 7).reshape(rows, cols)
    return pack_4bit(q), scales.float()


def _embedding_4bit(weight, weight_scales, weight_zero_points, weight_quant_min, weight_quant_max, indices):
    q = unpack_4bit(weight).float()
    groups = weight_scales.shape[1] if weight_scales.dim() == 2 else 1
    scales = weight_scales.reshape(weight.shape[0], groups).repeat_interleave(q.shape[1] // groups, dim=1)
    if weight_zero_points is not None:
        zeros = weight_zero_points.reshape(weight.shape[0], groups).repeat_interleave(q.shape[1] // groups, dim=1)
        q = q - zeros
    return (q * scales)[indices]


def _define(library, schema, fn):
    library.define(schema)
    library.impl(schema.split("(")[0], fn, "CPU")


_define(_LLAMA, "update_cache(Tensor value, Tensor(a!) cache, SymInt start_pos) -> Tensor", _update_cache)
_define(_LLAMA, "custom_sdpa(Tensor query, Tensor key, Tensor value, SymInt start_pos, Tensor? attn_mask=None, "
        "float drpout_p=0.0, bool is_causal=False, float? scale=None) -> Tensor", _custom_sdpa)
_define(_QUANTIZED, "embedding_4bit(Tensor weight, Tensor weight_scales, Tensor? weight_zero_points, "
        "int weight_quant_min, int weight_quant_max, Tensor indices) -> Tensor", _embedding_4bit)
# The cache update's result is unused: it must survive dead-code elimination.
torch.fx.node._side_effectful_functions.add(torch.ops.llama.update_cache.default)

LLAMA_OPS = (torch.ops.llama.update_cache.default, torch.ops.llama.custom_sdpa.default)


def rewire_start_pos(graph_module, input_pos):
    """Replaces the traced literal start position of every llama op by
    aten._local_scalar_dense(input_pos), inserted after the placeholders."""
    graph = graph_module.graph
    last_placeholder = [n for n in graph.nodes if n.op == "placeholder"][-1]
    with graph.inserting_after(last_placeholder):
        start_pos = graph.call_function(aten._local_scalar_dense.default, (input_pos,))
    for node in graph.nodes:
        if node.op == "call_function" and node.target in LLAMA_OPS:
            args = list(node.args)
            if args[3 if node.target is torch.ops.llama.custom_sdpa.default else 2] != TRACE_START_POS:
                raise ValueError("%s: start position is not the traced literal" % node.name)
            args[3 if node.target is torch.ops.llama.custom_sdpa.default else 2] = start_pos
            node.args = tuple(args)
    graph_module.recompile()
    return start_pos
