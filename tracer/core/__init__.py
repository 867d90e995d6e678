"""The IR core: dtypes and tensor types, the typed IR, the op registry, printer,
parser, verifier and interpreter. It imports nothing above it.
"""
