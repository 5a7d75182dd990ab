"""The README's summary table and the tables of benchmarks/README.md are generated from benchmarks/results."""

import json
import re
import subprocess

import pytest

from benchmarks import readme, reuters, seen_labels
from benchmarks.report import REPO, results_header
from benchmarks.tables import claim

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


def test_every_results_table_is_embedded_in_a_page_and_every_embedded_table_exists():
    embedded = [
        m.group("name") for page in readme.PAGES.glob("*.md") for m in readme.RESULTS_BLOCK.finditer(page.read_text())
    ]
    on_disk = {p.name for p in readme.RESULTS.glob("*.md")}
    assert set(embedded) == on_disk and len(embedded) == len(set(embedded)), "each results table on one page"


def test_a_missed_target_is_marked():
    row = reuters.zero_shot_row(
        {
            "zeroshot_avgpr": {"gile": 0.5, "tfidf_match": 0.66, "embedding_cosine": 0.3, "random": 0.2},
            "zeroshot_avgpr_std": {"gile": 0.01},
        },
        "GloVe 50-d",
    )
    assert row["task"].endswith("(GloVe 50-d)")
    assert row["ours"] == "gile head 0.5000 ± 0.0100"
    assert "tfidf_match 0.6600" in row["baseline"]
    assert row["verdict"].endswith("**not met**")


def test_the_stored_rows_are_what_each_benchmark_computes_today():
    """A rows function changed without `python -m benchmarks.readme --rows` fails here, naming the files."""
    stale = [
        p.name for p, report in readme.results_files().items() if readme.recompute_rows(report) != report.get("rows")
    ]
    assert not stale, f"run `python -m benchmarks.readme --rows`: {stale}"


def test_every_benchmark_page_is_in_the_index_and_every_claim_links_a_page():
    index = readme.BENCHMARKS_README.read_text()
    for page in readme.PAGES.glob("*.md"):
        assert f"](pages/{page.name})" in index, page.name
    links = {r["link"] for report in readme.results_files().values() for r in report.get("rows", [])}
    for link in links:
        target = re.search(r"\]\(([^)#]+)", link).group(1)
        assert (readme.BENCHMARKS_README.parent / target).exists(), link


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
    report = json.loads(readme.RESULTS.joinpath("seen_labels.json").read_text())
    text = readme.RESULTS.joinpath("seen_labels.md").read_text()
    assert text == f"{results_header(report)}\n\n{seen_labels.tables(report['results'], report['summary'])}\n"


def test_a_claim_in_four_columns_and_in_the_short_cells_of_the_recipes():
    row = claim(
        "Task: F1 (vectors)",
        "ours 0.9 (3 seeds; std 0.1)",
        "SVM 0.8 (C 10); linear 0.85",
        "0.95 (Table 2)",
        "above the SVM (noise rule): **not met** (+0.1, p 0.2); level: met",
        "[x](y)",
        "Task: F1",
    )
    assert readme.four_columns(row) == [
        "Task: F1 (vectors) ([x](y))",
        "ours 0.9 (3 seeds; std 0.1); against SVM 0.8 (C 10); linear 0.85",
        "above the SVM (noise rule) (paper: 0.95 (Table 2))",
        "**not met** (+0.1, p 0.2); level: met",
    ]
    assert readme.brief_columns(row) == [
        "Task: F1 ([x](y))",
        "ours 0.9 against SVM 0.8",
        "above the SVM",
        "**not met**",
    ]


def test_the_front_page_holds_the_presets_rows_and_the_index_every_claim():
    reports = readme.results_files()
    recipes, index = readme.recipes_table(reports), readme.index_table(reports)
    assert "`wide_deep`" in recipes and "`cnle`" in recipes and "found by KerasTuner" not in recipes
    assert "10 splits (seeds 0-9)" in index and "10 splits (seeds 50-59)" in index  # the protocol run, attempt 7
    assert "encoder fine-tuned" in index and "learned word interaction" in index
    assert "found by KerasTuner" in readme.search_table(reports) and "found by KerasTuner" not in index
    assert all(len(line) < 400 for line in recipes.splitlines())
