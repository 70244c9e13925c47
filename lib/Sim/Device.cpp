//===- Device.cpp - The device and its step-debugger API ------------------===//

#include "accel/Sim/Device.h"

#include "llvm/ADT/StringExtras.h"

using namespace accel;
using namespace accel::sim;

Device::Device(const MachineConfig &config, const isa::Program &program,
               unsigned chip) {
  if (config.chips > 1) {
    system = std::make_unique<System>(config, program);
    simulator = &system->getChip(chip < config.chips ? chip : 0);
  } else {
    alone = std::make_unique<Simulator>(config, program);
    simulator = alone.get();
  }
  for (const isa::Inst &inst : program.code) {
    auto bytes = isa::encode(inst);
    codeImage.insert(codeImage.end(), bytes.begin(), bytes.end());
  }
}

llvm::Error Device::stepChip() {
  if (!system)
    return simulator->step();
  if (simulator->isHalted())
    return llvm::createStringError("chip %u has halted", simulator->getChip());
  uint64_t before = simulator->getInstructionCount();
  while (simulator->getInstructionCount() == before) {
    bool done = false;
    if (llvm::Error e = system->step(done))
      return e;
    if (done)
      return llvm::createStringError("every chip has halted");
  }
  return llvm::Error::success();
}

void Device::setBreakpoint(uint32_t pc, uint64_t hit) {
  breakpoint = Breakpoint{pc, hit == 0 ? 1 : hit, 0};
}

llvm::Error Device::continueToBreakpoint(uint64_t maxInstructions,
                                         ProgressFn progress) {
  uint64_t executed = 0;
  if (atBreakpoint && !isHalted()) {
    atBreakpoint = false;
    if (llvm::Error e = stepChip())
      return e;
    ++executed;
  }
  while (true) {
    if (breakpoint && getPc() == breakpoint->pc &&
        ++breakpoint->seen >= breakpoint->hit) {
      atBreakpoint = true;
      return llvm::Error::success();
    }
    if (isHalted()) {
      if (!breakpoint)
        return llvm::Error::success();
      return llvm::createStringError(
          "the program halted after %llu instructions; pc %u was reached "
          "%llu of %llu times",
          (unsigned long long)getInstructionCount(), breakpoint->pc,
          (unsigned long long)breakpoint->seen,
          (unsigned long long)breakpoint->hit);
    }
    if (executed++ >= maxInstructions)
      return llvm::createStringError(
          "no breakpoint hit within %llu instructions",
          (unsigned long long)maxInstructions);
    if (progress && executed % kProgressInterval == 0)
      progress(getInstructionCount(), simulator->getLastIssueCycle());
    if (llvm::Error e = stepChip())
      return e;
  }
}

llvm::Expected<isa::Inst> Device::readInstruction(uint32_t pc) const {
  uint64_t at = uint64_t(pc) * isa::kInstBytes;
  if (at + isa::kInstBytes > codeImage.size())
    return llvm::createStringError("pc %u is outside the code (%zu "
                                   "instructions)",
                                   pc, codeImage.size() / isa::kInstBytes);
  return isa::decode(llvm::ArrayRef<uint8_t>(codeImage).slice(
      at, isa::kInstBytes));
}

llvm::Expected<uint32_t> sim::resolveBreakpoint(const isa::Program &program,
                                                llvm::StringRef spec) {
  auto [kind, rest] = spec.split(':');
  auto bad = [&](const llvm::Twine &why) {
    return llvm::createStringError(
        (llvm::Twine("bad breakpoint '") + spec + "': " + why).str());
  };
  if (kind == "pc") {
    uint32_t pc;
    if (rest.getAsInteger(10, pc))
      return bad("expected pc:N");
    if (pc >= program.code.size())
      return bad("the program has " + llvm::Twine(program.code.size()) +
                 " instructions");
    return pc;
  }
  if (kind == "op") {
    uint32_t id;
    if (rest.getAsInteger(10, id) || id == 0)
      return bad("expected op:ID with a positive op id");
    for (size_t pc = 0; pc < program.origins.size(); ++pc)
      if (program.origins[pc].opId == id)
        return uint32_t(pc);
    return bad("no instruction comes from op id " + llvm::Twine(id));
  }
  if (kind == "loc") {
    auto [file, lineText] = rest.rsplit(':');
    unsigned line;
    if (file.empty() || lineText.getAsInteger(10, line))
      return bad("expected loc:FILE:LINE");
    for (size_t pc = 0; pc < program.origins.size(); ++pc) {
      llvm::StringRef loc = program.origins[pc].loc;
      // loc is "path:line:col".
      auto [pathAndLine, col] = loc.rsplit(':');
      auto [path, l] = pathAndLine.rsplit(':');
      unsigned locLine;
      // The file must match whole path components.
      bool fileMatches =
          path == file || (path.ends_with(file) &&
                           path[path.size() - file.size() - 1] == '/');
      if (!l.getAsInteger(10, locLine) && locLine == line && fileMatches)
        return uint32_t(pc);
    }
    return bad("no instruction comes from line " + llvm::Twine(line) +
               " of a file ending in '" + file + "'");
  }
  return bad("expected pc:N, op:ID or loc:FILE:LINE");
}
