"""``python -m climbrl``: the ``climbrl`` command."""

import sys

from climbrl.cli import main

if __name__ == "__main__":
    sys.exit(main())
