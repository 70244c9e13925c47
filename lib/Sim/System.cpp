//===- System.cpp - A system of chips joined by ICI links -----------------===//

#include "accel/Sim/System.h"

using namespace accel;
using namespace accel::sim;

System::System(const MachineConfig &config, const isa::Program &program,
               bool initHbm)
    : config(config), program(program), network(config) {
  chips.reserve(config.chips);
  for (unsigned c = 0; c < config.chips; ++c)
    chips.push_back(
        std::make_unique<Simulator>(config, program, initHbm, c, this));
}

llvm::Error System::checkRemoteAccess(const TileRef &tile, bool writes,
                                      uint64_t cycle, uint32_t fromChip) {
  return chips[tile.chip]->checkRemoteAccess(tile, writes, cycle, fromChip);
}

ExternalEvent &System::logEvent(ExternalEvent::Kind kind) {
  ExternalEvent &e = eventLog->events.emplace_back();
  e.kind = kind;
  e.index = chips[eventLog->chip]->getInstructionCount();
  return e;
}

RemoteAnswer &System::pendingAnswer() {
  if (!answer)
    answer.emplace();
  return *answer;
}

IciTransfer System::send(uint32_t fromChip, uint64_t cycle, uint64_t ready,
                         llvm::ArrayRef<unsigned> route, uint64_t bytes) {
  IciTransfer x = network.send(cycle, ready, route, bytes);
  if (eventLog && fromChip == eventLog->chip)
    pendingAnswer().transfer = x;
  return x;
}

HbmUnits System::reserveHbm(uint32_t fromChip, uint32_t chip, HbmUnits from,
                            HbmUnits length, HbmUnits now) {
  HbmUnits at = chips[chip]->getDmaEngine().reserveHbm(from, length, now);
  if (eventLog && fromChip == eventLog->chip) {
    pendingAnswer().hasPeerHbm = true;
    answer->peerHbmAt = at;
  } else if (eventLog && chip == eventLog->chip) {
    ExternalEvent &e = logEvent(ExternalEvent::Kind::HbmReserve);
    e.from = from;
    e.length = length;
    e.now = now;
  }
  return at;
}

void System::copy(uint32_t fromChip, Memory &own, const TileRef &src,
                  const TileRef &dst) {
  Memory &to = chips[dst.chip]->getMemory();
  if (src.chip == dst.chip)
    to.copyTile(src, dst);
  else
    to.copyTileFrom(chips[src.chip]->getMemory(), src, dst);
  if (!eventLog)
    return;
  uint32_t logged = eventLog->chip;
  // The simulator checked both tiles' bounds: reading them back cannot
  // fail.
  auto bytesOf = [&](std::vector<uint8_t> &out) {
    if (llvm::Error e = readTileBytes(to, dst, out))
      llvm::report_fatal_error(std::move(e));
  };
  if (fromChip == logged && src.chip != dst.chip) {
    RemoteAnswer &a = pendingAnswer();
    if (dst.chip == logged)
      bytesOf(a.readBytes);
    eventLog->answers.push_back(std::move(a));
    answer.reset();
  } else if (fromChip != logged && dst.chip == logged) {
    ExternalEvent &e = logEvent(ExternalEvent::Kind::MemWrite);
    e.tile = dst;
    e.writes = true;
    bytesOf(e.bytes);
  }
}

void System::notifyIncoming(const TileRef &tile, bool writes, uint64_t complete,
                            uint32_t fromChip, uint32_t dmaId, uint32_t pc) {
  Simulator &other = *chips[tile.chip];
  other.addIncoming(tile, writes, complete, fromChip, dmaId, pc);
  other.invalidate();
  if (eventLog && tile.chip == eventLog->chip && fromChip != tile.chip) {
    ExternalEvent &e = logEvent(ExternalEvent::Kind::Incoming);
    e.tile = tile;
    e.writes = writes;
    e.cycle = complete;
    e.fromChip = fromChip;
    e.dmaId = dmaId;
    e.pc = pc;
  }
}

void System::signal(uint32_t chip, unsigned sem, uint64_t cycle,
                    uint32_t fromChip, uint32_t dmaId) {
  Simulator &target = *chips[chip];
  target.signal(sem, cycle, fromChip, dmaId);
  target.invalidate();
  if (eventLog && chip == eventLog->chip) {
    ExternalEvent &e = logEvent(ExternalEvent::Kind::Signal);
    e.semaphore = sem;
    e.cycle = cycle;
    e.fromChip = fromChip;
    e.dmaId = dmaId;
  }
}

llvm::Error System::checkMemory(const FootprintExtras &extras) {
  if (memoryChecked)
    return llvm::Error::success();
  // A buffer table that does not fit the config is the chips' fault
  // (Simulator::prepare).
  if (llvm::Error e =
          program.checkBuffersFit(config.vmemBytes, config.hbmBytes)) {
    llvm::consumeError(std::move(e));
    return llvm::Error::success();
  }
  MemoryFootprint f =
      getMemoryFootprint(chips.size(), config.vmemBytes, program.buffers);
  f.extras = extras;
  if (llvm::Error e = checkMemoryFootprint(f))
    return e;
  memoryChecked = true;
  return llvm::Error::success();
}

llvm::Error System::step(bool &done) {
  if (llvm::Error e = checkMemory())
    return e;
  // Prepare every chip whose next instruction is not known yet (after its
  // own last commit, or after another chip's DMA signalled or touched it),
  // then commit the earliest.
  Simulator *next = nullptr;
  uint64_t nextCycle = UINT64_MAX;
  bool live = false;
  for (std::unique_ptr<Simulator> &chip : chips) {
    if (chip->isHalted())
      continue;
    live = true;
    if (!chip->isPrepared())
      if (llvm::Error e = chip->prepare())
        return e;
    if (chip->getPreparedCycle() < nextCycle) {
      nextCycle = chip->getPreparedCycle();
      next = chip.get();
    }
  }
  done = !live;
  if (done)
    return llvm::Error::success();
  if (!next) {
    std::string text = "deadlock: no chip can go on";
    std::string halted;
    for (std::unique_ptr<Simulator> &chip : chips) {
      if (chip->isHalted())
        halted +=
            (halted.empty() ? "" : ", ") + std::to_string(chip->getChip());
      else
        text += "; " + chip->describeBlocked();
    }
    if (!halted.empty())
      text += "; halted: chip" +
              std::string(halted.find(',') == std::string::npos ? " " : "s ") +
              halted;
    return llvm::createStringError(text);
  }
  ++instCount;
  return next->commit();
}

llvm::Expected<SystemSummary>
System::run(uint64_t maxInstructions, bool stopAtBudget, ProgressFn progress) {
  uint64_t nextProgress = progress ? instCount + kProgressInterval : UINT64_MAX;
  for (bool done = false;;) {
    if (instCount >= nextProgress && instCount < maxInstructions) {
      uint64_t cycle = 0;
      for (std::unique_ptr<Simulator> &chip : chips)
        cycle = std::max(cycle, chip->getLastIssueCycle());
      progress(instCount, cycle);
      nextProgress = instCount + kProgressInterval;
    }
    if (instCount >= maxInstructions) {
      if (stopAtBudget) {
        truncated = true;
        break;
      }
      // Name the chip that would go next, as a one-chip run names its PC.
      uint64_t best = UINT64_MAX;
      Simulator *next = nullptr;
      for (std::unique_ptr<Simulator> &chip : chips)
        if (!chip->isHalted() && chip->isPrepared() &&
            chip->getPreparedCycle() < best) {
          best = chip->getPreparedCycle();
          next = chip.get();
        }
      bool allHalted = llvm::all_of(
          chips, [](const auto &chip) { return chip->isHalted(); });
      if (allHalted)
        break;
      return llvm::createStringError(
          "instruction budget of " + llvm::Twine(maxInstructions) +
          " exceeded over " + llvm::Twine(chips.size()) +
          " chips (an endless loop?)" +
          (next ? ", next chip " + llvm::Twine(next->getChip()) + " at pc " +
                      llvm::Twine(next->getPc())
                : llvm::Twine("")));
    }
    if (llvm::Error e = step(done))
      return std::move(e);
    if (done)
      break;
  }
  return finish();
}

SystemSummary System::finish() {
  SystemSummary s;
  // The system ends when its last chip does; every chip's observers see
  // that end, so per-chip utilizations share one time base.
  uint64_t end = 0;
  for (std::unique_ptr<Simulator> &chip : chips)
    end = std::max(end, chip->getEndCycle());
  for (std::unique_ptr<Simulator> &chip : chips) {
    s.chips.push_back(chip->finish(end));
    s.instructions += s.chips.back().instructions;
    s.totalCycles = std::max(s.totalCycles, s.chips.back().totalCycles);
  }
  s.truncated = truncated;
  for (RunSummary &c : s.chips)
    c.truncated = truncated;
  return s;
}
