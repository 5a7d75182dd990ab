"""benchmarks.cnle: its summary keys, tables and README rows, read from a results mapping (no training here)."""

import json

import pytest

from benchmarks import cnle, readme


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
    reuters_row, newsgroups_row = readme.cnle_rows(summary)
    assert reuters_row[1] == "CNLE 0.8500 (epoch time 6.5× GILE-HAN's)"
    assert reuters_row[4] == "CNLE above both ablations and the SVM: **not met**"  # 0.85 < SVM 0.88
    assert newsgroups_row[4] == "above the SVM: **not met**"
    summary["reuters_micro_f1"]["cnle"] = 0.9
    assert readme.cnle_rows(summary)[0][4].endswith(": met")
    del summary["newsgroups_accuracy"]["cnle"]  # still training: no row
    assert len(readme.cnle_rows(summary)) == 1


def test_arguments_are_checked():
    with pytest.raises(SystemExit):
        cnle.parse_args(["--datasets", "imdb"])
    with pytest.raises(SystemExit):
        cnle.parse_args(["--models", "cnle,bert"])
    quick = cnle.parse_args(["--quick"])
    assert quick.max_train == 600 and quick.output.endswith("cnle_quick.json")
