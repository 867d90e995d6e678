"""The runtime: eager tensors, polymorphic functions and the compiled-code cache.

Kept free of imports so that importing one runtime module stays cheap.
"""
