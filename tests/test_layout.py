"""Tests are found from the module's name: every public module has tests/test_<module>.py."""

import pathlib

REPO = pathlib.Path(__file__).resolve().parents[1]

# Modules tested only through the modules built on them (say why).
COVERED_ELSEWHERE = {
    # The base class of OneError and the ranking metrics: every metric's tests exercise it.
    "document_average_metric": "tests/test_one_error.py, test_ranking_loss.py, test_label_ranking_average_precision.py",
    # CNLE's encoder runs inside AdaptiveLabelDecoder(encoder=...): its outputs are only observable through
    # the decoder (and the layer-test cases of both), in test_adaptive_label_decoder.py and test_cnle.py.
    "co_attentive_encoder": "tests/test_adaptive_label_decoder.py, tests/test_cnle.py, tests/layer_cases.py",
}


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
