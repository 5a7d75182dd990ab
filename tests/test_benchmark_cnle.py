"""benchmarks.cnle: its summary keys, tables and README rows, read from a results mapping (no training here)."""

import json
from types import SimpleNamespace

import numpy as np
import pytest

from benchmarks import cnle


def model_run(score, metric):
    return {
        "word_vectors": "glove50",
        metric: score,
        f"val_{metric}": score + 0.01,
        "best_epoch": 2,
        "epochs_run": 3,
        "epoch_seconds": [10.0, 12.0, 11.0],
    }


def setup_info():
    return {"train_documents": 9, "validation_documents": 1, "test_documents": 5, "labels": 3, "max_tokens": 20}


def results():
    return {
        "reuters": {
            "setup": setup_info(),
            "command": "python -m benchmarks.cnle --datasets reuters --merge",
            "code_version": "abc1234",
            "svm": {"micro_f1": 0.88, "val_score": 0.89},
            "gile_han": {
                "micro_f1": 0.82,
                "val_micro_f1": 0.84,
                "best_epoch": 7,
                "epochs_run": 12,
                "epoch_seconds_mean": 9.0,
            },
            "models": {
                "cnle": model_run(0.85, "micro_f1"),
                "no_label_embedding": model_run(0.84, "micro_f1"),
                "no_text_to_label": model_run(0.83, "micro_f1"),
                "cnle_ppmi": model_run(0.80, "micro_f1"),
            },
            "timing": {"cnle_vs_gile_han": {"ratio": 6.5, "wall_ratio": 6.5, "cpu_ratio": 6.4, "clock": "wall"}},
            "attention_plot": {"path": "cnle_reuters_attention.png", "test_document": "test/1"},
        },
        "newsgroups": {
            "setup": setup_info(),
            "command": "python -m benchmarks.cnle --datasets newsgroups --merge",
            "code_version": "abc1234",
            "svm": {"accuracy": 0.82, "val_score": 0.9},
            "models": {"cnle": model_run(0.7, "accuracy")},
        },
    }


def test_summary_has_the_issue_keys():
    summary = cnle.summary(results())
    assert summary["reuters_micro_f1"] == {
        "cnle": 0.85,
        "no_label_embedding": 0.84,
        "no_text_to_label": 0.83,
        "cnle_ppmi": 0.80,
        "svm": 0.88,
        "gile_han": 0.82,
    }
    assert summary["newsgroups_accuracy"] == {"cnle": 0.7, "svm": 0.82}
    assert summary["epoch_time_ratio_cnle_vs_gile_han"] == 6.5
    json.dumps(summary)  # JSON-ready


def test_table_shows_every_model_with_its_paper_figure_and_the_timing():
    text = cnle.table(results())
    assert "| CNLE | glove50 | 0.8500 | 0.8600 | 2/3 | 11 | 0.899 |" in text
    assert "| CNLE w/o label embedding | glove50 | 0.8400 |" in text and "| 0.880 |" in text
    assert "| tf-idf LinearSVC (C, n-grams tuned) | tf-idf | 0.8800 | 0.8900 |" in text
    assert "GILE-HAN (benchmarks.reuters) | ppmi (fine-tuned) | 0.8200 | 0.8400 | 7/12 | 9 | 0.852 |" in text
    assert "**6.50×**" in text and "(cnle_reuters_attention.png)" in text
    assert "20 Newsgroups bydate (headers removed): accuracy" in text


def test_readme_rows_mark_targets_and_wait_for_unfinished_models():
    summary = cnle.summary(results())
    reuters_row, newsgroups_row = cnle.rows({"summary": summary})
    assert reuters_row["ours"] == "CNLE 0.8500 (epoch time 6.5× GILE-HAN's)"
    assert reuters_row["verdict"] == "CNLE above both ablations and the SVM: **not met**"  # 0.85 < SVM 0.88
    assert newsgroups_row["verdict"] == "above the SVM: **not met**"
    summary["reuters_micro_f1"]["cnle"] = 0.9
    assert cnle.rows({"summary": summary})[0]["verdict"].endswith(": met")
    del summary["newsgroups_accuracy"]["cnle"]  # still training: no row
    assert len(cnle.rows({"summary": summary})) == 1


def test_arguments_are_checked():
    with pytest.raises(SystemExit):
        cnle.parse_args(["--datasets", "imdb"])
    with pytest.raises(SystemExit):
        cnle.parse_args(["--models", "cnle,bert"])
    quick = cnle.parse_args(["--quick"])
    assert quick.max_train == 600 and quick.output.endswith("cnle_quick.json")


def test_a_gpu_run_without_gile_han_or_a_part_without_the_svm_still_reports():
    runs = results()
    for key in ("gile_han", "timing"):
        del runs["reuters"][key]
    runs["reuters"]["models"]["cnle"]["rerun"] = {
        "command": "python -m x --part reuters:cnle",
        "code_version": "b",
        "reason": "r",
    }
    reuters_row = cnle.rows({"summary": cnle.summary(runs)})[0]
    assert reuters_row["baseline"].startswith("tuned tf-idf SVM 0.8800; w/o label embedding 0.8400")
    text = cnle.table(runs)
    assert "CNLE rerun by itself: `python -m x --part reuters:cnle` at code version b (r)." in text
    del runs["newsgroups"]["svm"]  # a part of --jobs that trained one model
    assert cnle.summary(runs)["newsgroups_accuracy"] == {"cnle": 0.7}
    assert "tf-idf LinearSVC" not in cnle.table({"newsgroups": runs["newsgroups"]})


class _Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


@pytest.mark.parametrize(
    "epoch_seconds, deadline_after, stopped_after",
    [
        ([300, 20, 20, 20], 400, 4),  # the first epoch compiles: not a guide; 300 + 3 x 20 ends before 400
        ([300, 20, 20, 20], 350, 3),  # after 340 s another 20 would end at 360 > 350
        ([300, 20, 20, 20], 310, 2),  # the first epoch is always followed by one that shows the pace
        ([10, 10, 10, 10], None, 4),  # no deadline
    ],
)
def test_time_limit_judges_the_next_epoch_by_the_latest(monkeypatch, epoch_seconds, deadline_after, stopped_after):
    clock = _Clock()
    monkeypatch.setattr(cnle.time, "time", clock)
    limit = cnle.TimeLimit(None if deadline_after is None else clock.now + deadline_after)
    limit.set_model(type("Model", (), {"stop_training": False})())
    ran = 0
    for epoch, seconds in enumerate(epoch_seconds):
        limit.on_epoch_begin(epoch)
        clock.now += seconds
        limit.on_epoch_end(epoch)
        ran += 1
        if limit.model.stop_training:
            break
    assert ran == stopped_after and limit.stopped == (ran < len(epoch_seconds))


def test_a_bundle_gives_back_what_was_written(tmp_path):
    args = cnle.parse_args(["--quick"])
    setup = object.__new__(cnle.Setup)
    rng = np.random.default_rng(0)
    setup.args, setup.name, setup.multi_label = args, "reuters", True
    setup.ids = {s: rng.integers(0, 9, (4, 6)).astype("int32") for s in cnle.SPLITS}
    setup.y = {s: rng.integers(0, 2, (4, 3)).astype("float32") for s in cnle.SPLITS}
    setup.label_ids, setup.sequences = rng.integers(0, 9, (3, 2)), rng.integers(0, 4, (4, 3))
    setup.vocabulary, setup.max_steps, setup.info = [f"w{i}" for i in range(9)], 3, {"labels": 3, "max_steps": 3}
    setup._vectors = {"glove50": rng.normal(size=(9, 5)).astype("float32")}
    texts = {f"{s}_texts": [f"{s} text {i}" for i in range(4)] for s in cnle.SPLITS}
    setup.data = SimpleNamespace(label_names=["a", "b", "c"], test_ids=["t0", "t1", "t2", "t3"], **texts)
    setup.write(tmp_path, ["glove50"])
    back = cnle.Setup(args, "reuters", tmp_path)
    for s in cnle.SPLITS:
        np.testing.assert_array_equal(back.ids[s], setup.ids[s])
        np.testing.assert_array_equal(back.y[s], setup.y[s])
        assert getattr(back.data, f"{s}_texts") == texts[f"{s}_texts"]
    np.testing.assert_array_equal(back.word_vectors("glove50"), setup._vectors["glove50"])
    np.testing.assert_array_equal(back.sequences, setup.sequences)
    assert back.vocabulary == setup.vocabulary and back.max_steps == 3 and back.data.label_names == ["a", "b", "c"]
    with pytest.raises(SystemExit, match="written with"):  # a run must be given the data options it was written with
        cnle.Setup(cnle.parse_args([]), "reuters", tmp_path)
