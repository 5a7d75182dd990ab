"""The public API is a decision: `tests/public_api.txt` lists every name in a subpackage's `__all__`.

Adding or removing a public name fails here until the listing says so:
`python tests/test_public_api.py` rewrites it from the code.
"""

import importlib
import inspect
import pathlib
import subprocess
import sys

LISTING = pathlib.Path(__file__).with_name("public_api.txt")
REGENERATE = "python tests/test_public_api.py"


def public_names():
    """`keras_labelemb.<subpackage>.<name>` for every name of every subpackage's `__all__`, sorted."""
    import keras_labelemb

    names = []
    for subpackage in keras_labelemb.__all__:
        module = importlib.import_module(f"keras_labelemb.{subpackage}")
        names += [f"keras_labelemb.{subpackage}.{name}" for name in module.__all__]
    return sorted(names)


def listed():
    return [line for line in LISTING.read_text().splitlines() if line]


def test_the_public_names_are_the_listed_ones():
    code, file = set(public_names()), set(listed())
    assert code == file, (
        f"public names added: {sorted(code - file)}; removed: {sorted(file - code)}. If that is the decision, "
        f"run `{REGENERATE}` and commit tests/public_api.txt"
    )


def test_the_listing_is_sorted_without_duplicates_and_stays_small():
    names = listed()
    assert names == sorted(set(names))
    assert len(names) <= 90  # issue 57: about 80; growth past this is a decision for the listing's reviewers


def test_every_listed_name_resolves_and_has_a_docstring():
    for name in listed():
        module, attribute = name.rsplit(".", 1)
        value = getattr(importlib.import_module(module), attribute)
        if inspect.isclass(value) or inspect.isfunction(value):
            assert inspect.getdoc(value), f"{name} has no docstring"


def test_importing_the_package_leaves_the_test_helpers_out():
    code = (
        "import sys, keras_labelemb\n"
        "assert 'keras_labelemb.testing' not in sys.modules, sorted(m for m in sys.modules if 'keras_labelemb' in m)\n"
        "from keras_labelemb.testing import run_layer_test, run_task_test\n"
        "print('ok')\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0 and run.stdout.strip() == "ok", run.stderr[-2000:]


if __name__ == "__main__":
    LISTING.write_text("\n".join(public_names()) + "\n")
    print(f"wrote {LISTING} ({len(public_names())} names)")
