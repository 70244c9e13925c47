//===- PlotCommand.cpp - accel-replay plot --------------------------------===//
//
// Draws the figures of an output directory with utils/accel-plot.py
// (python3-matplotlib), which the build copies next to the executable.
//
//===----------------------------------------------------------------------===//

#include "Tool.h"

#include "llvm/Support/Program.h"

using namespace accel;
using namespace accel::tool;

namespace accel::tool {

/// Runs utils/accel-plot.py (copied next to this executable) with a Python
/// that has matplotlib: $ACCEL_PYTHON, Debian's /usr/bin/python3, or the
/// python3 on PATH.
int cmdPlot(const char *argv0) {
  auto script = findScript(argv0, "accel-plot.py");
  if (!script)
    return fail(llvm::toString(script.takeError()));
  std::string python = findPlotPython();
  if (python.empty())
    return fail("no python3 found to run " + *script);
  llvm::SmallVector<llvm::StringRef, 7> args = {python, *script, inputFile};
  if (plotChip.getNumOccurrences())
    args.append({"--chip", plotChip});
  if (plotDmas.getNumOccurrences())
    args.append({"--dmas", plotDmas});
  std::string err;
  int rc =
      llvm::sys::ExecuteAndWait(python, args, std::nullopt, {}, 0, 0, &err);
  if (rc < 0)
    return fail("cannot run " + python + ": " + err);
  return rc;
}
} // namespace accel::tool
