"""The host a benchmark ran on, as the bench scripts write it into their
RESULTS files (bench/peer, bench/sweep, bench/fdo/pin_gap.py, speed.py)."""
import os
import platform


def cpu_model():
    """The CPU's model name (/proc/cpuinfo), else what platform knows."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def describe():
    """"N vCPU (MODEL), PLATFORM": one line for a RESULTS file."""
    return "%d vCPU (%s), %s" % (os.cpu_count() or 0, cpu_model(),
                                 platform.platform())
