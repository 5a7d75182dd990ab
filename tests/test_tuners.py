"""The search algorithm chosen by `--tuner` in the scripts of tuning/."""

import argparse

import keras
import keras_tuner
import numpy as np
import pytest

from benchmarks.search_budget import search_budget
from tuning.tuners import TUNERS, add_tuner_arguments, make_tuner

pytestmark = pytest.mark.usefixtures("tf_functions_run_eagerly")  # eager: see the fixture


def _args(*argv):
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--seed", type=int, default=0)
    add_tuner_arguments(parser)
    return parser.parse_args(argv)


def _build(hp):
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(hp.Choice("units", [2, 4])), keras.layers.Dense(1)])
    model.compile("adam", "mse")
    return model


@pytest.mark.parametrize(
    "name, cls",
    [
        ("random", keras_tuner.RandomSearch),
        ("bayesian", keras_tuner.BayesianOptimization),
        ("hyperband", keras_tuner.Hyperband),
    ],
)
def test_make_tuner_builds_the_named_search_with_the_scripts_budget(tmp_path, name, cls):
    args = _args("--tuner", name, "--trials", "5", "--epochs", "9", "--seed", "7")
    tuner = make_tuner(args, _build, "val_loss", "project", directory=str(tmp_path))
    assert isinstance(tuner, cls)
    assert tuner.oracle.seed == 7 and tuner.oracle.objective.name == "val_loss"
    if name == "hyperband":
        assert tuner.oracle.max_epochs == 9 and tuner.oracle.factor == 3
    else:
        assert tuner.oracle.max_trials == 5
    if name == "bayesian":
        assert tuner.oracle.num_initial_points == 2  # 3 of the 5 trials proposed by the Gaussian process


@pytest.mark.slow  # make test, not the edit loop (make test-fast)
def test_bayesian_optimisation_proposes_trials_after_the_random_ones(tmp_path):
    """With KerasTuner's default (3 random points per hyperparameter) all 4 trials here would be random."""
    args = _args("--tuner", "bayesian", "--trials", "4", "--seed", "0")

    def build(hp):
        for name in ("a", "b", "c"):
            hp.Float(name, 0.0, 1.0)
        return _build(hp)

    tuner = make_tuner(args, build, "val_loss", "project", directory=str(tmp_path))
    random_trials = []
    original = tuner.oracle._random_populate_space
    tuner.oracle._random_populate_space = lambda: random_trials.append(1) or original()
    x = np.random.default_rng(0).normal(size=(8, 3)).astype("float32")
    tuner.search(x, x[:, :1], validation_data=(x, x[:, :1]), epochs=1, verbose=0)
    assert len(tuner.oracle.trials) == 4 and len(random_trials) == 2, random_trials


def test_default_is_random_search_as_the_recorded_searches_ran():
    assert _args().tuner == "random" and set(TUNERS) == {"random", "bayesian", "hyperband"}
    with pytest.raises(SystemExit):
        _args("--tuner", "grid")


def test_hyperband_trains_configurations_for_at_most_max_epochs(tmp_path):
    args = _args("--tuner", "hyperband", "--epochs", "3")
    tuner = make_tuner(args, _build, "val_loss", "project", directory=str(tmp_path))
    x = np.random.default_rng(0).normal(size=(16, 3)).astype("float32")
    tuner.search(x, x[:, :1], validation_data=(x, x[:, :1]), epochs=3, verbose=0)
    epochs = [t.hyperparameters.values["tuner/epochs"] for t in tuner.oracle.trials.values()]
    assert len(epochs) > 1 and max(epochs) <= 3 and min(epochs) < 3, epochs


def test_search_budget_names_the_algorithm_and_reads_old_reports_as_random():
    assert search_budget({"trials": 4, "epochs": 1}) == "4 trials × 1 epoch(s), random search"
    assert (
        search_budget({"tuner": "bayesian", "trials": 6, "epochs": 3})
        == "6 trials × 3 epoch(s), Bayesian optimisation (3 proposed by it)"
    )
    assert search_budget({"tuner": "bayesian", "trials": 1, "epochs": 1}).endswith("(0 proposed by it)")
    assert (
        search_budget({"tuner": "hyperband", "trials": 6, "epochs": 9, "hyperband_factor": 3})
        == "Hyperband, at most 9 epochs a configuration, factor 3"
    )
