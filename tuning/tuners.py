"""The KerasTuner search algorithm of the scripts in tuning/: `--tuner random | bayesian | hyperband`.

Random search and Bayesian optimisation run `--trials` trials of `--epochs` epochs each
(Bayesian optimisation starts from random points, then fits a Gaussian process to the scores).
Hyperband ignores `--trials`: it starts many configurations for a few epochs and trains the best
third (`--hyperband-factor` 3) further, up to `--epochs`, so a budget of epochs spreads over more
configurations than a fixed number of full trials would.
"""

import tempfile

TUNERS = ("random", "bayesian", "hyperband")


def add_tuner_arguments(parser, default="random", trials=6):
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
    import keras_tuner  # here, so that `search_budget` (read by benchmarks.readme) imports no TensorFlow

    common = dict(
        objective=objective,
        seed=args.seed,
        overwrite=True,
        directory=directory or tempfile.mkdtemp(),
        project_name=project_name,
    )
    if args.tuner == "hyperband":
        return keras_tuner.Hyperband(hypermodel, max_epochs=args.epochs, factor=args.hyperband_factor, **common)
    search = keras_tuner.RandomSearch if args.tuner == "random" else keras_tuner.BayesianOptimization
    return search(hypermodel, max_trials=args.trials, **common)


def search_budget(config):
    """`"6 trials × 3 epochs, random search"`: the budget of a recorded search (its report's `config`).

    Searches recorded before `--tuner` existed were random searches.
    """
    tuner = config.get("tuner", "random")
    if tuner == "hyperband":
        return f"Hyperband, at most {config['epochs']} epochs a configuration, factor {config['hyperband_factor']}"
    name = "random search" if tuner == "random" else "Bayesian optimisation"
    return f"{config['trials']} trials × {config['epochs']} epoch(s), {name}"
