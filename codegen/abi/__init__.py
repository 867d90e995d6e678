"""Data-only layouts shared by native code and Python: the kernel's argument
slots, string buffers, and the native entry's binding table. No llvmlite.
"""
