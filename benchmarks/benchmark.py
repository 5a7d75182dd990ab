"""The one shape of a benchmark: its shared flags, its loop over seeds, its report and the rows it contributes.

A benchmark is one module `benchmarks/<name>.py` (a search, `tuning/<name>.py`) with its test:

    from benchmarks.benchmark import Arguments, seed_range
    from benchmarks.report import write_report

    def parse_args(argv=None):
        p = Arguments("my_benchmark", __doc__, seeds=3, epochs=10, batch_size=32, data_dir="reuters21578")
        p.add_argument("--units", type=int, default=128)  # its own flags beside the shared ones
        return p.parse_args(argv)

    def rows(report):  # optional: what the summary tables show of a run, read from its report alone
        return {"summary": [Row(...)]}

    def main(argv=None):
        args, start = parse_args(argv), time.time()
        runs = [run(args, seed) for seed in seed_range(args)]  # the baselines run here too, same data
        write_report(args.output, "My benchmark", "benchmarks.my_benchmark", args, argv, results, summary,
                     table, start, rows=rows)

`write_report` stores `rows(report)` in the JSON; `python -m benchmarks.readme` collects the rows of every
results file it finds (no list of benchmarks anywhere), and a test checks that each file's stored rows are
what its module's `rows` gives today.

Shared flags (each only where the benchmark asks for it): `--output` (default
`benchmarks/results/<name>.json`; with `--quick`, a file in the temporary folder, so a check never replaces
real results), `--quick`, `--seed` (the first seed) and `--seeds` (how many: seed, seed + 1, ...), or
`--first-split` and `--splits` for benchmarks that loop over label splits, `--epochs`, `--batch-size`,
`--data-dir` (default `$KERAS_LABELEMB_DATA/<folder>`).
"""

import argparse
import pathlib
import tempfile

from benchmarks.report import REPO, RESULTS, relative

TUNING_RESULTS = REPO / "tuning" / "results"


class Arguments(argparse.ArgumentParser):
    """An `argparse.ArgumentParser` holding a benchmark's shared flags; the benchmark adds its own.

    Args:
        name: the results file's stem (`benchmarks/results/<name>.json`).
        description: the module's docstring (shown by `--help`).
        seeds: add `--seed` (0) and `--seeds` with this default count; `None`: `--seed` alone (always there
            unless `splits` is given).
        splits: add `--first-split` and `--splits` with this default (`None` as the default is allowed:
            the benchmark's own per-dataset counts); given, no `--seed`.
        first_split: the default of `--first-split` (`None`: the benchmark's own per-dataset seeds).
        epochs, batch_size: add `--epochs` / `--batch-size` with this default.
        data_dir: add `--data-dir`, naming the folder under `$KERAS_LABELEMB_DATA` it defaults to (`""`: the
            folder of the datasets' folders, for a benchmark of several datasets).
        results: the folder of the results file (`TUNING_RESULTS` for a search).
        quick: `{option: value}` that `--quick` sets (a benchmark with more to shrink does it after parsing).
    """

    NO_SPLITS = object()

    def __init__(
        self,
        name,
        description,
        *,
        seeds=None,
        splits=NO_SPLITS,
        first_split=0,
        epochs=None,
        batch_size=None,
        data_dir=None,
        results=RESULTS,
        quick=None,
    ):
        super().__init__(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
        self.name, self.results, self.quick = name, pathlib.Path(results), dict(quick or {})
        self.add_argument("--output", default=None, help=f"JSON path (default {relative(self.default_output)})")
        self.add_argument("--quick", action="store_true", help="tiny sizes: checks the script end to end")
        if splits is not Arguments.NO_SPLITS:
            self.add_argument("--first-split", type=int, default=first_split, help="the first split's seed")
            self.add_argument("--splits", type=int, default=splits, help="label splits: first-split, + 1, ...")
        else:
            self.add_argument("--seed", type=int, default=0, help="the first seed (data split, initialisation)")
        if seeds is not None:
            self.add_argument("--seeds", type=int, default=seeds, help="runs: seed, seed + 1, ... (mean ± std)")
        if epochs is not None:
            self.add_argument("--epochs", type=int, default=epochs)
        if batch_size is not None:
            self.add_argument("--batch-size", type=int, default=batch_size)
        if data_dir is not None:
            where = f"$KERAS_LABELEMB_DATA/{data_dir}" if data_dir else "$KERAS_LABELEMB_DATA"
            what = "the dataset's folder" if data_dir else "the folder holding the datasets' folders"
            self.add_argument("--data-dir", default=None, help=f"{what} (default: {where})")

    @property
    def default_output(self):
        return self.results / f"{self.name}.json"

    def parse_args(self, args=None, namespace=None):
        parsed = super().parse_args(args, namespace)
        if parsed.quick:
            for key, value in self.quick.items():
                setattr(parsed, key, value)
        if parsed.output is None:
            quick = pathlib.Path(tempfile.gettempdir()) / f"{self.name}_quick.json"
            parsed.output = str(quick if parsed.quick else self.default_output)
        return parsed

    def check_choices(self, args, **known):
        """Exits with a usage error naming the option, the unknown values and the choices, for comma-separated
        options: `check_choices(args, models=MODELS)` checks `args.models` (`--models`)."""
        for key, choices in known.items():
            unknown = sorted(set(getattr(args, key).split(",")) - set(choices))
            if unknown:
                self.error(f"--{key.replace('_', '-')}: unknown {unknown}; choose from {','.join(choices)}")


def seed_range(args):
    """The seeds of a run: `--seed`, `--seed + 1`, ... (`--seeds` of them)."""
    return range(args.seed, args.seed + args.seeds)
