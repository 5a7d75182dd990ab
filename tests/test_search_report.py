"""The trial table and the written, printed report shared by the search scripts in tuning/."""

import argparse
import json
import time
from types import SimpleNamespace

from tuning.search_report import report_search, trial_table


class _Oracle:
    def __init__(self, trials):
        self.trials = trials

    def get_best_trials(self, num_trials=1):
        return self.trials[:num_trials]


def _trial(values, score):
    return SimpleNamespace(hyperparameters=SimpleNamespace(values=values), score=score)


def test_trial_table_keeps_every_trial_in_the_oracle_order_under_the_named_score():
    tuner = SimpleNamespace(oracle=_Oracle([_trial({"units": 16}, 0.9), _trial({"units": 8}, 0.7)]))
    assert trial_table(tuner, "val_accuracy") == [
        {"hyperparameters": {"units": 16}, "val_accuracy": 0.9},
        {"hyperparameters": {"units": 8}, "val_accuracy": 0.7},
    ]
    tuner.oracle.trials.append(_trial({"units": 4}, 0.5))  # Hyperband: more trials than --trials
    assert [t["val_perplexity"] for t in trial_table(tuner, "val_perplexity")] == [0.9, 0.7, 0.5]


def test_report_search_writes_json_and_markdown_and_prints_the_lines(tmp_path, capsys):
    output = tmp_path / "search.json"
    args = argparse.Namespace(trials=2, output=str(output))
    lines = ["| a |", "", "Best: 1."]
    report = report_search(
        args, ["--quick"], "a search", "tuning.example", {"trials": []}, {"best": 1}, lines, time.time()
    )
    written = json.loads(output.read_text())
    assert written["results"] == {"trials": []} and written["summary"] == {"best": 1}
    assert written["benchmark"] == "a search" and "tuning.example" in written["command"]
    assert output.with_suffix(".md").read_text().endswith("\n\n| a |\n\nBest: 1.\n")
    assert report["wall_seconds"] == written["wall_seconds"]
    printed = capsys.readouterr().out
    assert printed == "| a |\n\nBest: 1.\n\nWall time " + f"{report['wall_seconds']:.0f} s. Results: {output}\n"
