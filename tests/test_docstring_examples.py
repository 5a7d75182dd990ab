"""Every `>>>` example in the library's docstrings runs and prints what it says."""

import doctest
import importlib
import pathlib
import pkgutil

import pytest

import keras_labelemb

PACKAGE_DIR = pathlib.Path(keras_labelemb.__file__).parent
MODULES = sorted(
    info.name for info in pkgutil.walk_packages([str(PACKAGE_DIR)], prefix="keras_labelemb.") if not info.ispkg
)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name):
    module = importlib.import_module(name)
    import keras
    import numpy as np

    keras.utils.set_random_seed(0)
    globs = {"np": np, "keras": keras, **vars(module)}
    # The layers' examples use the other public layers by name.
    import keras_labelemb.layers as layers

    globs.update({k: getattr(layers, k) for k in layers.__all__})
    result = doctest.testmod(
        module, globs=globs, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, verbose=False
    )
    assert result.failed == 0, f"{result.failed} of {result.attempted} docstring examples failed in {name}"
