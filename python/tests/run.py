#!/usr/bin/env python3
"""Runs the xrl_gym test suite (every test_*.py beside this file) and ends
with one summary line, "python: N passed, N failed"; exits non-zero on a
failure, an error or when no test ran."""

import pathlib
import sys
import unittest

here = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(here))
sys.path.insert(0, str(here.parent))
suite = unittest.defaultTestLoader.discover(str(here), top_level_dir=str(here))
result = unittest.TextTestRunner(verbosity=1).run(suite)
failed = len(result.failures) + len(result.errors) + len(result.unexpectedSuccesses)
skipped = len(result.skipped)
passed = result.testsRun - failed - skipped
print(f"python: {passed} passed, {failed} failed" + (f", {skipped} skipped" if skipped else ""))
sys.exit(1 if failed or result.testsRun == 0 else 0)
