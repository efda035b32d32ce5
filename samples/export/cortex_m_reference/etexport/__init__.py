"""etkit's torch 1.13 exporter, kept for the one sample upstream's tools
cannot make on this machine: the Cortex-M int8 ResNet (upstream's cortex_m
passes import its Arm backend, which needs a package outside our lock; see
samples/README.md). PyTorch module -> .pte, .bpte, ETRecord.

Uses only Debian's python3-torch 1.13 (make_fx), python3-numpy and the flatc
compiler with etkit's own schemas. The stages are one module each:
capture (trace + source metadata), edge_ops (ATen -> edge out-variant
kernels), cortex_m (the int8 lowering and its CMSIS-NN reference
arithmetic), memory_plan, program (flatbuffer JSON + eh00 segments), bundle,
etrecord.
"""
