"""The docstrings' examples run (``doctest``) against the package under test."""

import doctest

import pytest

import opguard
import opguard.errors
import opguard.seam
import opguard.tools


@pytest.mark.parametrize("module", [opguard, opguard.errors, opguard.seam, opguard.tools],
                         ids=lambda m: m.__name__)
def test_docstring_examples_run(module):
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
    # Every public module shows at least one example.
    assert result.attempted + sum(
        1 for t in doctest.DocTestFinder().find(module) if t.examples) > 0


def test_the_readme_lists_every_function_once():
    """README.md's function list names each public function of the package
    exactly once (a merge once left it twice, half of it in pieces)."""
    import inspect
    import re
    from conftest import SOURCE

    readme = (SOURCE / "README.md").read_text(encoding="utf-8")
    paragraphs = [p for p in readme.split("\n\n") if p.startswith("Functions: ")]
    assert len(paragraphs) == 1, f"{len(paragraphs)} function lists"
    listed_part = paragraphs[0].split("Requests and values")[0]
    listed = [m.split("(")[0] for m in re.findall(r"`([a-z_]+(?:\([^`]*\))?)`", listed_part)]
    public = sorted(n for n in opguard.__all__ if inspect.isfunction(getattr(opguard, n)))
    assert sorted(listed) == public
    assert len(listed) == len(set(listed))
