"""bfloat16 without ml_dtypes: numpy has no bfloat16, so etkit hands
bfloat16 tensors over as uint16 arrays of the raw bits whose dtype carries
``{"etkit_dtype": "bfloat16"}`` as metadata, and takes uint16 arrays of raw
bits where a method expects bfloat16. float16 is numpy's own float16."""

import numpy as np

_BFLOAT16 = np.dtype("uint16", metadata={"etkit_dtype": "bfloat16"})


def is_bfloat16(array) -> bool:
    """Whether ``array`` holds bfloat16 bits as etkit returns them."""
    metadata = np.asarray(array).dtype.metadata
    return bool(metadata) and metadata.get("etkit_dtype") == "bfloat16"


def bfloat16_to_float32(bits) -> np.ndarray:
    """The float32 values of bfloat16 bits (exact: bfloat16 is float32's top half)."""
    bits = np.asarray(bits)
    if bits.dtype.kind != "u" or bits.dtype.itemsize != 2:
        raise TypeError(f"bfloat16 bits are uint16, not {bits.dtype}")
    return (bits.astype(np.uint32) << 16).view(np.float32)


def float32_to_bfloat16(values) -> np.ndarray:
    """bfloat16 bits of float32 values, rounded to nearest even (as PyTorch
    converts); NaN stays NaN."""
    values = np.ascontiguousarray(values, dtype=np.float32)
    bits = values.view(np.uint32)
    rounded = (bits + (np.uint32(0x7FFF) + ((bits >> 16) & 1))) >> 16
    rounded = np.where(np.isnan(values), (bits >> 16) | 0x40, rounded)
    return rounded.astype(np.uint16).view(_BFLOAT16)
