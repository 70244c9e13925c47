//===- Output.cpp - Output files and directories: the commit rule ---------===//
//
// The commits of docs/output.md: a file written to a temporary beside its
// target and renamed over it (writeOutput, StagedFiles), a directory
// staged beside its target and swapped with it (StagedDirectory), and the
// paths, parent directories and stale temporaries they deal with. Every
// temporary is entered in the registry of live paths (OutputRegistry.cpp)
// before it is created, so that a termination signal removes it; removal
// never follows a symbolic link (RemoveTree.cpp).
//
//===----------------------------------------------------------------------===//

#include "accel/Support/Output.h"
#include "OutputInternal.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Errno.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/syscall.h>
#endif

using namespace accel;
using namespace accel::detail;
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
    bool stale = pid == self ? !registryOverflowed() && !isLive(full)
                             : processIsGone(pid);
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
    // Large outputs (timeline.json: 14 MB for layernorm_loop) in 256 KiB
    // writes, not the file system's 4 KiB blocks: 3,500 write calls became
    // about 60 (strace).
    os.SetBufferSize(size_t(256) << 10);
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
    setPendingRestore(old.c_str(), targetPath.c_str());
    bool ok = ::rename(targetPath.c_str(), old.c_str()) == 0;
    int err = errno;
    if (ok && ::rename(staging.c_str(), targetPath.c_str()) != 0) {
      err = errno;
      (void)::rename(old.c_str(), targetPath.c_str());
      ok = false;
    }
    clearPendingRestore();
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
