"""Runs the Python client's tests (unittest discovery in tests/) and ends with the line
`python tests: N passed, N failed, N skipped`, which .ci/run folds into the suite's
closing line. Exit status 1 when any test failed or errored, or none passed.

    python3 clients/python/run_tests.py
"""

from __future__ import annotations

import sys
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent


class CountingResult(unittest.TextTestResult):
    passed = 0

    def addSuccess(self, test: unittest.TestCase) -> None:
        super().addSuccess(test)
        self.passed += 1

    def addExpectedFailure(self, test: unittest.TestCase, err: object) -> None:
        super().addExpectedFailure(test, err)  # type: ignore[arg-type]
        self.passed += 1


def main() -> int:
    sys.dont_write_bytecode = True  # no __pycache__ in the tree
    sys.path.insert(0, str(HERE))
    suite = unittest.defaultTestLoader.discover(str(HERE / "tests"), top_level_dir=str(HERE))
    runner = unittest.TextTestRunner(stream=sys.stdout, verbosity=2, resultclass=CountingResult)
    result = runner.run(suite)
    assert isinstance(result, CountingResult)
    # Errors include a failed setUpModule/setUpClass (then its tests never run).
    failed = len(result.failures) + len(result.errors) + len(result.unexpectedSuccesses)
    print(f"python tests: {result.passed} passed, {failed} failed, {len(result.skipped)} skipped", flush=True)
    return 0 if failed == 0 and result.passed > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
