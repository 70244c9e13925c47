//===- Recorder.h - Algorithm 1: record a window with minimal state -*- C++ -*-===//

#ifndef ACCEL_REPLAY_RECORDER_H
#define ACCEL_REPLAY_RECORDER_H

#include "accel/Replay/Trace.h"
#include "accel/Sim/Device.h"

#include "llvm/ADT/STLFunctionalExtras.h"

namespace accel {
namespace replay {

/// Records `count` instructions from the device's current PC (the caller
/// has stopped it at a breakpoint, or at attach) using only the
/// step-debugger API, per SnR Algorithm 1: before each step, every
/// input register or memory range that no earlier traced instruction wrote
/// and that is not saved yet is read from the device and saved; the
/// instruction's outputs join the written set. DMAs issued before the
/// window and not yet WAITed are saved as descriptors (their destination
/// data is captured when the window first reads it, like any other input).
/// Recording stops early if the program halts (the HALT is traced).
///
/// On a device attached to one chip of a system (several chips), the trace
/// is format version 4: it also holds the chip's timing state at the
/// window's start and, from the device's event log, what the other chips
/// did to it and answered its remote DMAs during the window (Trace.h,
/// SystemWindow). Another chip's memory a remote DMA reads is not saved
/// (the answer carries it); bytes other chips write join the written set.
///
/// `configJson` is stored in the trace. `progress(done, total)` is called
/// every 65536 instructions. Errors: a device fault or API error.
llvm::Expected<Trace>
record(sim::Device &device, const isa::Program &program,
       llvm::StringRef configJson, uint64_t count,
       llvm::function_ref<void(uint64_t, uint64_t)> progress = nullptr);

} // namespace replay
} // namespace accel

#endif // ACCEL_REPLAY_RECORDER_H
