"""The shared flags of every benchmark and search script (benchmarks/benchmark.py)."""

import importlib
import pathlib
import tempfile

import pytest

from benchmarks.benchmark import TUNING_RESULTS, Arguments, seed_range
from benchmarks.report import REPO, RESULTS

SCRIPTS = sorted(
    f"{path.parent.name}.{path.stem}"
    for folder in ("benchmarks", "tuning")
    for path in (REPO / folder).glob("*.py")
    if "\ndef parse_args" in path.read_text()
)


def test_the_shared_flags_their_defaults_and_a_quick_run_that_never_replaces_results():
    parser = Arguments("example", "doc", seeds=3, epochs=10, batch_size=32, data_dir="reuters21578")
    args = parser.parse_args([])
    assert (args.output, args.seed, args.seeds, args.epochs, args.batch_size, args.data_dir, args.quick) == (
        str(RESULTS / "example.json"), 0, 3, 10, 32, None, False
    )  # fmt: skip
    assert list(seed_range(parser.parse_args(["--seed", "4", "--seeds", "2"]))) == [4, 5]
    quick = parser.parse_args(["--quick"])
    assert pathlib.Path(quick.output).parent == pathlib.Path(tempfile.gettempdir())
    assert parser.parse_args(["--quick", "--output", "x.json"]).output == "x.json"


def test_splits_instead_of_seeds_and_what_quick_sets():
    parser = Arguments("zs", "doc", splits=None, epochs=2, quick={"splits": 1, "epochs": 1})
    args = parser.parse_args([])
    assert (args.first_split, args.splits, args.epochs) == (0, None, 2) and not hasattr(args, "seed")
    assert (parser.parse_args(["--quick"]).splits, parser.parse_args(["--quick"]).epochs) == (1, 1)


def test_an_unknown_choice_names_the_option_the_values_and_the_choices(capsys):
    parser = Arguments("example", "doc")
    parser.add_argument("--models", default="a")
    with pytest.raises(SystemExit):
        parser.check_choices(parser.parse_args(["--models", "a,zz"]), models=("a", "b"))
    assert "--models: unknown ['zz']; choose from a,b" in capsys.readouterr().err


@pytest.mark.parametrize("name", SCRIPTS)
def test_every_script_parses_through_the_shared_flags(name):
    module = importlib.import_module(name)
    argv = ["--bundle", "x"] if name == "benchmarks.zero_shot_fine_tune" else []
    args = module.parse_args(argv)
    folder = TUNING_RESULTS if name.startswith("tuning.") else RESULTS
    assert pathlib.Path(args.output).parent == folder
    assert pathlib.Path(module.parse_args(["--quick", *argv]).output).parent == pathlib.Path(tempfile.gettempdir())
