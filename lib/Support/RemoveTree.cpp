//===- RemoveTree.cpp - Removal that never follows a symbolic link -------===//
//
// removeTree (Output.h) and its async-signal-safe core, removeTreeRaw,
// which the signal handler of OutputRegistry.cpp calls: openat,
// getdents64 and unlinkat only, never through a symbolic link, with a
// bounded stack however deep the tree.
//
//===----------------------------------------------------------------------===//

#include "OutputInternal.h"
#include "accel/Support/Output.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <system_error>
#include <unistd.h>
#ifdef __linux__
#include <sys/syscall.h>
#endif

using namespace accel;
using namespace accel::detail;

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

int detail::removeTreeRaw(const char *p) {
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
