//===- fuzz-config.cpp - libFuzzer target: machine config JSON ------------===//
//
// sim::MachineConfig::fromJson on the input as an override document
// (docs/config.md): any input is either a config or one error; a crash, a
// sanitizer report or an escaping exception is a bug. A config it accepts
// must also give the same config again from its own merged JSON text.
//
//===----------------------------------------------------------------------===//

#include "accel/Sim/MachineConfig.h"

#include "llvm/Support/ErrorHandling.h"

#include <cstdint>

using namespace accel;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  auto config = sim::MachineConfig::fromJson(text, "fuzz");
  if (!config) {
    llvm::consumeError(config.takeError());
    return 0;
  }
  (void)config->hash();
  // The merged text is itself a valid override giving the same config.
  auto again = sim::MachineConfig::fromJson(config->jsonText, "fuzz-again");
  if (!again)
    llvm::report_fatal_error("fromJson rejects its own merged text: " +
                             llvm::Twine(llvm::toString(again.takeError())));
  if (again->jsonText != config->jsonText)
    llvm::report_fatal_error("fromJson's merged text is not a fixed point");
  return 0;
}
