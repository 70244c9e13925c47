# -*- Python -*-
# Runs the GoogleTest binaries under lit (as upstream MLIR's unittests do).
import os
import lit.formats

config.name = "ACCEL-Unit"
config.suffixes = []
config.test_exec_root = os.path.join(config.accel_obj_root, "unittests")
config.test_source_root = config.test_exec_root
config.test_format = lit.formats.GoogleTest(".", "Tests")

# ASan + UBSan builds (ACCEL_SANITIZE=ON): UBSan reports come with a stack
# trace.
# allow_user_poisoning=0: see test/lit.cfg.py (LLVM's allocator poisoning
# from instrumented headers against the uninstrumented libMLIR.so).
if config.accel_sanitize.upper() in ("ON", "TRUE", "YES", "1"):
    config.environment["UBSAN_OPTIONS"] = "print_stacktrace=1"
    config.environment["ASAN_OPTIONS"] = "allow_user_poisoning=0"
