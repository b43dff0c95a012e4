# SPDX-License-Identifier: GPL-2.0
"""Run the runner's unit tests and print TAP (one line per test)."""

import sys
import unittest


class TapResult(unittest.TextTestResult):
    def __init__(self, *a, **k):
        super().__init__(*a, **k)
        self.n = 0

    def _line(self, ok, test, note=""):
        self.n += 1
        print(f"{'ok' if ok else 'not ok'} {self.n} - {test.id()}{note}",
              flush=True)

    def addSuccess(self, test):
        super().addSuccess(test)
        self._line(True, test)

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self._line(False, test)
        print("# " + self._exc_info_to_string(err, test)
              .replace("\n", "\n# "))

    addError = addFailure

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self._line(True, test, f" # SKIP {reason}")


def main():
    suite = unittest.defaultTestLoader.discover(
        "congavoid_exp.tests", pattern="test_*.py")
    print(f"1..{suite.countTestCases()}")
    runner = unittest.TextTestRunner(stream=open("/dev/null", "w"),
                                     resultclass=TapResult)
    res = runner.run(suite)
    return 0 if res.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
