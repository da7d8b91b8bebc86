"""What the figures were measured on."""

from __future__ import annotations

import datetime
import os
import platform
import sys
from importlib import metadata


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.lower().startswith(("model name", "hardware", "cpu model")):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown"


def _version(dist: str) -> str | None:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def machine_info() -> dict:
    import numpy

    try:
        affinity = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        affinity = None
    try:
        load = [round(x, 2) for x in os.getloadavg()]
    except (AttributeError, OSError):
        load = None
    return {
        "cpu": cpu_model(),
        "cores": os.cpu_count(),
        "usable_cores": affinity,
        "platform": f"{platform.system()} {platform.release()} {platform.machine()}",
        "python": platform.python_version(),
        "implementation": sys.implementation.name,
        "numpy": numpy.__version__,
        "pettingzoo": _version("pettingzoo"),
        "kitchen_arena": _version("kitchen-arena"),
        "load_average": load,
        "started_at": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
    }


def machine_line(info: dict) -> str:
    cores = f"{info['cores']} cores" + (f" ({info['usable_cores']} usable)" if info["usable_cores"] not in (None, info["cores"]) else "")
    load = f", load average {'/'.join(str(x) for x in info['load_average'])} at start" if info["load_average"] else ""
    return (f"Machine: {info['cpu']}, {cores}, {info['platform']}; Python {info['python']}, "
            f"numpy {info['numpy']}, pettingzoo {info['pettingzoo']}{load}; {info['started_at']}")
