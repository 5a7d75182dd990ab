"""`make docs`: the site (guides + API reference from the docstrings) builds in strict mode."""

import subprocess
import sys

import pytest
from conftest import REPO

sys.path.insert(0, str(REPO / "docs"))
from doctest_blocks import fence_doctests  # noqa: E402


def test_doctest_examples_are_fenced_as_code_and_prose_is_kept():
    text = "Scores labels.\n\n    >>> x = [[1, 2]]\n    >>> x[0][1:]\n    [2]\n\n    Then prose [a][b].\n"
    fenced = fence_doctests(text)
    assert fenced.splitlines() == [
        "Scores labels.",
        "",
        "    ```pycon",
        "    >>> x = [[1, 2]]",
        "    >>> x[0][1:]",
        "    [2]",
        "    ```",
        "",
        "    Then prose [a][b].",
    ]
    assert fence_doctests("No example.") == "No example."


@pytest.mark.slow
def test_the_site_builds_in_strict_mode(tmp_path):
    mkdocs = pytest.importorskip("mkdocs")  # the test extra installs it (`make test`)
    del mkdocs
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "--site-dir", str(tmp_path / "site")],
        cwd=REPO,
        capture_output=True,
        text=True,
        env={"NO_MKDOCS_2_WARNING": "1", "PATH": "/usr/bin:/bin"},
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    layers = (tmp_path / "site" / "reference" / "layers" / "index.html").read_text()
    for name in ("GileHead", "HierarchicalAttention", "LabelHead"):  # the reference documents the public layers
        assert f'id="keras_labelemb.layers.{name}"' in layers
    assert (
        'id="keras_labelemb.tasks.LabelClassifier"'
        in (tmp_path / "site" / "reference" / "tasks" / "index.html").read_text()
    )
