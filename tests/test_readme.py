"""Every Python block of README.md, then of docs/guide.md, runs as written, in order, in one namespace."""

import re

import pytest
from conftest import REPO

PAGES = ("README.md", "docs/guide.md")  # the guide goes on from the README's quick start
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
            exec(compile(block, f"README.md / docs/guide.md python block {number}", "exec"), namespace)
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
