# -*- Python -*-
# lit configuration for accel (see upstream mlir/examples/standalone).

import os

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "ACCEL"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test", ".json"]
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "Inputs"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.accel_obj_root, "test")

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%shlibext", config.llvm_shlib_ext))
config.substitutions.append(("%accel_src", config.accel_src_root))
config.substitutions.append(("%accel_libs", config.accel_lib_dir))
config.substitutions.append(("%python", config.python_executable))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.accel_tools_dir, append_path=True)

tool_dirs = [config.accel_tools_dir, config.llvm_tools_dir]
tools = [
    "accel-opt",
    "accel-replay",
    "accel-gen",
    ToolSubst("mlir-opt", unresolved="ignore"),
]
llvm_config.add_tool_substitutions(tools, tool_dirs)
