"""benchmarks/seen_labels.py: the summary's keys and the noise rule's verdict in the README row."""

import json
import types

import numpy as np
import pytest

from benchmarks import seen_labels


def runs_of(values, val=None):  # a model's per-seed reports; its validation score its test score unless given
    val = values if val is None else val
    return [{"micro_f1": v, "val_score": w, "seconds_to_best_epoch": 1.0} for v, w in zip(values, val)]


def report(svm, wide, deep, blend, **baselines):
    task = types.SimpleNamespace(multi_label=True)
    runs = {"wide": runs_of(wide), "bilstm_linear": runs_of(deep), "blend_bilstm_linear": runs_of(blend)}
    runs.update({name: runs_of(values) for name, values in baselines.items()})
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
    # A model added to the kept seeds may bring its own settings; the kept models' settings must hold.
    more = ["--dataset", "newsgroups", "--models", "wide,fine_tuned_minilm", "--output", str(output), "--resume"]
    assert seen_labels.resumed(seen_labels.parse_args([*more, "--minilm-epochs", "2"]))["kept_seeds"] == [0]
    with pytest.raises(SystemExit, match="units"):
        seen_labels.resumed(seen_labels.parse_args([*more, "--units", "64"]))
    fewer = seen_labels.parse_args(["--dataset", "newsgroups", "--models", "bilstm_linear", "--output", str(output)])
    with pytest.raises(SystemExit, match="models"):
        seen_labels.resumed(fewer)
    earlier["runs"]["fine_tuned_minilm"] = [{"error": 0.1, "seed": 0}]  # trained: its settings hold too
    output.write_text(json.dumps({"config": {}, "results": {"newsgroups": earlier}}))
    with pytest.raises(SystemExit, match="minilm_epochs"):
        seen_labels.resumed(seen_labels.parse_args([*more, "--minilm-epochs", "2"]))
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


def test_the_best_model_is_chosen_on_validation_and_baselines_are_never_chosen():
    task = types.SimpleNamespace(multi_label=True)
    runs = {
        "blend_bilstm_linear": runs_of([0.890, 0.891], val=[0.90, 0.90]),
        "blend_bilstm_gile": runs_of([0.895, 0.896], val=[0.89, 0.89]),  # better on test, worse on validation
        "bilstm_gile": [{"micro_f1": 0.99, "seconds_to_best_epoch": 1.0}] * 2,  # no validation score: never chosen
        "fine_tuned_minilm": runs_of([0.899, 0.90], val=[0.95, 0.95]),  # a baseline, however good
    }
    summary = seen_labels.summarize(task, runs, [{"micro_f1": 0.88}, {"micro_f1": 0.885}])
    assert summary["best_model"] == "blend_bilstm_linear" and summary["best_chosen_on"] == "mean validation score"
    assert summary["fine_tuned_minilm"] == pytest.approx(0.8995)
    assert (
        summary["best_vs_fine_tuned"]["mean_gain"] == pytest.approx(-0.009) and not summary["best_vs_fine_tuned"]["met"]
    )


def test_the_row_compares_the_best_model_with_fine_tuned_minilm_and_the_late_fusion():
    _, full = report(
        [0.884, 0.889, 0.886],
        [0.881, 0.886, 0.884],
        [0.882, 0.880, 0.881],
        [0.891, 0.894, 0.892],
        fine_tuned_minilm=[0.870, 0.875, 0.872],
        late_fusion=[0.890, 0.895, 0.893],
    )
    row = seen_labels.rows({**full, "config": {"word_vectors": "glove50"}})[0]
    assert "fine-tuned MiniLM 0.8723 ± 0.0025" in row["baseline"] and "SVM + BiLSTM late fusion" in row["baseline"]
    assert "above fine-tuned MiniLM (noise rule over seeds): met" in row["verdict"]
    assert "above the late fusion (noise rule over seeds): **not met**" in row["verdict"]


def test_late_fusion_mixes_the_svm_and_the_network_on_validation():
    rng = np.random.default_rng(0)
    y = {s: np.eye(3, dtype="float32")[rng.integers(0, 3, 40)] for s in ("val", "test")}  # one label each
    noise = {s: rng.normal(size=(40, 3)) for s in y}
    # The network's logits carry the targets, the SVM's scores noise: the mix must lean on the network.
    network = {s: 4 * y[s] - 2 + 0.1 * noise[s] for s in y}
    texts = {s: [f"{s} {i}" for i in range(40)] for s in y}
    task = types.SimpleNamespace(
        multi_label=True, y=y, texts=texts, inputs=lambda split, wide, deep: split, targets=lambda split: y[split]
    )
    task.score = lambda logits, threshold, split="test": seen_labels.Task.score(task, logits, threshold, split)
    decision = lambda batch: 10 * noise[batch[0].split()[0]]  # noqa: E731  (scaled: the mix divides by spread)
    _, fused = seen_labels.late_fusion(task, 0, network, decision, {"seconds_to_best_epoch": 1.0}, {"seconds": 2.0})
    assert fused["mix"] > 0.5 and fused["val_score"] == 1.0 and fused["seconds_to_best_epoch"] == 3.0
    assert fused["micro_f1"] > 0.9  # test: the mix and threshold of validation, on other noise


def test_the_learning_rate_grid_widens_past_an_edge_while_the_choice_sits_there():
    scores = {3e-5: 0.80, 1e-4: 0.82, 3e-4: 0.84, 9e-4: 0.85, 2.7e-3: 0.70}
    tried = {}
    for rate in seen_labels.widened([3e-5, 1e-4, 3e-4], tried):
        tried[str(rate)] = {"val_score": scores[rate]}
    assert [float(r) for r in tried] == [3e-5, 1e-4, 3e-4, 9e-4, 2.7e-3]  # 9e-4 at the edge: one more
    tried = {}
    for rate in seen_labels.widened([3e-5, 1e-4, 3e-4], tried):
        tried[str(rate)] = {"val_score": {3e-5: 0.9, 1e-5: 0.95, 3.33e-6: 0.96}.get(rate, 0.5)}
    assert [float(r) for r in tried] == [3e-5, 1e-4, 3e-4, 1e-5, 3.33e-6]  # at most WIDENINGS more
    tried = {}
    for rate in seen_labels.widened([1e-4], tried):  # a later seed's one rate: no grid to widen
        tried[str(rate)] = {"val_score": 0.9}
    assert list(tried) == ["0.0001"]


def test_resummarize_rebuilds_an_old_summary_from_its_runs_on_validation(tmp_path):
    runs = {
        "bilstm_linear": [{"micro_f1": v, "seconds_to_best_epoch": 1.0} for v in (0.86, 0.87, 0.86)],  # no val
        "bilstm_gile": [{"micro_f1": v, "seconds_to_best_epoch": 1.0} for v in (0.88, 0.88, 0.88)],
        "blend_bilstm_linear": runs_of([0.890, 0.891, 0.892], val=[0.91, 0.91, 0.91]),
        "blend_bilstm_gile": runs_of([0.895, 0.896, 0.897], val=[0.90, 0.90, 0.90]),  # the old choice, on test
    }
    svm = [{"micro_f1": 0.88, "seed": s} for s in range(3)]
    old = {"best_model": "blend_bilstm_gile", "serving": {"model": "blend_bilstm_gile", "ratio": 0.5}}
    report = {
        "command": "python -m benchmarks.seen_labels",
        "code_version": "abc1234",
        "config": {"word_vectors": "glove50"},
        "machine": {"cpu_count": 2},
        "wall_seconds": 10.0,
        "results": {"reuters": {"runs": runs, "svm": svm, "config": {"word_vectors": "glove50"}}},
        "summary": {"reuters": old},
    }
    output = tmp_path / "seen.json"
    output.write_text(json.dumps(report))
    seen_labels.main(["--resummarize", "--output", str(output)])
    rebuilt = json.loads(output.read_text())
    summary = rebuilt["summary"]["reuters"]
    assert summary["best_model"] == "blend_bilstm_linear" and summary["best_chosen_on"] == "mean validation score"
    assert summary["deep_model"] == "bilstm_linear"  # the chosen wide + deep model's own deep path
    assert summary["best_vs_svm"]["positive_seeds"] == 3 and summary["serving"] == old["serving"]
    assert rebuilt["rows"][0]["ours"].startswith("wide + deep (BiLSTM + linear head)")
    assert "above the SVM (noise rule over seeds): met" in rebuilt["rows"][0]["verdict"]
    assert output.with_suffix(".md").read_text().startswith("Command: `python -m benchmarks.seen_labels`")


def test_a_resumed_run_reuses_the_first_seeds_learning_rate():
    assert seen_labels.kept_learning_rate({"wide": []}) is None
    assert seen_labels.kept_learning_rate({"fine_tuned_minilm": []}) is None
    reports = [{"seed": 1, "learning_rate": 1e-4}, {"seed": 0, "learning_rate": 3e-5}]
    assert seen_labels.kept_learning_rate({"fine_tuned_minilm": reports}) == 3e-5


def test_a_run_saved_between_seeds_compares_the_seeds_both_models_hold():
    """Saved after seed 0 of a resumed run that adds a model: the added model has one seed, the rest three.
    The summary pairs by seed (one common seed is no comparison) and never picks the partial model as best."""
    task = types.SimpleNamespace(multi_label=True)
    seeded = lambda values, val=None: [dict(r, seed=i) for i, r in enumerate(runs_of(values, val))]  # noqa: E731
    runs = {
        "blend_bilstm_linear": seeded([0.890, 0.891, 0.893]),
        "wide": seeded([0.880, 0.881, 0.882]),
        "fine_tuned_minilm": seeded([0.899]),
        "late_fusion_minilm": seeded([0.91], val=[0.99]),  # best on validation, but one seed of three
        "bilstm_linear": [],
    }
    svm = [{"micro_f1": v, "seed": i} for i, v in enumerate([0.884, 0.889, 0.886])]
    summary = seen_labels.summarize(task, runs, svm)
    assert summary["best_model"] == "blend_bilstm_linear" and "best_vs_svm" in summary
    assert summary["fine_tuned_minilm"] == pytest.approx(0.899) and "best_vs_fine_tuned" not in summary
    runs["fine_tuned_minilm"] += seeded([0.0, 0.87, 0.88])[1:]
    summary = seen_labels.summarize(task, runs, svm)
    assert summary["best_vs_fine_tuned"]["mean_gain"] == pytest.approx((0.890 + 0.891 + 0.893 - 0.899 - 1.75) / 3)


def test_a_fine_tuned_run_is_kept_with_its_settings_and_reused(tmp_path, monkeypatch):
    monkeypatch.setattr(seen_labels, "LOGITS", str(tmp_path))
    args = seen_labels.parse_args(["--dataset", "reuters"])
    task = types.SimpleNamespace(args=args)
    logits = {"val": np.ones((2, 3), "float32"), "test": np.zeros((4, 3), "float32")}
    stored = {"report": {"micro_f1": 0.5}, "settings": seen_labels.fine_tuning_settings(task, (3e-5,))}
    np.savez(seen_labels.fine_tuned_path(task, 1), **logits, stored=json.dumps(stored))
    assert seen_labels.kept_fine_tuned(task, 1, (3e-5,)) == {"micro_f1": 0.5}
    np.testing.assert_array_equal(task.minilm_logits["test"], logits["test"])
    assert seen_labels.kept_fine_tuned(task, 1, (1e-4,)) is None  # another grid: trained again
    assert seen_labels.kept_fine_tuned(task, 0, (3e-5,)) is None  # no file
    quick = types.SimpleNamespace(args=seen_labels.parse_args(["--dataset", "reuters", "--quick"]))
    assert seen_labels.kept_fine_tuned(quick, 1, (3e-5,)) is None  # --quick never reuses
