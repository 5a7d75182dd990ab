"""The one noise rule of the summary's verdicts (benchmarks/noise_rule.py) and the rows that apply it."""

import numpy as np
import pytest
from scipy import stats

from benchmarks import language_model
from benchmarks.noise_rule import level_with, paired_comparison
from benchmarks.reuters import seen_row
from benchmarks.zero_shot_tables import hybrid_rows


def test_met_needs_a_positive_mean_a_small_p_and_a_clear_majority():
    base = np.array([0.60, 0.62, 0.58, 0.65, 0.61, 0.63])
    ahead = paired_comparison(base + [0.03, 0.02, 0.04, 0.03, 0.02, 0.03], base)
    assert ahead["met"] and ahead["positive_splits"] == 6
    expected = stats.ttest_rel(base + [0.03, 0.02, 0.04, 0.03, 0.02, 0.03], base, alternative="greater").pvalue
    assert ahead["p_value"] == pytest.approx(expected)
    # A large mean gain from one split: p too large.
    assert not paired_comparison(base + [0.3, -0.01, -0.01, 0.0, -0.01, 0.0], base)["met"]
    # Significant but ahead on only half of the splits: no clear majority.
    half = paired_comparison(base + [0.05, 0.05, 0.05, -0.001, -0.001, -0.001], base)
    assert half["p_value"] < 0.05 and half["positive_splits"] == 3 and not half["met"]
    # A constant gain has no spread: certain when positive.
    assert paired_comparison(base + 0.01, base)["met"] and not paired_comparison(base - 0.01, base)["met"]


def test_level_with_is_not_being_beaten():
    assert level_with([0.843, 0.844, 0.842], [0.845, 0.840, 0.846])
    assert not level_with([0.80, 0.81, 0.805], [0.84, 0.845, 0.842])


def test_bad_input_raises():
    with pytest.raises(ValueError, match="equally long"):
        paired_comparison([0.1, 0.2], [0.1])
    with pytest.raises(ValueError, match="at least 2"):
        paired_comparison([0.1], [0.1])


def report(hybrid_gains):
    """A zero-shot report over len(hybrid_gains) splits; the hybrid is tf-idf plus the gains."""
    splits = []
    for seed, gain in enumerate(hybrid_gains):
        values = {"tfidf_match": 0.6, "untrained_fusion": 0.62, "embedding_cosine": 0.3, "gile": 0.4, "random": 0.2}
        values["hybrid"] = 0.6 + gain
        reports = {name: {"label_ranking_average_precision": v} for name, v in values.items()}
        splits.append({"seed": seed, "unseen_labels": ["a"] * 18, "reports": reports})
    return {"results": {"reuters": splits}}


def test_zero_shot_rows_apply_the_rule_against_every_bar():
    assert "met" in hybrid_rows(report([0.05, 0.06, 0.04, 0.05]), "hybrid", "h")[0]["verdict"]
    assert "**not met**" not in hybrid_rows(report([0.05, 0.06, 0.04, 0.05]), "hybrid", "h")[0]["verdict"]
    row = hybrid_rows(report([0.05, 0.01, 0.04, 0.03]), "hybrid", "h")[0]["verdict"]  # below the fusion on 3 of 4
    assert "**not met**" in row and "untrained_fusion" in row


def test_aapd_rows_judge_the_issues_aapd_target_and_say_the_reuters_bars_beside_it():
    aapd = {"results": {"aapd": report([0.05, 0.01, 0.04, 0.03])["results"]["reuters"]}}  # below the fusion
    verdict = hybrid_rows(aapd, "hybrid", "h")[0]["verdict"]
    assert verdict.startswith("above tf-idf and random (")
    assert ": met; as on Reuters" in verdict and "**not met** (not above untrained_fusion)" in verdict
    below_tfidf = {"results": {"aapd": report([0.01, -0.02, 0.0, -0.01])["results"]["reuters"]}}
    assert ": **not met**; as on Reuters" in hybrid_rows(below_tfidf, "hybrid", "h")[0]["verdict"]


def test_seen_and_language_model_rows_pair_by_seed():
    summary = {"gile_han_micro_f1": 0.843, "han_linear_micro_f1": 0.844, "svm_micro_f1": 0.884}
    seen = {m: {"seeds": [{"seed": k, "micro_f1": v} for k, v in enumerate(vals)]}
            for m, vals in (("gile_han", [0.843, 0.844, 0.842]), ("han_linear", [0.845, 0.840, 0.846]))}  # fmt: skip
    assert "(level: yes; above the SVM: no)" in seen_row(summary, "v", seen)["verdict"]
    ppl = {"drill_k1": [160.0, 161.0, 162.0], "tied": [180.0, 182.0, 181.0], "bilinear": [161.0, 160.5, 163.0]}
    runs = {n: {"seeds": [{"seed": k, "test_ppl": v} for k, v in enumerate(vals)]} for n, vals in ppl.items()}
    s = {"test_ppl": {n: float(np.mean(v)) for n, v in ppl.items()}, "drill": "drill_k1"}
    report = {"summary": s, "config": {"seeds": 3, "epochs": 2, "batch_size": 32}, "results": {"ptb": runs}}
    row = language_model.rows(report)[0]["verdict"]
    assert row.startswith("below tying (noise rule over seeds): met") and "below bilinear: **not met**" in row
