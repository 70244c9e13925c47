"""accel's lit test format (test/lit.cfg.py).

RUN lines run in lit's internal shell, and in bash for a test that says
`REQUIRES: shell` (subshells, `$?`, loops, `ulimit` for many commands,
signals). The internal shell starts no bash per test, forks none per
command and runs `not` in process: on 2 vCPUs, where a fork costs page
faults at about 12 us each, that is about 15% of check-accel's CPU
(issue 34). lit.cfg.py adds the `shell` feature when bash is on PATH.
"""

import re

import lit.formats
import lit.TestRunner

_REQUIRES_SHELL = re.compile(r"\bREQUIRES:.*\bshell\b")


def requires_shell(path):
    """Whether the test file at `path` has a REQUIRES line naming `shell`."""
    with open(path, encoding="utf-8", errors="replace") as f:
        return any(_REQUIRES_SHELL.search(line) for line in f)


class AccelShTest(lit.formats.ShTest):
    """lit's ShTest, choosing the shell per test (see the module's doc).
    execute_external=True runs every test in bash, as lit's default does."""

    def execute(self, test, litConfig):
        external = self.execute_external or requires_shell(test.getSourcePath())
        return lit.TestRunner.executeShTest(
            test, litConfig, external, self.extra_substitutions,
            self.preamble_commands)
