"""LLVM IR building blocks shared by the lowerings and the native entry:
LLVM types of autograph dtypes, loops, integer helpers, vectorisable math.
"""
