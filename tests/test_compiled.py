"""How compiled code is loaded (``auditor.compiled``)."""

import subprocess
import sys

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
print("numba.np.arraymath" in sys.modules)
# A kernel that no cache holds, compiled after the cached one was loaded.
assert njit(lambda a: np.cumsum(a))(np.arange(4)).tolist() == [0, 1, 3, 6]
'''


def test_cached_code_is_loaded_without_numbas_implementations(tmp_path):
    """Machine code read from the cache runs without numba importing the implementations it
    compiles from (a hundred modules, 0.17-0.3 s at every start); code not in the cache is
    still compiled, after it as before."""
    (tmp_path / "kernels.py").write_text(KERNELS)
    loaded = [subprocess.run([sys.executable, "-c", CALL, str(tmp_path)], capture_output=True, text=True,
                             check=True, timeout=300).stdout.strip() for _ in range(2)]
    assert any((tmp_path / "__pycache__").glob("kernels.squares-*.nbi"))
    assert loaded == ["True", "False"]  # compiled the first time (numba's implementations), read the second
