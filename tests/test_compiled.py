"""How compiled code is loaded (``auditor.compiled``)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from auditor import compiled

ROOT = Path(__file__).resolve().parent.parent

KERNELS = '''
import numpy as np
from auditor.compiled import kernel


@kernel
def squares(n):
    out = np.empty(n, np.int64)  # an array the kernel allocates: numba's runtime
    for i in range(n):
        out[i] = i * i
    return out
'''

CALL = '''
import sys
import numpy as np
from numba import njit
sys.path.insert(0, sys.argv[1])
from kernels import squares
assert squares(5).tolist() == [0, 1, 4, 9, 16]
# (numba.np.arrayobj: the module of np.empty's implementation, which the kernel's machine code holds)
print(any(m in sys.modules for m in ("numba.np.arraymath", "numba.np.arrayobj")))
# A function that no cache holds, compiled after the cached kernel was loaded.
assert njit(lambda a: np.cumsum(a))(np.arange(4)).tolist() == [0, 1, 3, 6]
'''


@pytest.mark.skipif(not compiled._MACHINE_CODE, reason="a numba whose cache loading is not read (see compiled.py)")
def test_cached_code_is_loaded_without_numbas_implementations(tmp_path):
    """Machine code read from the cache runs without numba importing the implementations it
    compiles from (a hundred modules, 0.11-0.17 s at every start), nor those of its own
    functions that the machine code holds, for their environments (``_helpers_unimported``);
    code not in the cache is still compiled, after it as before."""
    (tmp_path / "kernels.py").write_text(KERNELS)
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_")}  # the cache beside the module
    loaded = [subprocess.run([sys.executable, "-c", CALL, str(tmp_path)], capture_output=True, text=True,
                             check=True, timeout=300, cwd=ROOT, env=env).stdout.strip() for _ in range(2)]
    assert any((tmp_path / "__pycache__").glob("kernels.squares-*.nbi"))
    assert loaded == ["True", "False"]  # compiled the first time (numba's implementations), read the second
