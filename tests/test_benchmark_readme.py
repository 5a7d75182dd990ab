"""The README's summary table and the tables of benchmarks/README.md are generated from benchmarks/results."""

import pytest

from benchmarks import readme


def test_generated_parts_match_the_results():
    stale = [str(path) for path, text in readme.generated().items() if path.read_text() != text]
    assert not stale, f"run `python -m benchmarks.readme`: {stale} differ from benchmarks/results/"


def test_every_results_table_is_embedded_and_every_embedded_table_exists():
    text = readme.BENCHMARKS_README.read_text()
    embedded = {m.group("name") for m in readme.RESULTS_BLOCK.finditer(text)}
    assert embedded, "benchmarks/README.md embeds no results table"
    on_disk = {p.name for p in readme.RESULTS.glob("*.md")}
    assert embedded <= on_disk
    # Every results table appears in the write-ups.
    assert on_disk == embedded


def test_summary_marks_a_missed_target(monkeypatch):
    row = readme.reuters_zero_shot_row(
        {
            "zeroshot_avgpr": {"gile": 0.5, "tfidf_match": 0.66, "embedding_cosine": 0.3, "random": 0.2},
            "zeroshot_avgpr_std": {"gile": 0.01},
        },
        "GloVe 50-d",
    )
    assert row[0].endswith("(GloVe 50-d)")
    assert row[1] == "gile head 0.5000 ± 0.0100"
    assert "tfidf_match 0.6600" in row[2]
    assert row[4].endswith("**not met**")


def test_results_record_no_absolute_path():
    for path in readme.RESULTS.glob("*.json"):
        text = path.read_text()
        assert '"/work' not in text and '"/home' not in text and '"/tmp' not in text, path.name


@pytest.mark.parametrize("name", sorted(p.stem for p in readme.RESULTS.glob("*.json")))
def test_every_result_records_command_and_code_version(name):
    report = readme.load(name)
    assert report["command"].startswith("python ")
    assert report["code_version"]


def test_the_front_page_has_four_columns_and_searches_live_in_the_write_ups():
    row = [
        "Task: F1",
        "ours 0.9",
        "SVM 0.8",
        "0.95 (Table 2)",
        "above the SVM (noise rule): met (+0.1, p 0.01)",
        "[x](y)",
    ]
    assert readme.four_columns(row) == [
        "Task: F1 ([x](y))",
        "ours 0.9; against SVM 0.8",
        "above the SVM (noise rule) (paper: 0.95 (Table 2))",
        "met (+0.1, p 0.01)",
    ]
    front_page = readme.FRONT_PAGE.read_text()
    header = "| task: measure | ours against the baseline (same run) | target | met |"
    assert header in front_page and "found by KerasTuner" not in front_page
    assert "found by KerasTuner" in readme.BENCHMARKS_README.read_text()


def test_the_front_page_shows_the_zero_shot_protocol_run_and_the_write_ups_every_other_attempt():
    front, attempts = readme.summary_table(), readme.zero_shot_attempts_table()
    assert "10 splits (seeds 0-9)" in front and "fresh splits" not in front
    assert "fresh splits" in attempts and "learned word interaction" in attempts
    assert "hybrid head (GILE + lexical + interaction" in front and "hybrid head (GILE + lexical" not in attempts
    assert "](#zero-shot-over-many-splits" in attempts  # links re-rooted at benchmarks/README.md
