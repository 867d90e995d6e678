"""The JIT and the caches: target machine and optimiser, compiling a graph to a
kernel, the disk cache of object code, and kernels per input rank.
"""
