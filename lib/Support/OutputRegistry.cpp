//===- OutputRegistry.cpp - Live temporaries and the signal handler ------===//
//
// Every temporary (a staging directory, a file's temporary, a parent
// directory created for an output) is entered in a process-wide registry of
// live paths before it is created and left after it is renamed or removed;
// the termination signal handler removes what the registry holds with
// async-signal-safe calls only (removeTreeRaw, RemoveTree.cpp), never
// through a symbolic link. The same registry tells removeStaleTemporaries
// (Output.cpp) which of this process's own temporaries are live.
//
//===----------------------------------------------------------------------===//

#include "OutputInternal.h"
#include "accel/Support/Output.h"

#include "llvm/Support/Signals.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <pthread.h>
#include <string>
#include <unistd.h>

using namespace accel;
using namespace accel::detail;

//===----------------------------------------------------------------------===//
// The registry of live temporaries.
//===----------------------------------------------------------------------===//

namespace {
constexpr unsigned kMaxLive = 1024;
/// Each slot is null or a malloc'd "KIND/absolute/path". Inserting and
/// erasing take liveMutex; the signal handler only exchanges slots to null
/// (it never frees them, so an erase that races with it frees nothing).
std::atomic<char *> liveSlots[kMaxLive];
/// Set when a path could not be entered (more than kMaxLive at once): then
/// removeStaleTemporaries no longer treats this process's unregistered
/// temporaries as stale.
std::atomic<bool> liveOverflow{false};
std::mutex liveMutex;

/// The previous output during the fallback commit (no RENAME_EXCHANGE):
/// moved aside to `old`, the handler moves it back to `target` if the new
/// one is not there yet.
std::atomic<const char *> pendingOld{nullptr}, pendingTarget{nullptr};
} // namespace

void detail::registerLive(llvm::StringRef p, LiveKind kind) {
  std::string text = std::string(1, char(kind)) + p.str();
  char *copy = ::strdup(text.c_str());
  if (!copy) {
    liveOverflow = true;
    return;
  }
  std::lock_guard<std::mutex> lock(liveMutex);
  for (std::atomic<char *> &slot : liveSlots) {
    char *expected = nullptr;
    if (slot.compare_exchange_strong(expected, copy))
      return;
  }
  ::free(copy);
  liveOverflow = true;
}

void detail::unregisterLive(llvm::StringRef p) {
  std::lock_guard<std::mutex> lock(liveMutex);
  for (std::atomic<char *> &slot : liveSlots) {
    char *s = slot.load();
    if (!s || llvm::StringRef(s + 1) != p)
      continue;
    if (char *old = slot.exchange(nullptr))
      ::free(old);
    return;
  }
}

bool detail::isLive(llvm::StringRef p) {
  std::lock_guard<std::mutex> lock(liveMutex);
  for (std::atomic<char *> &slot : liveSlots) {
    char *s = slot.load();
    if (s && llvm::StringRef(s + 1) == p)
      return true;
  }
  return false;
}

bool detail::registryOverflowed() { return liveOverflow; }

void detail::setPendingRestore(const char *old, const char *target) {
  pendingTarget = target;
  pendingOld = old;
}

void detail::clearPendingRestore() {
  pendingOld = nullptr;
  pendingTarget = nullptr;
}

/// Removes every live temporary, then the directories created for outputs
/// that are empty. Async-signal-safe.
static void removeLiveTemporaries() {
  if (const char *old = pendingOld.exchange(nullptr))
    if (const char *target = pendingTarget.exchange(nullptr))
      (void)::rename(old, target); // fails if the new output is in place
  char *dirs[kMaxLive];
  unsigned numDirs = 0;
  for (std::atomic<char *> &slot : liveSlots) {
    char *s = slot.load();
    if (!s || s[0] == Kept)
      continue;
    s = slot.exchange(nullptr);
    if (!s)
      continue;
    if (s[0] == CreatedDir)
      dirs[numDirs++] = s;
    else
      (void)removeTreeRaw(s + 1);
  }
  // Nested created directories: innermost first, whatever the slot order.
  for (bool progress = true; progress;) {
    progress = false;
    for (unsigned i = 0; i < numDirs; ++i)
      if (dirs[i] && ::rmdir(dirs[i] + 1) == 0) {
        dirs[i] = nullptr;
        progress = true;
      }
  }
}

//===----------------------------------------------------------------------===//
// Signals and the standard streams.
//===----------------------------------------------------------------------===//

/// The signals that end the process at a user's or the system's request,
/// and SIGPIPE (the reader of stdout went away, `accel-replay fdo ... |
/// head`): LLVM's own SIGPIPE handler is not installed once its crash
/// handlers are (InitLLVM registers those first), so without this entry the
/// process died of it with its temporaries left behind.
static constexpr int kTerminationSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};
static constexpr unsigned kNumTerminationSignals = 4;

namespace {
/// The dispositions the process started with, before LLVM's handlers
/// replaced them (a job started with nohup, or in the background of a
/// non-interactive shell, ignores SIGHUP or SIGINT and must go on doing
/// so). Recorded by a static constructor, which runs before main.
struct InitialDispositions {
  bool ignored[kNumTerminationSignals] = {};
  InitialDispositions() {
    for (unsigned i = 0; i < kNumTerminationSignals; ++i) {
      struct sigaction sa;
      if (::sigaction(kTerminationSignals[i], nullptr, &sa) == 0)
        ignored[i] = sa.sa_handler == SIG_IGN;
    }
  }
} initialDispositions;

const char *toolNameForStreams = "accel";
} // namespace

static void onTerminationSignal(int sig) {
  int savedErrno = errno;
  removeLiveTemporaries();
  llvm::sys::RunInterruptHandlers(); // LLVM's RemoveFileOnSignal files
  // Die of the signal, as without this handler.
  struct sigaction dfl;
  std::memset(&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  ::sigaction(sig, &dfl, nullptr);
  ::raise(sig);
  sigset_t unblock;
  sigemptyset(&unblock);
  sigaddset(&unblock, sig);
  ::pthread_sigmask(SIG_UNBLOCK, &unblock, nullptr);
  errno = savedErrno;
}

/// At exit, before the standard streams are destroyed: the temporaries
/// still live are removed (exit() called on an error path), and an unreported
/// write error on stdout or stderr (a full disk, a file-size limit) is one
/// error line and exit status 1, not LLVM's "IO failure on output stream" fatal
/// error.
static void checkStandardStreamsAtExit() {
  removeLiveTemporaries();
  llvm::raw_fd_ostream &out = llvm::outs();
  out.flush();
  bool failed = false;
  if (out.has_error()) {
    std::error_code ec = out.error();
    out.clear_error();
    llvm::WithColor::error(llvm::errs(), toolNameForStreams)
        << "cannot write to standard output: " << ec.message() << "\n";
    failed = true;
  }
  llvm::raw_fd_ostream &err = llvm::errs();
  if (err.has_error()) {
    err.clear_error(); // nowhere left to report it
    failed = true;
  }
  if (failed)
    ::_exit(1);
}

void accel::initToolOutputs(const char *toolName) {
  toolNameForStreams = toolName;
  // A write past `ulimit -f` then fails with EFBIG instead of killing the
  // process (LLVM's crash handler would print a stack dump).
  ::signal(SIGXFSZ, SIG_IGN);
  for (unsigned i = 0; i < kNumTerminationSignals; ++i) {
    struct sigaction sa;
    std::memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    for (int s : kTerminationSignals)
      sigaddset(&sa.sa_mask, s);
    sa.sa_handler =
        initialDispositions.ignored[i] ? SIG_IGN : onTerminationSignal;
    ::sigaction(kTerminationSignals[i], &sa, nullptr);
  }
  // A crash outside LLVM's crash recovery (LLVM's handler runs its signal
  // handlers; a crash the FDO loop recovers from does not run them).
  static bool crashHandlerAdded = false;
  if (!crashHandlerAdded) {
    crashHandlerAdded = true;
    llvm::sys::AddSignalHandler([](void *) { removeLiveTemporaries(); },
                                nullptr);
  }
  // Construct the streams first, so that this exit handler runs before
  // their destructors.
  (void)llvm::outs();
  (void)llvm::errs();
  static bool registered = false;
  if (!registered) {
    registered = true;
    std::atexit(checkStandardStreamsAtExit);
  }
}
