//===- PlotCommand.cpp - accel-replay plot --------------------------------===//
//
// Draws the figures of an output directory with utils/accel-plot.py
// (python3-matplotlib), which the build copies next to the executable.
//
//===----------------------------------------------------------------------===//

#include "Tool.h"

#include "accel/Sim/Topology.h"

#include "llvm/Support/Program.h"

using namespace accel;
using namespace accel::tool;

namespace accel::tool {

/// Why --chip is malformed or out of range, or "": a chip is a decimal in
/// [0, Topology::kMaxChips - 1] (the script then checks the run's own count).
/// --dmas is checked by the script, against the chip's DMA count (FIRST:END
/// or FIRST: to the end).
static std::string checkPlotOptions() {
  if (plotChip.getNumOccurrences()) {
    uint64_t chip;
    if (llvm::StringRef(plotChip).getAsInteger(10, chip) ||
        chip >= sim::Topology::kMaxChips)
      return "--chip must be a chip number in [0, " +
             std::to_string(sim::Topology::kMaxChips - 1) + "]; got '" +
             plotChip + "'";
  }
  return "";
}

/// Runs utils/accel-plot.py (copied next to this executable) with a Python
/// that has matplotlib: $ACCEL_PYTHON, Debian's /usr/bin/python3, or the
/// python3 on PATH.
int cmdPlot(const char *argv0) {
  if (std::string bad = checkPlotOptions(); !bad.empty())
    return fail(bad);
  auto script = findScript(argv0, "accel-plot.py");
  if (!script)
    return fail(llvm::toString(script.takeError()));
  std::string python = findPlotPython();
  if (python.empty())
    return fail("no python3 found to run " + *script);
  // One argument per option (--dmas=-3:4), so a value that starts with '-'
  // is not read by argparse as an option of its own.
  std::string chipArg = "--chip=" + plotChip, dmasArg = "--dmas=" + plotDmas;
  llvm::SmallVector<llvm::StringRef, 5> args = {python, *script, inputFile};
  if (plotChip.getNumOccurrences())
    args.push_back(chipArg);
  if (plotDmas.getNumOccurrences())
    args.push_back(dmasArg);
  std::string err;
  int rc =
      llvm::sys::ExecuteAndWait(python, args, std::nullopt, {}, 0, 0, &err);
  if (rc < 0)
    return fail("cannot run " + python + ": " + err);
  return rc;
}
} // namespace accel::tool
