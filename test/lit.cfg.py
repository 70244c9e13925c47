# -*- Python -*-
# lit configuration for accel (see upstream mlir/examples/standalone).

import os
import shutil
import subprocess
import sys

import lit.formats
import lit.util
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "ACCEL"
# The test format (utils/accel_lit.py): a module, so that lit's workers can
# unpickle it.
sys.path.insert(0, os.path.join(config.accel_src_root, "utils"))
import accel_lit

# LIT_USE_INTERNAL_SHELL=0 runs every test in bash, as lit's default does.
use_internal_shell = lit.util.pythonize_bool(
    os.environ.get("LIT_USE_INTERNAL_SHELL", "1"))
config.test_format = accel_lit.AccelShTest(execute_external=not use_internal_shell)
# bash runs the tests that say REQUIRES: shell.
if shutil.which("bash"):
    config.available_features.add("shell")
config.suffixes = [".mlir", ".test", ".json"]
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "Inputs"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.accel_obj_root, "test")

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%shlibext", config.llvm_shlib_ext))
config.substitutions.append(("%accel_src", config.accel_src_root))
config.substitutions.append(("%accel_libs", config.accel_lib_dir))

def resolve_python(candidate):
    """The executable `candidate` runs as (sys.executable), or None."""
    try:
        out = subprocess.run([candidate, "-c", "import sys; print(sys.executable)"],
                             check=True, capture_output=True, text=True).stdout.strip()
        return out or candidate
    except (OSError, subprocess.CalledProcessError):
        return None

# %python is the interpreter itself, not a launcher: CMake may have found a
# pyenv shim (a bash script that starts a dozen more processes, ~80 ms a
# call), and the suite starts Python about 150 times.
config.python_executable = resolve_python(config.python_executable) or config.python_executable

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.accel_tools_dir, append_path=True)

tool_dirs = [config.accel_tools_dir, config.llvm_tools_dir]
mlir_opt = ToolSubst("mlir-opt", unresolved="ignore")

# ASan + UBSan builds (ACCEL_SANITIZE=ON): accel's tools carry the runtime,
# but Debian's stock mlir-opt does not, so it gets the ASan runtime (which
# holds UBSan's too) preloaded to load the instrumented AccelPlugin.so.
# UBSan reports come with a stack trace.
# %no_leak_check: for a command whose leak is by design (a pass crashed on
# purpose and LLVM's crash recovery unwound past its frames).
no_leak_check = ""
# `REQUIRES: long`: tests that take tens of seconds, run by check-accel-long
# (lit --param accel_long=1) and CI, not by check-accel. Inside a test,
# `%if long %{ ... %} %else %{ ... %}` keeps the costly cases of a RUN line
# (a second of CPU or more each) for check-accel-long and a smaller set
# for check-accel (issue 34: check-accel within 60 s on 2 cores).
if lit_config.params.get("accel_long", "0") == "1":
    config.available_features.add("long")
# %fdo_iterations: the iteration limit of `accel-replay fdo` (and of
# bench/fuzz_fdo.py, which passes it on) in tests whose subject is not how
# far the loop gets: test/EndToEnd (results equal NumPy's and fdo keeps
# them bit for bit), the loop shapes of accel-gen and the fuzz driver.
# check-accel runs two optimized iterations; check-accel-long (CI) runs the
# loop to its default limit.
config.substitutions.append(
    ("%fdo_iterations",
     "" if "long" in config.available_features else "--iterations=2"))
# cmake and ninja on PATH: test/Install builds a consumer of the package.
if shutil.which("cmake") and shutil.which("ninja"):
    config.available_features.add("cmake")
# Slurm's daemons and client and MUNGE (utils/install-deps.sh --slurm) on
# PATH or in /usr/sbin: test/Slurm runs the sweep recipe on a private
# single-node cluster. CI passes accel_require_slurm=1 (.ci/run), so that
# a machine without them fails the run instead of skipping the test.
slurm_path = os.pathsep.join([os.environ.get("PATH", ""), "/usr/sbin", "/sbin"])
slurm_tools = ["slurmctld", "slurmd", "sbatch", "squeue", "sinfo", "scontrol",
               "scancel", "munged"]
missing_slurm = [t for t in slurm_tools if not shutil.which(t, path=slurm_path)]
if not missing_slurm and os.geteuid() == 0:
    config.available_features.add("slurm")
elif lit_config.params.get("accel_require_slurm", "0") == "1":
    lit_config.fatal(
        "accel_require_slurm=1, but the Slurm test cannot run: %s" %
        ("%s missing (bash utils/install-deps.sh --slurm)" %
         ", ".join(missing_slurm) if missing_slurm else
         "the tests do not run as root (the test starts Slurm's daemons)"))
if config.accel_sanitize.upper() in ("ON", "TRUE", "YES", "1"):
    config.available_features.add("sanitize")
    # allow_user_poisoning=0: LLVM's BumpPtrAllocator poisons and unpoisons
    # its slabs from inline header code, which is instrumented in accel's
    # objects but not in the stock libMLIR.so; a slab one side poisoned and
    # the other allocates from reads as use-after-poison (an MLIR attribute
    # uniqued by accel code, then one uniqued by libMLIR). Ordinary heap
    # checks are unaffected.
    config.environment["ASAN_OPTIONS"] = "allow_user_poisoning=0"
    no_leak_check = "env ASAN_OPTIONS=detect_leaks=0:allow_user_poisoning=0"
    config.environment["UBSAN_OPTIONS"] = "print_stacktrace=1"
    found = lit.util.which("mlir-opt", os.pathsep.join(tool_dirs))
    if found and config.accel_asan_runtime:
        mlir_opt = ToolSubst(
            "mlir-opt",
            command="env LD_PRELOAD=%s %s" % (config.accel_asan_runtime, found),
        )

config.substitutions.append(("%no_leak_check", no_leak_check))

# %limit_memory: caps the address space of the rest of the test's commands
# at about 4 GB, so that a regression that reads an endless input (/dev/zero,
# a pipe) aborts quickly instead of swapping (test/Support/inputs-*.test).
# Not under ASan, whose shadow memory needs terabytes of address space.
if "sanitize" in config.available_features:
    config.substitutions.append(("%limit_memory", "true"))
else:
    config.substitutions.append(("%limit_memory", "ulimit -v 4000000"))

tools = [
    "accel-opt",
    "accel-replay",
    "accel-translate",
    "accel-gen",
    mlir_opt,
]
llvm_config.add_tool_substitutions(tools, tool_dirs)

# A Python with NumPy for the end-to-end references (Debian's python3-numpy,
# which utils/install-deps.sh installs, serves /usr/bin/python3; a
# virtualenv's python may lack it). Tests that need it say REQUIRES: numpy.

def find_numpy_python():
    for candidate in [config.python_executable, "/usr/bin/python3",
                      shutil.which("python3")]:
        if not candidate:
            continue
        try:
            subprocess.run([candidate, "-c", "import numpy"], check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            return resolve_python(candidate) or candidate
        except (OSError, subprocess.CalledProcessError):
            pass
    return None

numpy_python = find_numpy_python()
if numpy_python:
    config.available_features.add("numpy")
    config.substitutions.append(("%numpy_python", numpy_python))
# test/EndToEnd/Inputs/reference.py's cache (reference_cache.py): each
# program's .npy inputs and NumPy's outputs for them, written once per
# version of the script, so that `inputs` and a `check` within the
# tolerance need no NumPy start (about 0.3 s each, 35 in check-accel).
config.environment["ACCEL_REFERENCE_CACHE"] = os.path.join(
    config.test_exec_root, "EndToEnd", "Output", "reference-cache")

# %python runs the suite's stdlib-only scripts (about 180 starts): the
# Python with NumPy when there is one, so that the suite uses one
# interpreter, else CMake's. On the CI machine that is Debian's python3
# (built with PGO: 33 ms and 990 page faults a start) rather than a pyenv
# build (70 ms and 1,930 faults).
# It replaces use_default_substitutions' %python (lit's own interpreter).
config.substitutions = [s for s in config.substitutions if s[0] != "%python"]
config.substitutions.append(("%python", numpy_python or config.python_executable))

# A Python with matplotlib, found as accel-replay's findPlotPython finds one
# ($ACCEL_PYTHON, Debian's /usr/bin/python3, the python3 on PATH): tests that
# run the plot scripts themselves say REQUIRES: matplotlib and use
# %plot_python.
def find_matplotlib_python():
    for candidate in [os.environ.get("ACCEL_PYTHON"), "/usr/bin/python3",
                      shutil.which("python3")]:
        if not candidate:
            continue
        try:
            subprocess.run([candidate, "-c", "import matplotlib"], check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            return resolve_python(candidate) or candidate
        except (OSError, subprocess.CalledProcessError):
            pass
    return None

plot_python = find_matplotlib_python()
if plot_python:
    config.available_features.add("matplotlib")
    config.substitutions.append(("%plot_python", plot_python))
