//===- Progress.cpp - Progress of long accel-replay commands on stderr ----===//
//
// The habit of git and cargo: a command that runs for more than a moment
// shows what it is doing on stderr, as one line redrawn in place when
// stderr is a terminal, and as a single summary line at the end when it is
// not (a log, a CI job), so that logs are not filled with redraws.
//
//===----------------------------------------------------------------------===//

#include "Tool.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

namespace accel::tool {

cl::opt<ProgressMode> progressMode(
    "progress",
    cl::desc("Progress on stderr: a line redrawn in place on a terminal, "
             "one summary line at the end otherwise"),
    cl::values(clEnumValN(ProgressMode::Auto, "auto",
                          "for commands that run over a second (default)"),
               clEnumValN(ProgressMode::Always, "always",
                          "for every command, however short"),
               clEnumValN(ProgressMode::Never, "never", "none")),
    cl::init(ProgressMode::Auto), cl::sub(runCmd), cl::sub(fdoCmd),
    cl::sub(recordCmd), cl::sub(replayCmd), cl::sub(sweepCmd),
    cl::cat(outputCategory));

/// Seconds a command runs before --progress=auto shows anything.
static constexpr double kAutoDelaySeconds = 1.0;
/// Seconds between two redraws of the line.
static constexpr double kRedrawSeconds = 0.1;

std::string formatCount(uint64_t n) {
  if (n < 10000)
    return std::to_string(n);
  std::string s;
  llvm::raw_string_ostream os(s);
  if (n < 1000000)
    os << llvm::format("%.1f K", n / 1e3);
  else if (n < 1000000000)
    os << llvm::format("%.1f M", n / 1e6);
  else
    os << llvm::format("%.2f G", n / 1e9);
  return s;
}

/// The command's progress line, if one is being shown: fail() ends it.
static Progress *activeProgress = nullptr;

Progress::Progress(llvm::StringRef command)
    : command(command.str()), start(Clock::now()), lastDraw(start),
      terminal(llvm::sys::Process::StandardErrIsDisplayed()) {
  activeProgress = this;
}

Progress::~Progress() {
  endLine();
  if (activeProgress == this)
    activeProgress = nullptr;
}

void endProgressLine() {
  if (activeProgress)
    activeProgress->endLine();
}

double Progress::getElapsedSeconds() const {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

bool Progress::isShown(double elapsed) const {
  switch (progressMode) {
  case ProgressMode::Never:
    return false;
  case ProgressMode::Always:
    return true;
  case ProgressMode::Auto:
    return elapsed >= kAutoDelaySeconds;
  }
  return false;
}

void Progress::update(llvm::function_ref<std::string()> text, bool force) {
  if (!terminal)
    return;
  Clock::time_point now = Clock::now();
  if (open && !force &&
      std::chrono::duration<double>(now - lastDraw).count() < kRedrawSeconds)
    return;
  double elapsed = std::chrono::duration<double>(now - start).count();
  if (!isShown(elapsed))
    return;
  lastDraw = now;
  llvm::outs().flush();
  // "\x1b[K" clears what a longer previous line left on the right.
  llvm::errs() << "\r" << command << ": " << text()
               << llvm::format(" (%.0f s)", elapsed) << "\x1b[K";
  llvm::errs().flush();
  open = true;
}

std::function<void(llvm::StringRef, uint64_t, uint64_t)>
Progress::runCallback(std::string prefix) {
  return [this, prefix = std::move(prefix),
          lastStep = std::string()](llvm::StringRef step, uint64_t instructions,
                                    uint64_t cycle) mutable {
    bool changed = step != lastStep;
    lastStep = step.str();
    update(
        [&] {
          return prefix + step.str() + ": " + formatCount(instructions) +
                 " instructions, " + formatCount(cycle) + " cycles";
        },
        changed);
  };
}

void Progress::finish(const llvm::Twine &summary) {
  double elapsed = getElapsedSeconds();
  if (!isShown(elapsed)) {
    endLine();
    return;
  }
  // After what the command printed so far; on a terminal, in place of the
  // progress line.
  llvm::outs().flush();
  if (open)
    llvm::errs() << "\r";
  llvm::errs() << command << ": " << summary
               << llvm::format(" in %.1f s", elapsed)
               << (open ? "\x1b[K\n" : "\n");
  open = false;
}

void Progress::clear() {
  if (open) {
    llvm::errs() << "\r\x1b[K";
    llvm::errs().flush();
  }
  open = false;
}

void Progress::endLine() {
  if (open)
    llvm::errs() << "\n";
  open = false;
}

} // namespace accel::tool
