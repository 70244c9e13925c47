//===- fuzz-image.cpp - libFuzzer target: program images (ACCELBIN) -------===//
//
// isa::Program::fromImage on the input (docs/isa.md, "Binary image
// format"), then what `accel-translate --accel-image-to-asm` prints (the
// listing), an image round trip and, when its buffers fit the machine
// (Program::checkBuffersFit), a run of the program on the simulator
// bounded to kMaxInstructions and to fuzz::kMaxWork (FuzzBudget.h), on a
// small machine. Any error or simulated fault is a clean rejection; a
// crash, a sanitizer report or an escaping exception is a bug.
//
//===----------------------------------------------------------------------===//

#include "FuzzBudget.h"

#include "accel/ISA/Isa.h"
#include "accel/Sim/MachineConfig.h"
#include "accel/Sim/Simulator.h"

#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>

using namespace accel;

namespace {
constexpr uint64_t kMaxInstructions = 4000;

/// The default machine with 1 MiB of VMEM and 64 MiB of HBM: a run
/// allocates VMEM in full, and a small one keeps each input fast.
const sim::MachineConfig &getConfig() {
  static const sim::MachineConfig config = [] {
    auto c = sim::MachineConfig::fromJson(
        R"({"vmem": {"bytes": 1048576, "blocks": 16, "pages_per_block": 64,
                     "page_bytes": 1024},
            "hbm": {"bytes": 67108864}})",
        "fuzz-image");
    if (!c)
      llvm::report_fatal_error(c.takeError());
    return std::move(*c);
  }();
  return config;
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  auto program = isa::Program::fromImage(llvm::ArrayRef<uint8_t>(data, size));
  if (!program) {
    llvm::consumeError(program.takeError());
    return 0;
  }
  llvm::raw_null_ostream null;
  program->printListing(null);
  // Round trip: the image of what was read reads back the same.
  std::vector<uint8_t> image = program->toImage();
  auto again = isa::Program::fromImage(image);
  if (!again)
    llvm::report_fatal_error("fromImage rejects toImage's output: " +
                             llvm::Twine(llvm::toString(again.takeError())));
  if (again->toImage() != image)
    llvm::report_fatal_error("toImage(fromImage(toImage(p))) differs");

  // As a trace's replay does (Trace::validate): a program whose buffers do
  // not fit the machine is not run.
  const sim::MachineConfig &config = getConfig();
  if (llvm::Error e =
          program->checkBuffersFit(config.vmemBytes, config.hbmBytes)) {
    llvm::consumeError(std::move(e));
    return 0;
  }
  sim::Simulator simulator(config, *program);
  if (fuzz::runBounded(simulator, *program, kMaxInstructions))
    (void)simulator.finish();
  return 0;
}
