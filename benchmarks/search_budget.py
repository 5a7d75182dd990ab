"""The budget of a KerasTuner search in words, shared by the search scripts (tuning/) and the tables that list
their results (`benchmarks.readme`). It lives here because the search scripts build on the benchmarks' shared
pieces, never the reverse: benchmarks/ imports nothing from tuning/."""


def bayesian_initial_points(trials):
    """Random trials before the Gaussian process proposes: half the budget, at least 2 (the fit needs two)."""
    return min(trials, max(2, trials // 2))


def search_budget(config):
    """`"6 trials × 3 epochs, random search"`: the budget of a recorded search (its report's `config`).

    Searches recorded before `--tuner` existed were random searches.
    """
    tuner = config.get("tuner", "random")
    if tuner == "hyperband":
        return f"Hyperband, at most {config['epochs']} epochs a configuration, factor {config['hyperband_factor']}"
    if tuner == "random":
        return f"{config['trials']} trials × {config['epochs']} epoch(s), random search"
    guided = config["trials"] - bayesian_initial_points(config["trials"])
    return f"{config['trials']} trials × {config['epochs']} epoch(s), Bayesian optimisation ({guided} proposed by it)"
