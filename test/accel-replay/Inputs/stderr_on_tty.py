"""Runs a command with its stderr on a pseudo-terminal (stdout to /dev/null)
and prints what the command wrote there, with the terminal's controls made
visible: carriage return as <CR>, "erase to end of line" (ESC [ K) as <EL>,
and one line per newline. Exits with the command's exit code."""
import os
import pty
import subprocess
import sys


def main():
    master, slave = pty.openpty()
    proc = subprocess.Popen(sys.argv[1:], stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=slave)
    os.close(slave)
    data = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:  # EIO: the command closed its end
            break
        if not chunk:
            break
        data += chunk
    rc = proc.wait()
    text = data.decode("utf-8", "replace").replace("\r\n", "\n")
    text = text.replace("\r", "<CR>").replace("\x1b[K", "<EL>")
    sys.stdout.write(text)
    sys.exit(rc)


if __name__ == "__main__":
    main()
