"""The ``auditor`` console command and ``python -m auditor``: the process's start-up.

Start-up imports pandas, numba, pydantic and the rule specs: about a million objects, none
of them garbage. The garbage collector is off while they are made (it would walk them again
and again as they pile up: 0.15-0.2 s of every run, a tenth of a small audit); each command
turns it back on once it has loaded what it needs (see ``cli._collector`` and
``cli._start_up_frozen``). While they import, the SHA-256 of the log files named on the
command line begins on the other core (``logs.files.begin``). Before that thread starts, the
C library's allocator is set for the audit (``allocator.keep_freed_memory``: one heap for all
threads); Arrow is told to allocate from that heap before it is loaded
(``allocator.arrow_from_the_heap``), and numpy's OpenBLAS to keep to one thread.
"""

import gc
import os
import sys


def main() -> None:
    gc.disable()
    from .allocator import arrow_from_the_heap, keep_freed_memory  # the standard library only, as is logs.files
    from .logs.files import begin

    keep_freed_memory()
    arrow_from_the_heap()
    # No linear algebra here: numpy's OpenBLAS would start a thread per core when it loads,
    # which spins for a while (0.1 s of a core, taken from the hashing thread at start-up).
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    begin(sys.argv[1:])
    # The command ends the process itself (``cli.main``). Stopped before that (Ctrl-C while
    # the imports run, or a broken installation), the interpreter's exit would wait for the
    # hashing thread to finish the file it reads, seconds for a log of gigabytes.
    try:
        from .cli import main as run

        run()
    except KeyboardInterrupt:
        os._exit(130)
    except BaseException:
        sys.excepthook(*sys.exc_info())
        sys.stderr.flush()
        os._exit(1)


if __name__ == "__main__":
    main()
