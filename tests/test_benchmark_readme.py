"""The README's summary table and the tables of benchmarks/README.md are generated from benchmarks/results."""

import json
import re
import subprocess

import pytest

from benchmarks import readme, seen_labels
from benchmarks.report import REPO, results_header

# Every results file of the benchmarks and the searches, JSON and Markdown.
RESULT_FILES = sorted([*readme.RESULTS.glob("*.*"), *readme.TUNING_RESULTS.glob("*.*")])
RESULT_JSON = [p for p in RESULT_FILES if p.suffix == ".json"]
MACHINE_PATH = re.compile(r"(?<![\w.])/(work|home|tmp|root|Users)/")


def code_versions(report):
    """The code versions a report records: its own and those of the runs it resumed."""
    versions = [report["code_version"]]
    for entry in report.get("results", {}).values() if isinstance(report.get("results"), dict) else []:
        resumed = entry.get("resumed_from") if isinstance(entry, dict) else None
        while resumed:
            versions.append(resumed["code_version"])
            resumed = resumed.get("resumed_from")
    return versions


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


def test_results_record_no_machine_path():
    for path in RESULT_FILES:
        if path.suffix in (".json", ".md"):
            match = MACHINE_PATH.search(path.read_text())
            assert match is None, f"{path.name} holds a machine path near {match and match.group(0)!r}"


def test_the_machine_path_guard_finds_a_path_inside_a_string():
    assert MACHINE_PATH.search('{"note": "read from /tmp/run/x.npy"}') and not MACHINE_PATH.search("a/tmp/b")


@pytest.mark.parametrize("path", RESULT_JSON, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_result_records_its_command_and_a_commit_of_the_history(path):
    report = json.loads(path.read_text())
    assert report["command"].startswith("python ")
    for version in code_versions(report):
        assert is_commit(version), f"{path.name}: code_version {version!r} is not a commit of the history"


def is_commit(version):
    found = subprocess.run(
        ["git", "rev-parse", "--verify", "--quiet", f"{version}^{{commit}}"], cwd=REPO, capture_output=True
    )
    return bool(version) and found.returncode == 0


def test_the_commit_guard_refuses_what_is_not_a_commit():
    assert is_commit("HEAD") and not is_commit("unknown") and not is_commit("") and not is_commit("0123abc")


@pytest.mark.parametrize("path", RESULT_JSON, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_results_table_stands_under_the_header_its_json_gives(path):
    first = path.with_suffix(".md").read_text().split("\n\n")[0]
    assert first == results_header(json.loads(path.read_text()))


def test_the_seen_label_tables_are_rebuilt_from_their_json():
    report = readme.load("seen_labels")
    text = readme.RESULTS.joinpath("seen_labels.md").read_text()
    assert text == f"{results_header(report)}\n\n{seen_labels.tables(report['results'], report['summary'])}\n"


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


def test_the_front_page_shows_the_zero_shot_protocol_run_and_the_sentence_encoder_the_write_ups_every_other():
    front, claims, attempts = readme.summary_table(), readme.claims_table(), readme.zero_shot_attempts_table()
    assert "10 splits (seeds 0-9)" in claims and "10 splits (seeds 50-59)" in claims  # the protocol run, attempt 7
    assert "MiniLM" in front and "(seeds 50-59)" not in attempts and "encoder fine-tuned" in attempts  # 7 and 8
    assert "(seeds 10-19)" not in claims and "(seeds 10-19)" in attempts
    assert "fresh splits" in attempts and "learned word interaction" in attempts
    assert "hybrid head (GILE + lexical + interaction" in claims and "hybrid head (GILE + lexical" not in attempts
    assert "](#zero-shot-over-many-splits" in attempts and "](#zero-shot-over-many-splits" in claims


def test_the_front_page_keeps_one_short_line_per_cell_and_the_write_ups_the_full_row():
    row = [
        "Task: F1 (vectors)",
        "ours 0.9 (3 seeds; std 0.1)",
        "SVM 0.8 (C 10); linear 0.85",
        "0.95 (Table 2)",
        "above the SVM (noise rule): **not met** (+0.1, p 0.2); level: met",
        "[x](y)",
        "Task: F1",
    ]
    assert readme.brief_columns(row) == [
        "Task: F1 ([x](y))",
        "ours 0.9 against SVM 0.8",
        "above the SVM",
        "**not met**",
    ]
    assert readme.four_columns(row)[1] == "ours 0.9 (3 seeds; std 0.1); against SVM 0.8 (C 10); linear 0.85"
    rows = readme.summary_rows()
    front = readme.summary_table().splitlines()[2:]
    assert len(front) == len(rows) and all(len(line) < 300 for line in front)
    assert readme.claims_table() in readme.BENCHMARKS_README.read_text()
