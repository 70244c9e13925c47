# accel_use_static_llvm(): link MLIR's and LLVM's static libraries only.
#
# Debian's MLIR static libraries name the imported target LLVM (libLLVM.so)
# in their link interface, so a program built from them would carry LLVM
# twice: LLVMSupport from the static libraries accel's own code links, and
# libLLVM.so behind MLIR (two copies of every llvm::cl option: "registered
# more than once" at start-up). This replaces LLVM in the link interface of
# every imported MLIR target with LLVM's static component libraries, and
# turns LLVM_LINK_LLVM_DYLIB off so add_llvm_library/executable's
# LINK_COMPONENTS name the static libraries too. Call it in the directory
# that called find_package(MLIR), after it. Used by accel's build
# (ACCEL_LINK_STATIC_MLIR) and by the installed package (AccelConfig.cmake).
function(accel_use_static_llvm)
  # LLVMSupport's link interface names zstd::libzstd_shared (Debian's
  # libzstd-dev); LLVMConfig.cmake looks for it only when it is installed.
  if(NOT TARGET zstd::libzstd_shared)
    find_package(zstd REQUIRED)
  endif()
  set(LLVM_LINK_LLVM_DYLIB OFF PARENT_SCOPE)
  # The parts of LLVM that the MLIR libraries accel uses call into.
  set(static_llvm LLVMSupport LLVMCore LLVMBinaryFormat)
  get_property(imported DIRECTORY PROPERTY IMPORTED_TARGETS)
  foreach(target IN LISTS imported)
    if(NOT target MATCHES "^MLIR")
      continue()
    endif()
    get_target_property(libs ${target} INTERFACE_LINK_LIBRARIES)
    if(libs AND "LLVM" IN_LIST libs)
      list(TRANSFORM libs REPLACE "^LLVM$" "${static_llvm}")
      set_target_properties(${target} PROPERTIES INTERFACE_LINK_LIBRARIES "${libs}")
    endif()
  endforeach()
endfunction()
