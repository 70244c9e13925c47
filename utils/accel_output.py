"""The output rule of docs/output.md for accel's Python scripts
(accel-plot.py, accel-sweep-plot.py): one error line and exit 1, pictures
written through a temporary beside them, and SIGINT, SIGTERM and SIGHUP
unwinding the script so that no temporary is left. Installed (and copied
into the build's bin/) next to the scripts, which import it from their own
directory.
"""
import os
import signal
import sys
import tempfile

# The program name of error lines; each script sets it.
PROG = "accel"


def fail(msg):
    """One error line `PROG: error: MSG` on stderr, then exit 1."""
    print(PROG + ": error: " + msg, file=sys.stderr)
    sys.exit(1)


class Interrupted(BaseException):
    """SIGINT, SIGTERM or SIGHUP, raised so that temporaries are removed
    on the way out; the process then dies of the signal."""

    def __init__(self, signum):
        super().__init__(signum)
        self.signum = signum


def on_signal(signum, _frame):
    raise Interrupted(signum)


def run_main(main):
    """main(), with SIGINT, SIGTERM and SIGHUP unwinding it (a signal the
    process started ignoring stays ignored) and then killing the process
    with the same signal."""
    for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        if signal.getsignal(s) is not signal.SIG_IGN:
            signal.signal(s, on_signal)
    try:
        main()
    except Interrupted as e:
        signal.signal(e.signum, signal.SIG_DFL)
        os.kill(os.getpid(), e.signum)
        raise SystemExit(128 + e.signum)


def current_umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask


def check_writable(target):
    """Fails (one error line, exit 1) with the error write_replacing would
    give for `target` when it is already known, before the work of drawing
    (importing matplotlib and rendering take a second): `target` is a
    directory, or its folder is missing, not a directory or not writable.
    Other errors (a full disk, a file size limit) still come from
    write_replacing."""
    import errno
    import stat
    folder = os.path.dirname(target) or "."
    try:
        mode = os.stat(folder).st_mode  # ENOENT, ENOTDIR (a file above)
    except OSError as e:
        code = e.errno
    else:
        if not stat.S_ISDIR(mode):
            code = errno.ENOTDIR
        elif os.path.isdir(target):
            code = errno.EISDIR
        elif not os.access(folder, os.W_OK | os.X_OK):
            code = errno.EACCES
        else:
            return
    fail("cannot write %s: %s" % (target, os.strerror(code)))


def write_replacing(target, write):
    """Calls write(f) on a temporary file beside `target` and renames it over
    `target`; on any error (one error line, exit 1) or signal the temporary
    is removed and `target` is left as it was."""
    try:
        fd, tmp = tempfile.mkstemp(
            prefix=os.path.basename(target) + ".accel-tmp-%d-" % os.getpid(),
            dir=os.path.dirname(target) or ".")
    except OSError as e:
        fail("cannot write %s: %s" % (target, e.strerror))
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
        os.chmod(tmp, 0o666 & ~current_umask())
        os.replace(tmp, target)  # never a half-written picture
    except BaseException as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(e, OSError):
            fail("cannot write %s: %s" % (target, e.strerror or e))
        raise
