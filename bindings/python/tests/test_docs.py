"""The docstrings' examples run (``doctest``) against the package under test."""

import doctest

import pytest

import opguard
import opguard.errors
import opguard.seam
import opguard.arrow
import opguard.tools


@pytest.mark.parametrize("module", [opguard, opguard.errors, opguard.seam, opguard.arrow, opguard.tools],
                         ids=lambda m: m.__name__)
def test_docstring_examples_run(module):
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
    # Every public module shows at least one example.
    assert result.attempted + sum(
        1 for t in doctest.DocTestFinder().find(module) if t.examples) > 0
