"""Benchmarks: `python bench/run.py` (or `make bench`)."""
