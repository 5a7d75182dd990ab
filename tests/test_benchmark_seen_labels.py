"""benchmarks/seen_labels.py: the summary's keys and the noise rule's verdict in the README row."""

import json
import types

import pytest

from benchmarks import seen_labels


def report(svm, wide, deep, blend):
    task = types.SimpleNamespace(multi_label=True)
    runs = {
        "wide": [{"micro_f1": v, "seconds_to_best_epoch": 1.0} for v in wide],
        "bilstm_linear": [{"micro_f1": v, "seconds_to_best_epoch": 1.0} for v in deep],
        "blend_bilstm_linear": [{"micro_f1": v, "seconds_to_best_epoch": 2.0} for v in blend],
    }
    svm_runs = [{"micro_f1": v} for v in svm]
    summary = seen_labels.summarize(task, runs, svm_runs)
    return summary, {"summary": {"reuters": summary}, "results": {"reuters": {"runs": runs, "svm": svm_runs}}}


def test_summary_keys_and_a_met_verdict():
    summary, full = report([0.884, 0.889, 0.886], [0.881, 0.886, 0.884], [0.882, 0.880, 0.881], [0.891, 0.894, 0.892])
    assert {"svm", "wide", "deep", "wide_deep", "best", "best_model", "best_vs_svm"} <= set(summary)
    assert summary["best_model"] == "blend_bilstm_linear" and summary["best_vs_svm"]["met"]
    assert summary["wide_deep_vs_wide"]["met"] and summary["wide_deep_vs_bilstm_linear"]["met"]
    row = seen_labels.rows({**full, "config": {"word_vectors": "glove50"}})[0]
    assert "0.8923 ± 0.0015" in row["ours"] and "tuned tf-idf SVM 0.8863" in row["baseline"]
    assert "above the SVM (noise rule over seeds): met" in row["verdict"]


def test_a_gain_on_one_seed_of_three_is_not_met():
    summary, full = report([0.884, 0.889, 0.886], [0.881, 0.886, 0.884], [0.882, 0.880, 0.881], [0.890, 0.884, 0.883])
    assert not summary["best_vs_svm"]["met"]
    assert "**not met**" in seen_labels.rows({**full, "config": {"word_vectors": "glove50"}})[0]["verdict"]


def test_resume_keeps_the_seeds_of_a_run_with_the_same_settings(tmp_path):
    output = tmp_path / "seen_labels.json"
    first = seen_labels.parse_args(["--dataset", "newsgroups", "--models", "wide", "--output", str(output)])
    earlier = {
        "runs": {"wide": [{"error": 0.2, "seed": 0, "seconds_to_best_epoch": 1.0}]},
        "svm": [{"error": 0.2, "seed": 0}],
        "command": "python -m benchmarks.seen_labels --dataset newsgroups",
        "code_version": "abc1234",
        "config": json.loads(json.dumps(vars(first))),
    }
    output.write_text(json.dumps({"config": {}, "results": {"newsgroups": earlier}}))
    again = seen_labels.parse_args(["--dataset", "newsgroups", "--models", "wide", "--output", str(output), "--resume"])
    kept = seen_labels.resumed(again)
    assert [r["seed"] for r in kept["svm"]] == [0] and kept["code_version"] == "abc1234"
    other = seen_labels.parse_args(
        ["--dataset", "newsgroups", "--models", "wide", "--epochs", "3", "--output", str(output), "--resume"]
    )
    with pytest.raises(SystemExit, match="epochs"):
        seen_labels.resumed(other)
    more = seen_labels.parse_args(["--dataset", "newsgroups", "--output", str(output), "--resume"])
    with pytest.raises(SystemExit, match="models"):
        seen_labels.resumed(more)
    text = seen_labels.table(
        "newsgroups",
        {"metric": "error", "svm": 0.2},
        kept["runs"],
        kept["svm"],
        "python x",
        "def5678",
        {"seeds": [0], "command": "python y", "code_version": "abc1234"},
    )
    assert "seeds 0 kept from `python y` (code version abc1234)" in text
