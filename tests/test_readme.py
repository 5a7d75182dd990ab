"""Every Python block of README.md, then of the guides in docs/ (in their order), runs as written, in one namespace."""

import re

import pytest
from conftest import REPO

GUIDES = (
    "docs/heads.md",
    "docs/zero-shot.md",
    "docs/sparse-dense.md",
    "docs/huge-label-sets.md",
    "docs/seeds.md",
    "docs/searches.md",
    "docs/serving.md",
    "docs/backends.md",
)  # the order of docs/index.md
PAGES = ("README.md", *GUIDES)  # the guides go on from the README's quick start
BLOCKS = [
    block for page in PAGES for block in re.findall(r"```python\n(.*?)```", (REPO / page).read_text(), flags=re.DOTALL)
]


def test_the_readme_has_python_blocks():
    assert len(BLOCKS) >= 5, len(BLOCKS)


@pytest.mark.slow
def test_every_readme_block_runs_in_order(tmp_path, monkeypatch, keras_as_users_run_it):
    monkeypatch.chdir(tmp_path)  # the blocks write gile.keras, served/ and artifacts/ where they run
    namespace = {"__name__": "readme"}
    for number, block in enumerate(BLOCKS, start=1):
        try:
            exec(compile(block, f"README.md / guides python block {number}", "exec"), namespace)
        except Exception as error:  # name the block that failed
            raise AssertionError(f"README python block {number} failed: {error!r}\n{block}") from error
    # What the blocks promise: the trained model and the served SavedModel give the same scores.
    import numpy as np
    import tensorflow as tf

    served = namespace["served"].serve(tf.constant(namespace["texts"]))["scores"].numpy()
    in_memory = tf.sigmoid(
        namespace["model"].predict(namespace["vectorizer"](tf.constant(namespace["texts"])), verbose=0)
    )
    np.testing.assert_allclose(served, in_memory.numpy(), atol=1e-5)
    assert (tmp_path / "gile.keras").is_file()


def test_every_guide_runs_and_in_the_order_the_index_lists_them():
    linked = re.findall(r"^- \[[^\]]*\]\(([\w-]+\.md)\)", (REPO / "docs" / "index.md").read_text(), flags=re.M)
    assert tuple(f"docs/{page}" for page in linked) == GUIDES
    on_disk = {f"docs/{path.name}" for path in (REPO / "docs").glob("*.md")} - {"docs/index.md"}
    assert on_disk == set(GUIDES), "a guide in docs/ that the index does not list would not run"
