"""How the C allocator serves the audit's arrays (glibc only; elsewhere nothing changes).

An audit allocates and frees arrays of a few megabytes per chunk, thousands of times. By
default glibc maps each array of more than about a megabyte afresh from the kernel, unmaps
it when it is freed, and trims its heap as it shrinks: the next chunk's arrays then touch
new pages, and each new page is a page fault. On the virtual machines we measure on, a fault
costs about 5 µs, and a 1M-round audit took 250,000-300,000 of them (1.2-1.8 s of system
time, against 2-2.5 s for the whole pandas read of the same log). Serving arrays of up to
32 MB from the heap and keeping what is freed for the next chunk halves the faults. The
peak of memory is the same working set; what is freed is kept until the process ends.

All threads allocate from one heap (one arena). By default glibc gives a thread that
allocates while another does a heap of its own; with freed memory kept, the reader's heap and
the auditing thread's each grew to hold the typing of a chunk, since both threads type
chunks (``engine._read_ahead``): a Pot Luck audit peaked higher (1M rounds, five runs each:
913-962 against 822-844 MB; 10M rounds, two each: 1,392-1,399 against 1,364-1,365 MB), in
the same time. (With one thread typing, one heap had fragmented more than two over a 10M-round
log.) The setting must come before a second thread allocates: start-up makes it first
(``auditor.__main__``).

Arrow's buffers come from the C library's heap too (``arrow_from_the_heap``): its own
allocator, mimalloc, keeps what it frees apart from what numpy frees. A 1M-round audit's peak
is then 15-40 MB lower on CSV, and on Parquet, whose reader holds most of its memory in Arrow's
buffers, about 40 MB lower (Pot Luck, on the code of 823cd95: 947-948 against 981-989 MB),
in the same time.
"""

from __future__ import annotations

import ctypes
import os

__all__ = ["keep_freed_memory", "arrow_from_the_heap", "release_freed_memory"]

# mallopt(3) parameters
_M_TRIM_THRESHOLD, _M_TOP_PAD, _M_MMAP_THRESHOLD, _M_ARENA_MAX = -1, -2, -3, -8


def keep_freed_memory() -> bool:
    """Tell glibc's allocator to serve arrays of up to 32 MB from its heap, to keep freed
    memory and to serve every thread from one heap (for this process, from now on). False
    where the C library is not glibc."""
    try:
        if not os.confstr("CS_GNU_LIBC_VERSION").startswith("glibc"):
            return False
        mallopt = ctypes.CDLL("libc.so.6").mallopt
    except (AttributeError, ValueError, OSError):
        return False
    settings = ((_M_MMAP_THRESHOLD, 32 << 20), (_M_TRIM_THRESHOLD, (1 << 31) - 1), (_M_TOP_PAD, 64 << 20),
                (_M_ARENA_MAX, 1))
    return all(mallopt(option, value) == 1 for option, value in settings)


def arrow_from_the_heap() -> None:
    """Arrow's default allocator made the C library's, unless the user chose one
    (``ARROW_DEFAULT_MEMORY_POOL``). Arrow reads the setting once, when it is first loaded:
    start-up calls this before anything imports pyarrow."""
    os.environ.setdefault("ARROW_DEFAULT_MEMORY_POOL", "system")



def release_freed_memory() -> None:
    """Give the system back what the heap holds freed (glibc's ``malloc_trim``; elsewhere
    nothing). ``keep_freed_memory`` keeps it for the next chunk while a log is read; once the
    reading is over it is no chunk's, and the reports are built beside it: their records are
    Python objects, in memory of the interpreter's own, not in the heap's free space. A 10M-round
    Triple Shot audit peaked at 1,533 MB as it built its report, the heap holding about 950 MB
    freed; given back first, its peak was the reading's, 1,452 MB. It takes a few milliseconds."""
    try:
        if os.confstr("CS_GNU_LIBC_VERSION").startswith("glibc"):
            ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (AttributeError, ValueError, OSError):
        pass
