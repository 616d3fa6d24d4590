"""The calibration's kernels (calibrate.ea): where the file is compiled from, and
the kernel loaded for this machine, for the calibration (calibrate.py) and the
probe of the core's state (core_state.py)."""
from __future__ import annotations

import os
import shutil
from pathlib import Path

from ..options import Options

SOURCE = Path(__file__).with_name("calibrate.ea")


def source_path() -> Path:
    """SOURCE, or a copy of it beside the bandwidth kernel's cache when the package's folder is
    not writable (the loader caches beside the source)."""
    from .bandwidth import _source as beside_cache
    if os.access(SOURCE.parent, os.W_OK):
        return SOURCE
    copy = beside_cache().parent / SOURCE.name
    if not copy.exists() or copy.read_bytes() != SOURCE.read_bytes():
        shutil.copyfile(SOURCE, copy)
    return copy


def load_kernel(options: Options):
    from ..loader import load
    return load(source_path(), target=options.target_cpu, opt_level=options.opt_level, avx512=options.avx512)
