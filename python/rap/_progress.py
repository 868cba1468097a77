"""A small progress bar on stderr for long work (build_index, update_index, rewrite)."""

from __future__ import annotations

import sys
import time
from typing import Callable, Optional, Union

ProgressArg = Union[bool, None, Callable[[int, int], object]]


def make_progress(progress: ProgressArg, what: str) -> Optional[Callable[[int, int], None]]:
    """The callback for the core: None when off (progress=False, or None and stderr is not a terminal)."""
    if progress is False:
        return None
    if callable(progress):
        return lambda done, total: (progress(done, total), None)[1]
    if progress is None and not (hasattr(sys.stderr, "isatty") and sys.stderr.isatty()):
        return None
    return _Bar(what)


class _Bar:
    def __init__(self, what: str) -> None:
        self.what = what
        self.start = time.monotonic()

    def __call__(self, done: int, total: int) -> None:
        elapsed = time.monotonic() - self.start
        if total >= 0:
            width = 30
            filled = width * done // total if total else width
            bar = "#" * filled + "-" * (width - filled)
            line = f"\r{self.what} [{bar}] {done}/{total} files {elapsed:.1f}s"
        else:
            line = f"\rwritten files {done} {elapsed:.1f}s"
        sys.stderr.write(line)
        if total >= 0 and done == total:
            sys.stderr.write("\n")
        sys.stderr.flush()
