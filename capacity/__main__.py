"""`python -m capacity ...`"""

import sys

from capacity.cli import main

code = main()
# The process ends here. Skip the interpreter's teardown, which frees every object one by one (0.15-0.3 s of
# CPU after an S1 run, most of what it built), once the output is flushed and the exit handlers have run.
try:
    sys.stdout.flush()
    sys.stderr.flush()
except (OSError, ValueError):  # a closed pipe or stream: the ordinary exit reports it as before
    sys.exit(code)
import atexit  # noqa: E402
import os  # noqa: E402

atexit._run_exitfuncs()
os._exit(code)
