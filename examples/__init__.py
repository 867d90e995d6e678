"""Example programs: the benchmark kernels (`kernels`), the seed examples (`seeds`) and the demo."""
