//===- AccelPlugin.cpp - accel as a plugin for stock mlir-opt -------------===//
//
//   mlir-opt --load-dialect-plugin=lib/AccelPlugin.so \
//            --load-pass-plugin=lib/AccelPlugin.so \
//            --pass-pipeline='builtin.module(accel-assign-op-ids,...)'
//
// Stock mlir-opt parses its flags before it loads plugins, so the plugin's
// passes are named in --pass-pipeline, not as --accel-* flags.
//
//===----------------------------------------------------------------------===//

#include "accel/Conversion/Passes.h"
#include "accel/Frontend/Frontend.h"
#include "accel/Frontend/Passes.h"
#include "accel/InitAccel.h"

#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/Compiler.h"

extern "C" LLVM_ATTRIBUTE_WEAK mlir::DialectPluginLibraryInfo
mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "AccelDialect", LLVM_VERSION_STRING,
          [](mlir::DialectRegistry *registry) {
            accel::registerAccelDialects(*registry);
          }};
}

extern "C" LLVM_ATTRIBUTE_WEAK mlir::PassPluginLibraryInfo
mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "AccelPasses", LLVM_VERSION_STRING,
          []() {
            accel::registerAccelPasses();
            accel::registerAccelConversionPasses();
            accel::registerAccelFrontendPasses();
            accel::registerAccelFdoPipeline();
            accel::registerFrontendPipeline();
          }};
}
