//===- OutputInternal.h - The commit rule's shared state --------*- C++ -*-===//
//
// Private to lib/Support: what the commits (Output.cpp), the registry of
// live temporaries and its signal handler (OutputRegistry.cpp) and the
// removal that never follows a symbolic link (RemoveTree.cpp) share.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_LIB_SUPPORT_OUTPUTINTERNAL_H
#define ACCEL_LIB_SUPPORT_OUTPUTINTERNAL_H

#include "llvm/ADT/StringRef.h"

namespace accel {
namespace detail {

/// removeTree on a C string (async-signal-safe on Linux); 0 or an errno.
int removeTreeRaw(const char *p);

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

/// Enters `p` in the registry of live paths as a `kind` (before it is
/// created); when the registry is full, registryOverflowed() turns true.
void registerLive(llvm::StringRef p, LiveKind kind);
/// Leaves `p` (after it was renamed or removed).
void unregisterLive(llvm::StringRef p);
/// Whether `p` is in the registry.
bool isLive(llvm::StringRef p);
/// Whether a path could not be entered (more than the registry holds at
/// once): then removeStaleTemporaries no longer treats this process's
/// unregistered temporaries as stale.
bool registryOverflowed();

/// The fallback commit (no RENAME_EXCHANGE) moves the previous output at
/// `target` aside to `old`: until clearPendingRestore, the signal handler
/// moves it back if the new one is not there yet. Both strings must
/// outlive that.
void setPendingRestore(const char *old, const char *target);
void clearPendingRestore();

} // namespace detail
} // namespace accel

#endif // ACCEL_LIB_SUPPORT_OUTPUTINTERNAL_H
