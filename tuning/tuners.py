"""The KerasTuner search algorithm of the scripts in tuning/: `--tuner random | bayesian | hyperband`.

Random search and Bayesian optimisation run `--trials` trials of `--epochs` epochs each.
Bayesian optimisation starts from random points, then fits a Gaussian process to the scores
and proposes the rest: half the trials (at least 2) are random here. KerasTuner's own default,
3 random points per hyperparameter, would make every trial of a 2-core budget (4-6 trials
over 5 hyperparameters) random, a random search under another name.
Hyperband ignores `--trials`: it starts many configurations for a few epochs and trains the best
third (`--hyperband-factor` 3) further, up to `--epochs`, so a budget of epochs spreads over more
configurations than a fixed number of full trials would.
"""

import tempfile

from benchmarks.benchmark import TUNING_RESULTS, Arguments
from benchmarks.search_budget import bayesian_initial_points

TUNERS = ("random", "bayesian", "hyperband")


class SearchArguments(Arguments):
    """The flags of a search script: the benchmarks' shared ones (`--output` in `tuning/results/`, `--quick`,
    `--seed`, `--epochs` per trial, ...) and the tuner's `--trials`, `--tuner`, `--hyperband-factor`."""

    def __init__(self, name, description, *, epochs, final_epochs=None, trials=6, **shared):
        super().__init__(name, description, epochs=epochs, results=TUNING_RESULTS, **shared)
        add_tuner_arguments(self, trials=trials)
        if final_epochs is not None:
            self.add_argument(
                "--final-epochs", type=int, default=final_epochs, help="retraining of the best configuration"
            )


def add_tuner_arguments(parser, default="random", trials=6):
    """`--trials`, `--tuner` and `--hyperband-factor` on `parser`."""
    parser.add_argument("--trials", type=int, default=trials, help="random search and Bayesian optimisation")
    parser.add_argument(
        "--tuner",
        choices=TUNERS,
        default=default,
        help="search algorithm: random search, Bayesian optimisation, or Hyperband (which ignores --trials "
        "and trains each configuration for at most --epochs)",
    )
    parser.add_argument("--hyperband-factor", type=int, default=3, help="Hyperband's reduction factor")


def make_tuner(args, hypermodel, objective, project_name, directory=None):
    """The tuner `args.tuner` names, seeded with `args.seed`, writing under `directory` (a fresh temporary one)."""
    import keras_tuner  # here, so that reading `--help` imports no TensorFlow

    common = dict(
        objective=objective,
        seed=args.seed,
        overwrite=True,
        directory=directory or tempfile.mkdtemp(),
        project_name=project_name,
    )
    if args.tuner == "hyperband":
        return keras_tuner.Hyperband(hypermodel, max_epochs=args.epochs, factor=args.hyperband_factor, **common)
    if args.tuner == "bayesian":
        return keras_tuner.BayesianOptimization(
            hypermodel, max_trials=args.trials, num_initial_points=bayesian_initial_points(args.trials), **common
        )
    return keras_tuner.RandomSearch(hypermodel, max_trials=args.trials, **common)
