//===- Output.cpp - Output files and directories that survive a kill ------===//

#include "accel/Support/Output.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

#include <cerrno>
#include <csignal>
#include <fcntl.h>
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

/// The prefix of this process's temporaries beside `target`.
static std::string tmpPrefix(llvm::StringRef target) {
  return (target + kTmpInfix + llvm::Twine(llvm::sys::Process::getProcessId()))
      .str();
}

/// Whether process `pid` is gone (kill(pid, 0) says no such process).
static bool processIsGone(long pid) {
  if (pid <= 0)
    return false;
  return ::kill(pid_t(pid), 0) == -1 && errno == ESRCH;
}

unsigned accel::removeStaleTemporaries(llvm::StringRef target) {
  llvm::SmallString<256> dir(target);
  path::remove_filename(dir);
  if (dir.empty())
    dir = ".";
  std::string prefix = (path::filename(target) + kTmpInfix).str();
  unsigned removed = 0;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; it != end && !ec;
       it.increment(ec)) {
    llvm::StringRef name = path::filename(it->path());
    if (!name.starts_with(prefix))
      continue;
    llvm::StringRef rest = name.drop_front(prefix.size());
    long pid = 0;
    if (rest.split('-').first.getAsInteger(10, pid) || !processIsGone(pid))
      continue;
    std::error_code rc = fs::is_directory(it->path())
                             ? fs::remove_directories(it->path())
                             : fs::remove(it->path());
    if (!rc)
      ++removed;
  }
  return removed;
}

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

llvm::Error
accel::writeOutput(llvm::StringRef target,
                   llvm::function_ref<llvm::Error(llvm::raw_ostream &)> write) {
  if (target == "-") {
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
  // A symbolic link is followed: its target is what gets replaced (or, for
  // /dev/stdout -> /proc/self/fd/1, written directly).
  std::string path = target.str();
  fs::file_status st;
  if (!fs::status(path, st, /*follow=*/false) && fs::is_symlink_file(st)) {
    llvm::SmallString<256> real;
    if (!fs::real_path(path, real))
      path = std::string(real);
  }
  if (!fs::status(path, st) && fs::exists(st)) {
    if (fs::is_directory(st))
      return cannotWrite(target, "it is a directory");
    if (!fs::is_regular_file(st) || llvm::StringRef(path).starts_with("/proc/"))
      return writeDirect(target, write);
  }
  llvm::SmallString<256> parent(path);
  path::remove_filename(parent);
  if (!parent.empty())
    if (std::error_code ec = fs::create_directories(parent))
      return cannotWrite(target,
                         "cannot create its directory: " + ec.message());
  removeStaleTemporaries(path);
  auto temp = fs::TempFile::create(tmpPrefix(path) + "-%%%%%%",
                                   fs::all_read | fs::all_write);
  if (!temp)
    return cannotWrite(target, llvm::toString(temp.takeError()));
  llvm::raw_fd_ostream os(temp->FD, /*shouldClose=*/false);
  llvm::Error e = write(os);
  os.flush();
  if (os.has_error() || e) {
    std::error_code werr = os.error();
    os.clear_error();
    llvm::consumeError(temp->discard());
    if (e)
      return e;
    return cannotWrite(target, werr.message());
  }
  if (llvm::Error k = temp->keep(path)) {
    std::string why = llvm::toString(std::move(k));
    llvm::consumeError(temp->discard());
    return cannotWrite(target, why);
  }
  return llvm::Error::success();
}

llvm::Error accel::writeOutput(llvm::StringRef path, llvm::StringRef text) {
  return writeOutput(path, [&](llvm::raw_ostream &os) {
    os << text;
    return llvm::Error::success();
  });
}

llvm::Expected<StagedDirectory>
StagedDirectory::create(llvm::StringRef target) {
  removeStaleTemporaries(target);
  fs::file_status st;
  if (!fs::status(target, st) && fs::exists(st)) {
    if (!fs::is_directory(st))
      return cannotWrite(target, "it is not a directory");
    bool empty = true;
    std::error_code ec;
    fs::directory_iterator it(target, ec), end;
    if (ec)
      return cannotWrite(target, ec.message());
    empty = it == end;
    auto has = [&](const char *name) {
      llvm::SmallString<256> p(target);
      path::append(p, name);
      return fs::exists(p);
    };
    if (!empty && !has("metrics.json") && !has("fdo.json") &&
        !has("sweep.json"))
      return cannotWrite(target,
                         "it exists and is not an accel output directory "
                         "(no metrics.json, fdo.json or sweep.json in it); "
                         "remove it or "
                         "choose another");
  }
  llvm::SmallString<256> parent(target);
  path::remove_filename(parent);
  if (!parent.empty())
    if (std::error_code ec = fs::create_directories(parent))
      return cannotWrite(target, "cannot create its parent: " + ec.message());
  llvm::SmallString<256> staging;
  if (std::error_code ec =
          fs::createUniqueDirectory(tmpPrefix(target), staging))
    return cannotWrite(target, "cannot create a staging directory beside "
                               "it: " +
                                   ec.message());
  return StagedDirectory(target.str(), std::string(staging));
}

StagedDirectory::StagedDirectory(StagedDirectory &&other)
    : targetPath(std::move(other.targetPath)),
      staging(std::move(other.staging)), done(other.done) {
  other.done = true;
}

StagedDirectory::~StagedDirectory() {
  if (!done && !staging.empty())
    (void)fs::remove_directories(staging);
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
  if (!fs::exists(targetPath)) {
    if (std::error_code ec = fs::rename(staging, targetPath))
      return cannotWrite(targetPath, ec.message());
    done = true;
    return llvm::Error::success();
  }
  if (exchangePaths(staging, targetPath)) {
    // `staging` now holds the previous output.
    (void)fs::remove_directories(staging);
    done = true;
    return llvm::Error::success();
  }
  // No atomic exchange on this file system: move the old output aside
  // (a temporary the next run removes if this one is killed here), then
  // the new one in.
  std::string old = tmpPrefix(targetPath) + "-old";
  if (std::error_code ec = fs::rename(targetPath, old))
    return cannotWrite(targetPath, ec.message());
  if (std::error_code ec = fs::rename(staging, targetPath)) {
    (void)fs::rename(old, targetPath);
    return cannotWrite(targetPath, ec.message());
  }
  (void)fs::remove_directories(old);
  done = true;
  return llvm::Error::success();
}
