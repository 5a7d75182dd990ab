"""Tests are found from the module's name: every public module has tests/test_<module>.py."""

import pathlib

REPO = pathlib.Path(__file__).resolve().parents[1]

# Modules covered only by cross-cutting test files, module name -> the files that cover it, each with a
# comment saying why it cannot have its own file. Empty: every public module has tests/test_<module>.py.
# (tests/test_layer_contracts.py, test_backends.py, test_readme.py and test_docstring_examples.py are
# cross-cutting: they run every layer / README block / docstring example, on top of the per-module files.)
COVERED_ELSEWHERE = {}


def public_modules():
    for path in sorted((REPO / "keras_labelemb").rglob("*.py")):
        if path.name != "__init__.py" and not path.name.startswith("_"):
            yield path


def test_every_public_module_has_a_test_file_named_after_it():
    missing = [
        str(path.relative_to(REPO))
        for path in public_modules()
        if path.stem not in COVERED_ELSEWHERE and not (REPO / "tests" / f"test_{path.stem}.py").is_file()
    ]
    assert not missing, f"add tests/test_<module>.py for: {missing}"


def test_the_allow_list_names_only_real_modules():
    stems = {path.stem for path in public_modules()}
    assert set(COVERED_ELSEWHERE) <= stems
    assert not [s for s in COVERED_ELSEWHERE if (REPO / "tests" / f"test_{s}.py").is_file()]
