"""Load time of one disk-cached kernel object: the object loader (codegen/jit/objload.py,
no LLVM) against the ORC LLJIT link it falls back to, measured in the same process
(K4's and K9's objects; load + free; medians and minimums of `--repeat` loads).

    python bench/objload.py [--repeat 400]
"""
from __future__ import annotations

import argparse
import gc
import os
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)


def _objects():
    import numpy as np
    from autograph.codegen.jit import compile as cg_compile
    from examples import kernels as K

    seen = []
    original = cg_compile.compile_ir

    def spy(ir_text, module_name, symbol, emit_object=False, exports=()):
        jm = original(ir_text, module_name, symbol, emit_object=True, exports=exports)
        seen.append((symbol.rsplit("_", 1)[0], jm.object_code, symbol,
                     [e for e in exports if jm.address_of(e)]))
        return jm

    cg_compile.compile_ir = spy
    x = np.random.default_rng(0).standard_normal(1000)
    K.branchy_sum(x)
    K.softmax(x.astype(np.float32).reshape(10, 100))
    cg_compile.compile_ir = original
    return seen


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=400)
    args = parser.parse_args(argv)
    os.environ["AUTOGRAPH_DISABLE_CACHE"] = "1"
    from autograph.codegen.jit import engine

    print(f"per-object load + free, µs (median / min of {args.repeat})")
    for name, obj, symbol, exports in _objects():
        row = []
        for use in (True, False):
            engine.USE_OBJECT_LOADER = use
            times = []
            for _ in range(args.repeat):
                t0 = time.perf_counter()
                lib = engine.load_object(obj, symbol, exports)
                assert lib is not None and lib.loader == ("objload" if use else "lljit")
                del lib
                engine.release_pending()
                times.append(time.perf_counter() - t0)
            gc.collect()
            row.append(f"{'objload' if use else 'lljit':>8} {statistics.median(times) * 1e6:7.1f} / "
                       f"{min(times) * 1e6:6.1f}")
        print(f"  {name:<28} {len(obj):6d} bytes  " + "   ".join(row))
    return 0


if __name__ == "__main__":
    sys.exit(main())
