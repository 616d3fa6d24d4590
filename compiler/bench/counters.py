"""Whether the OS lets this process count its own core cycles with
perf_event_open (Linux). Cycles per iteration are taken from time and the
measured clock (frequency.py) either way; this says which source a report
could have used, and why not, so a report never claims counters it lacked."""
from __future__ import annotations

import ctypes
import os
import platform
import struct
from functools import cache
from pathlib import Path

_SYSCALL = {"x86_64": 298, "aarch64": 241}
_ATTR_SIZE = 128
_DISABLED, _EXCLUDE_KERNEL, _EXCLUDE_HV = 1 << 0, 1 << 5, 1 << 6


@cache
def cycle_counter_status() -> tuple[bool, str]:
    """(usable, why): whether a user-space cycle counter opens here."""
    paranoid_file = Path("/proc/sys/kernel/perf_event_paranoid")
    if not paranoid_file.exists():
        return False, "no perf_event_open on this OS"
    try:
        paranoid = int(paranoid_file.read_text().strip())
    except (OSError, ValueError):
        return False, "perf_event_paranoid is unreadable"
    if paranoid > 2:
        return False, f"perf_event_paranoid is {paranoid} (counting needs 2 or less)"
    number = _SYSCALL.get(platform.machine().lower())
    if number is None:
        return False, f"perf_event_open is not wired up for {platform.machine()}"
    attr = bytearray(_ATTR_SIZE)
    struct.pack_into("IIQ", attr, 0, 0, _ATTR_SIZE, 0)  # PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES
    struct.pack_into("Q", attr, 40, _DISABLED | _EXCLUDE_KERNEL | _EXCLUDE_HV)
    libc = ctypes.CDLL(None, use_errno=True)
    fd = libc.syscall(number, (ctypes.c_char * _ATTR_SIZE).from_buffer(attr), 0, -1, -1, 0)
    if fd < 0:
        err = ctypes.get_errno()
        hint = " (no hardware cycle counter: a virtual machine often has none)" if err == 2 else ""
        return False, f"perf_event_open failed: {os.strerror(err)}{hint}"
    os.close(fd)
    return True, f"perf_event_open works (perf_event_paranoid {paranoid})"


def clock_source(clock: str = "measured by a dependent-add chain") -> str:
    """How a report's cycles were obtained, for its header."""
    usable, why = cycle_counter_status()
    counters = "hardware counters would be available but are not used" if usable else \
        f"no hardware counters: {why}"
    return f"cycles = time x clock {clock}; {counters}"
