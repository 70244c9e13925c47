//===- Output.cpp - Output files and directories: the commit rule ---------===//
//
// Every temporary (a staging directory, a file's temporary, a parent
// directory created for an output) is entered in a process-wide registry of
// live paths before it is created and left after it is renamed or removed;
// the termination signal handler removes what the registry holds with
// async-signal-safe calls only (openat, getdents64, unlinkat), never through
// a symbolic link. The same registry tells removeStaleTemporaries which of
// this process's own temporaries are live.
//
// Over 600 lines on purpose: the removal, the registry, the signal handler
// and the commits share the registry's private state (its slots, the
// overflow flag, the fallback commit's pending paths), which a split would
// have to expose in a header for this file alone.
//
//===----------------------------------------------------------------------===//

#include "accel/Support/Output.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Errno.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <mutex>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/syscall.h>
#endif

using namespace accel;
namespace fs = llvm::sys::fs;
namespace path = llvm::sys::path;

static constexpr llvm::StringLiteral kTmpInfix = ".accel-tmp-";

static llvm::Error cannotWrite(llvm::StringRef path, const llvm::Twine &why) {
  return llvm::createStringError("cannot write '%s': %s", path.str().c_str(),
                                 why.str().c_str());
}

static std::string errnoMessage(int err) {
  return std::error_code(err, std::generic_category()).message();
}

//===----------------------------------------------------------------------===//
// Removal that never follows a symbolic link (async-signal-safe).
//===----------------------------------------------------------------------===//

/// Deepest directory nesting removeTree descends into at once (each level
/// holds a descriptor and a 1 KiB buffer on the stack, which may be a
/// signal handler's); a directory deeper than that is moved up to the top
/// directory being removed and removed from there (hoistDirectory).
static constexpr unsigned kMaxRemoveDepth = 48;

static int removeDirectoryAt(int parentFd, const char *name, unsigned depth,
                             int topFd);

/// Moves the directory `name` of `fd` into the top directory `topFd` (of
/// the tree being removed), under a free name "accel-rm-N"; 0 or an errno.
static int hoistDirectory(int fd, const char *name, int topFd) {
  for (unsigned n = 0; n < 100000; ++n) {
    char to[32] = "accel-rm-";
    char digits[12];
    unsigned len = 0;
    for (unsigned v = n; len == 0 || v; v /= 10)
      digits[len++] = char('0' + v % 10);
    char *end = to + 9;
    while (len)
      *end++ = digits[--len];
    *end = 0;
    if (::renameat(fd, name, topFd, to) == 0)
      return 0;
    if (errno != EEXIST && errno != ENOTEMPTY && errno != ENOTDIR &&
        errno != EISDIR)
      return errno;
  }
  return EEXIST;
}

/// Removes the entry `name` of the directory `fd` (of type `type`, a
/// dirent d_type; `fd` is at `depth` below `topFd`); 0 or an errno.
static int removeEntryAt(int fd, const char *name, unsigned char type,
                         unsigned depth, int topFd) {
  if (type == DT_UNKNOWN) {
    struct stat st;
    if (::fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0)
      type = S_ISDIR(st.st_mode) ? DT_DIR : DT_REG;
  }
  if (type != DT_DIR)
    return ::unlinkat(fd, name, 0) == 0 ? 0 : errno;
  if (depth + 1 > kMaxRemoveDepth)
    return hoistDirectory(fd, name, topFd);
  return removeDirectoryAt(fd, name, depth + 1, topFd);
}

static bool isDotOrDotDot(const char *name) {
  return name[0] == '.' && (name[1] == 0 || (name[1] == '.' && name[2] == 0));
}

/// Removes every entry of the open directory `fd`; 0 or the first errno.
static int removeEntries(int fd, unsigned depth, int topFd) {
  int firstError = 0;
  auto removeOne = [&](const char *name, unsigned char type) {
    if (isDotOrDotDot(name))
      return false;
    int err = removeEntryAt(fd, name, type, depth, topFd);
    if (err && err != ENOENT && !firstError)
      firstError = err;
    return err == 0;
  };
  // Entries are removed while the directory is read: read it again from
  // the start until a pass removes nothing.
  for (unsigned pass = 0; pass < 100000; ++pass) {
    if (::lseek(fd, 0, SEEK_SET) < 0)
      return firstError ? firstError : errno;
    bool removedAny = false;
#ifdef __linux__
    // getdents64 rather than readdir: no allocation (signal handlers).
    struct LinuxDirent64 {
      uint64_t ino;
      int64_t off;
      unsigned short reclen;
      unsigned char type;
      char name[1];
    };
    alignas(8) char buf[1024];
    for (;;) {
      long n = ::syscall(SYS_getdents64, fd, buf, sizeof buf);
      if (n < 0)
        return firstError ? firstError : errno;
      if (n == 0)
        break;
      for (long off = 0; off < n;) {
        auto *d = reinterpret_cast<LinuxDirent64 *>(buf + off);
        off += d->reclen;
        removedAny |= removeOne(d->name, d->type);
      }
    }
#else
    int dupFd = ::dup(fd);
    DIR *dir = dupFd < 0 ? nullptr : ::fdopendir(dupFd);
    if (!dir)
      return firstError ? firstError : errno;
    ::rewinddir(dir);
    while (struct dirent *d = ::readdir(dir))
      removedAny |= removeOne(d->d_name, d->d_type);
    ::closedir(dir);
#endif
    if (!removedAny)
      break;
  }
  return firstError;
}

/// Removes the directory `name` in `parentFd` and everything in it; a
/// symbolic link (or a file) there is unlinked itself. `topFd` is the top
/// directory of the removal (-1 when this is it). 0 or an errno.
static int removeDirectoryAt(int parentFd, const char *name, unsigned depth,
                             int topFd) {
  int fd =
      ::openat(parentFd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOTDIR || errno == ELOOP)
      return ::unlinkat(parentFd, name, 0) == 0 ? 0 : errno;
    return errno;
  }
  int err = removeEntries(fd, depth, topFd < 0 ? fd : topFd);
  ::close(fd);
  if (::unlinkat(parentFd, name, AT_REMOVEDIR) != 0)
    return err ? err : errno;
  return err;
}

/// removeTree on a C string (async-signal-safe on Linux); 0 or an errno.
static int removeTreeRaw(const char *p) {
  struct stat st;
  if (::lstat(p, &st) != 0)
    return errno == ENOENT ? 0 : errno;
  if (!S_ISDIR(st.st_mode))
    return ::unlink(p) == 0 || errno == ENOENT ? 0 : errno;
  int err = removeDirectoryAt(AT_FDCWD, p, 0, -1);
  return err == ENOENT ? 0 : err;
}

std::error_code accel::removeTree(llvm::StringRef p) {
  std::string s = p.str();
  if (int err = removeTreeRaw(s.c_str()))
    return std::error_code(err, std::generic_category());
  return {};
}

//===----------------------------------------------------------------------===//
// The registry of live temporaries.
//===----------------------------------------------------------------------===//

namespace {
/// What the signal handler does with a live path (the first character of
/// its registry string).
enum LiveKind : char {
  /// A temporary file or staging directory: removed (removeTree).
  Temporary = 'T',
  /// A directory created for an output: removed if empty.
  CreatedDir = 'D',
  /// The previous output moved aside during a commit: kept (it is restored
  /// or removed by the commit itself).
  Kept = 'K',
};
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

static void registerLive(llvm::StringRef p, LiveKind kind) {
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

static void unregisterLive(llvm::StringRef p) {
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

static bool isLive(llvm::StringRef p) {
  std::lock_guard<std::mutex> lock(liveMutex);
  for (std::atomic<char *> &slot : liveSlots) {
    char *s = slot.load();
    if (s && llvm::StringRef(s + 1) == p)
      return true;
  }
  return false;
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

/// The signals that end the process at a user's or the system's request.
/// (SIGPIPE keeps LLVM's handler, which exits with status 74: the exit
/// handler of initToolOutputs then removes the temporaries.)
static constexpr int kTerminationSignals[] = {SIGINT, SIGTERM, SIGHUP};
static constexpr unsigned kNumTerminationSignals = 3;

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
/// still live are removed (exit() called on an error path, LLVM's SIGPIPE
/// handler), and an unreported write error on stdout or stderr (a full
/// disk, a file-size limit) is one error line and exit status 1, not LLVM's
/// "IO failure on output stream" fatal error.
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

//===----------------------------------------------------------------------===//
// Paths.
//===----------------------------------------------------------------------===//

/// `p` made absolute and without "." components.
static std::string absolutePath(llvm::StringRef p) {
  llvm::SmallString<256> a(p);
  (void)fs::make_absolute(a);
  path::remove_dots(a, /*remove_dot_dot=*/false);
  // "/a/b/" -> "/a/b"
  while (a.size() > 1 && path::is_separator(a.back()))
    a.pop_back();
  return std::string(a);
}

static std::string parentOf(llvm::StringRef p) {
  llvm::StringRef parent = path::parent_path(p);
  return parent.empty() ? std::string(".") : parent.str();
}

/// `p` with the symbolic links at its last component followed (also a
/// dangling one: the path it names, see checkDanglingLink); `viaProc` is set
/// when a link leads into /proc (/dev/stdout -> /proc/self/fd/1), which is
/// written directly.
static std::string resolveLinks(llvm::StringRef p, bool &viaProc) {
  std::string current = p.str();
  viaProc = llvm::StringRef(current).starts_with("/proc/");
  for (unsigned hop = 0; hop < 40; ++hop) {
    struct stat st;
    if (::lstat(current.c_str(), &st) != 0 || !S_ISLNK(st.st_mode))
      return current;
    char buf[4096];
    ssize_t n = ::readlink(current.c_str(), buf, sizeof buf - 1);
    if (n <= 0)
      return current;
    llvm::StringRef link(buf, size_t(n));
    if (path::is_absolute(link)) {
      current = link.str();
    } else {
      llvm::SmallString<256> next(parentOf(current));
      path::append(next, link);
      current = std::string(next);
    }
    if (llvm::StringRef(current).starts_with("/proc/"))
      viaProc = true;
  }
  return current; // a loop: the operations on it report ELOOP
}

/// For a symbolic link `target` whose resolved path `resolved` does not
/// exist: an error unless the directory it would be made in exists. A
/// dangling link names where the output goes, as open(O_CREAT) takes it,
/// but no directory is created through a link (its target may be an
/// unmounted disk).
static llvm::Error checkDanglingLink(llvm::StringRef target,
                                     const std::string &resolved) {
  struct stat st;
  if (::lstat(target.str().c_str(), &st) != 0 || !S_ISLNK(st.st_mode) ||
      ::stat(resolved.c_str(), &st) == 0)
    return llvm::Error::success();
  std::string dir = parentOf(resolved);
  if (::stat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
    return llvm::Error::success();
  return cannotWrite(target, "it is a symbolic link to '" + resolved +
                                 "', whose directory '" + dir +
                                 "' does not exist");
}

/// The absolute path `full` with its directory part canonical (no "..",
/// no links: realpath), once that directory exists; the last component is
/// kept as it is (already resolved by resolveLinks).
static std::string canonicalPath(llvm::StringRef full) {
  llvm::SmallString<256> dir;
  if (fs::real_path(parentOf(full), dir))
    return full.str();
  path::append(dir, path::filename(full));
  return std::string(dir);
}

/// The name of a new temporary beside `target`:
/// TARGET.accel-tmp-PID-XXXXXXXX.
static std::string newTemporaryName(llvm::StringRef target) {
  static const char digits[] = "abcdefghijklmnopqrstuvwxyz0123456789";
  std::string name = (target + kTmpInfix +
                      llvm::Twine(llvm::sys::Process::getProcessId()) + "-")
                         .str();
  for (int i = 0; i < 8; ++i)
    name += digits[llvm::sys::Process::GetRandomNumber() % 36];
  return name;
}

/// Creates the missing directories of the absolute path `dir`, entering
/// each in `created` (and the registry) so that a failed output removes
/// them again. ENOTDIR if a component is not a directory.
static std::error_code createDirectories(llvm::StringRef dir,
                                         std::vector<std::string> &created) {
  llvm::SmallVector<std::string, 4> missing;
  std::string p = dir.str();
  for (;;) {
    struct stat st;
    if (::stat(p.c_str(), &st) == 0) {
      if (!S_ISDIR(st.st_mode))
        return std::error_code(ENOTDIR, std::generic_category());
      break;
    }
    if (errno != ENOENT)
      return std::error_code(errno, std::generic_category());
    missing.push_back(p);
    std::string parent = parentOf(p);
    if (parent == p)
      break;
    p = parent;
  }
  for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
    registerLive(*it, CreatedDir);
    if (::mkdir(it->c_str(), 0777) == 0) {
      created.push_back(*it);
      continue;
    }
    int err = errno;
    unregisterLive(*it);
    struct stat st;
    if (err == EEXIST && ::stat(it->c_str(), &st) == 0 && S_ISDIR(st.st_mode))
      continue; // made by someone else meanwhile
    return std::error_code(err, std::generic_category());
  }
  return {};
}

/// Removes the directories createDirectories made, if they are empty.
static void removeCreatedDirectories(std::vector<std::string> &created) {
  for (auto it = created.rbegin(); it != created.rend(); ++it) {
    (void)::rmdir(it->c_str());
    unregisterLive(*it);
  }
  created.clear();
}

/// Forgets the directories createDirectories made (they hold an output).
static void keepCreatedDirectories(std::vector<std::string> &created) {
  for (const std::string &d : created)
    unregisterLive(d);
  created.clear();
}

llvm::Error accel::checkOutputDirectory(llvm::StringRef dir) {
  // Up the path as given, so that the error names a component as the user
  // wrote it.
  std::string p = dir.empty() ? std::string(".") : dir.str();
  for (bool first = true;; first = false) {
    struct stat st;
    if (::stat(p.c_str(), &st) == 0) {
      if (!S_ISDIR(st.st_mode))
        return first ? cannotWrite(dir, "it is not a directory")
                     : cannotWrite(dir, "'" + p + "' is not a directory");
      if (::access(p.c_str(), W_OK | X_OK) != 0)
        return cannotWrite(dir, (first ? std::string() : "'" + p + "': ") +
                                    errnoMessage(errno));
      return llvm::Error::success();
    }
    if (errno != ENOENT && errno != ENOTDIR)
      return cannotWrite(dir, errnoMessage(errno));
    std::string parent = path::parent_path(p).str();
    if (parent.empty())
      parent = path::is_absolute(p) ? p : ".";
    if (parent == p)
      return llvm::Error::success();
    p = parent;
  }
}

//===----------------------------------------------------------------------===//
// Stale temporaries.
//===----------------------------------------------------------------------===//

/// Whether process `pid` is gone (kill(pid, 0) says no such process).
static bool processIsGone(long pid) {
  if (pid <= 0)
    return false;
  return ::kill(pid_t(pid), 0) == -1 && errno == ESRCH;
}

unsigned accel::removeStaleTemporaries(llvm::StringRef target) {
  std::string dir = parentOf(absolutePath(target));
  long self = long(llvm::sys::Process::getProcessId());
  unsigned removed = 0;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec, /*follow_symlinks=*/false), end;
       it != end && !ec; it.increment(ec)) {
    llvm::StringRef name = path::filename(it->path());
    size_t at = name.rfind(kTmpInfix);
    if (at == llvm::StringRef::npos || at == 0)
      continue;
    auto [pidText, suffix] = name.drop_front(at + kTmpInfix.size()).split('-');
    long pid = 0;
    if (pidText.getAsInteger(10, pid) || suffix.empty())
      continue;
    std::string full = it->path();
    bool stale =
        pid == self ? !liveOverflow && !isLive(full) : processIsGone(pid);
    if (stale && !removeTree(full))
      ++removed;
  }
  return removed;
}

//===----------------------------------------------------------------------===//
// Files.
//===----------------------------------------------------------------------===//

/// Writes `write`'s output straight to `path` (a device, a FIFO, stdout).
static llvm::Error
writeDirect(llvm::StringRef path,
            llvm::function_ref<llvm::Error(llvm::raw_ostream &)> write) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, fs::OF_None);
  if (ec)
    return cannotWrite(path, ec.message());
  llvm::Error e = write(os);
  os.close();
  if (os.has_error()) {
    std::error_code werr = os.error();
    os.clear_error(); // raw_fd_ostream aborts on an unchecked error
    llvm::consumeError(std::move(e));
    return cannotWrite(path, werr.message());
  }
  return e;
}

static llvm::Error
writeStdout(llvm::function_ref<llvm::Error(llvm::raw_ostream &)> write) {
  llvm::Error e = write(llvm::outs());
  llvm::outs().flush();
  if (llvm::outs().has_error()) {
    std::error_code werr = llvm::outs().error();
    llvm::outs().clear_error(); // or LLVM aborts at exit
    llvm::consumeError(std::move(e));
    return llvm::createStringError("cannot write to standard output: %s",
                                   werr.message().c_str());
  }
  return e;
}

StagedFiles::~StagedFiles() {
  for (const Entry &e : entries) {
    (void)::unlink(e.temp.c_str());
    unregisterLive(e.temp);
  }
  removeCreatedDirectories(createdDirs);
}

llvm::Error
StagedFiles::add(llvm::StringRef target,
                 llvm::function_ref<llvm::Error(llvm::raw_ostream &)> write) {
  if (target == "-")
    return writeStdout(write);
  // A symbolic link is followed: its target is what gets replaced (or, for
  // /dev/stdout -> /proc/self/fd/1, written directly).
  bool viaProc = false;
  std::string resolved = resolveLinks(target, viaProc);
  if (viaProc)
    return writeDirect(target, write);
  struct stat st;
  bool exists = ::stat(resolved.c_str(), &st) == 0;
  if (exists) {
    if (S_ISDIR(st.st_mode))
      return cannotWrite(target, "it is a directory");
    if (!S_ISREG(st.st_mode))
      return writeDirect(target, write);
  }
  if (llvm::Error e = checkDanglingLink(target, resolved))
    return e;
  std::string full = absolutePath(resolved);
  if (std::error_code ec = createDirectories(parentOf(full), createdDirs))
    return cannotWrite(target, "cannot create its directory: " + ec.message());
  full = canonicalPath(full);
  removeStaleTemporaries(full);
  std::string temp;
  int fd = -1;
  for (unsigned attempt = 0; fd < 0; ++attempt) {
    temp = newTemporaryName(full);
    registerLive(temp, Temporary);
    fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0)
      break;
    int err = errno;
    unregisterLive(temp);
    if (err != EEXIST || attempt > 100)
      return cannotWrite(target, errnoMessage(err));
  }
  if (exists) // the replaced file's permissions
    (void)::fchmod(fd, st.st_mode & 07777);
  llvm::Error e = llvm::Error::success();
  std::error_code werr;
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/false);
    e = write(os);
    os.flush();
    if (os.has_error()) {
      werr = os.error();
      os.clear_error();
    }
  }
  if (!werr && ::close(fd) != 0)
    werr = std::error_code(errno, std::generic_category());
  else if (werr)
    ::close(fd);
  if (werr || e) {
    (void)::unlink(temp.c_str());
    unregisterLive(temp);
    if (e)
      return e;
    return cannotWrite(target, werr.message());
  }
  entries.push_back({target.str(), full, temp});
  return llvm::Error::success();
}

llvm::Error StagedFiles::add(llvm::StringRef path, llvm::StringRef text) {
  return add(path, [&](llvm::raw_ostream &os) {
    os << text;
    return llvm::Error::success();
  });
}

llvm::Error StagedFiles::commit() {
  while (!entries.empty()) {
    Entry &e = entries.front();
    if (::rename(e.temp.c_str(), e.target.c_str()) != 0)
      return cannotWrite(e.display, errnoMessage(errno));
    unregisterLive(e.temp);
    entries.erase(entries.begin());
  }
  keepCreatedDirectories(createdDirs);
  return llvm::Error::success();
}

llvm::Error
accel::writeOutput(llvm::StringRef target,
                   llvm::function_ref<llvm::Error(llvm::raw_ostream &)> write) {
  StagedFiles files;
  if (llvm::Error e = files.add(target, write))
    return e;
  return files.commit();
}

llvm::Error accel::writeOutput(llvm::StringRef path, llvm::StringRef text) {
  return writeOutput(path, [&](llvm::raw_ostream &os) {
    os << text;
    return llvm::Error::success();
  });
}

//===----------------------------------------------------------------------===//
// Directories.
//===----------------------------------------------------------------------===//

llvm::Expected<StagedDirectory>
StagedDirectory::create(llvm::StringRef target) {
  bool viaProc = false;
  std::string resolved = resolveLinks(target, viaProc);
  if (llvm::Error e = checkDanglingLink(target, resolved))
    return e;
  std::string full = absolutePath(resolved);
  struct stat st;
  bool exists = ::stat(full.c_str(), &st) == 0;
  if (exists) {
    if (!S_ISDIR(st.st_mode))
      return cannotWrite(target, "it is not a directory");
    std::error_code ec;
    fs::directory_iterator it(full, ec), end;
    if (ec)
      return cannotWrite(target, ec.message());
    auto has = [&](const char *name) {
      llvm::SmallString<256> p(full);
      path::append(p, name);
      return fs::exists(p);
    };
    if (it != end && !has("metrics.json") && !has("fdo.json") &&
        !has("sweep.json"))
      return cannotWrite(target,
                         "it exists and is not an accel output directory "
                         "(no metrics.json, fdo.json or sweep.json in it); "
                         "remove it or choose another");
  } else if (errno != ENOENT && errno != ENOTDIR) {
    return cannotWrite(target, errnoMessage(errno));
  }
  std::vector<std::string> created;
  if (std::error_code ec = createDirectories(parentOf(full), created))
    return cannotWrite(target, "cannot create its parent: " + ec.message());
  full = canonicalPath(full);
  removeStaleTemporaries(full);
  std::string staging;
  for (unsigned attempt = 0;; ++attempt) {
    staging = newTemporaryName(full);
    registerLive(staging, Temporary);
    if (::mkdir(staging.c_str(), 0777) == 0)
      break;
    int err = errno;
    unregisterLive(staging);
    if (err != EEXIST || attempt > 100) {
      removeCreatedDirectories(created);
      return cannotWrite(target,
                         "cannot create a staging directory beside it: " +
                             errnoMessage(err));
    }
  }
  if (exists) // the replaced directory's permissions
    (void)::chmod(staging.c_str(), st.st_mode & 07777);
  return StagedDirectory(target.str(), full, staging, std::move(created));
}

StagedDirectory::StagedDirectory(StagedDirectory &&other)
    : displayPath(std::move(other.displayPath)),
      targetPath(std::move(other.targetPath)),
      staging(std::move(other.staging)),
      createdDirs(std::move(other.createdDirs)), done(other.done) {
  other.done = true;
  other.createdDirs.clear();
}

StagedDirectory::~StagedDirectory() {
  if (done || staging.empty())
    return;
  (void)removeTree(staging);
  unregisterLive(staging);
  removeCreatedDirectories(createdDirs);
}

std::string StagedDirectory::toTargetPaths(llvm::StringRef text) const {
  std::string out;
  llvm::StringRef rest = text;
  for (size_t at; !staging.empty() &&
                  (at = rest.find(staging)) != llvm::StringRef::npos;) {
    out += rest.take_front(at).str() + displayPath;
    rest = rest.drop_front(at + staging.size());
  }
  return out + rest.str();
}

/// Swaps two paths atomically (Linux renameat2 RENAME_EXCHANGE); false
/// with errno set where that is not supported.
static bool exchangePaths(const std::string &a, const std::string &b) {
#if defined(__linux__) && defined(SYS_renameat2)
  constexpr unsigned kRenameExchange = 1u << 1;
  return ::syscall(SYS_renameat2, AT_FDCWD, a.c_str(), AT_FDCWD, b.c_str(),
                   kRenameExchange) == 0;
#else
  errno = ENOSYS;
  return false;
#endif
}

llvm::Error StagedDirectory::commit() {
  if (done)
    return llvm::Error::success();
  struct stat st;
  if (::lstat(targetPath.c_str(), &st) != 0 && errno == ENOENT) {
    if (::rename(staging.c_str(), targetPath.c_str()) != 0)
      return cannotWrite(displayPath, errnoMessage(errno));
  } else if (exchangePaths(staging, targetPath)) {
    // `staging` now holds the previous output (never a link: the target
    // was resolved).
    (void)removeTree(staging);
  } else {
    // No atomic exchange on this file system: move the old output aside,
    // then the new one in; a signal between the two renames moves the old
    // one back (removeLiveTemporaries).
    std::string old = newTemporaryName(targetPath) + "-old";
    registerLive(old, Kept);
    pendingTarget = targetPath.c_str();
    pendingOld = old.c_str();
    bool ok = ::rename(targetPath.c_str(), old.c_str()) == 0;
    int err = errno;
    if (ok && ::rename(staging.c_str(), targetPath.c_str()) != 0) {
      err = errno;
      (void)::rename(old.c_str(), targetPath.c_str());
      ok = false;
    }
    pendingOld = nullptr;
    pendingTarget = nullptr;
    if (ok)
      (void)removeTree(old);
    unregisterLive(old);
    if (!ok)
      return cannotWrite(displayPath, errnoMessage(err));
  }
  unregisterLive(staging);
  keepCreatedDirectories(createdDirs);
  done = true;
  return llvm::Error::success();
}
