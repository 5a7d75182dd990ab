"""The generalized zero-shot benchmark's scoring, glue and selection, against hand computations and scikit-learn."""

import numpy as np
import pytest
from sklearn.metrics import label_ranking_average_precision_score

from benchmarks import generalized_zero_shot as gzs


def test_seen_and_unseen_average_precision_rank_all_labels():
    y = np.array([[1, 0, 1, 0], [0, 1, 0, 0], [0, 0, 0, 1]])
    scores = np.array([[0.1, 0.9, 0.8, 0.0], [0.2, 0.3, 0.9, 0.1], [0.9, 0.1, 0.2, 0.3]])
    out = gzs.generalized(y, scores, seen=[0, 1])
    # Seen: document 0's label 0 ranks 3rd (1/3), behind an unseen label; document 1's label 1 ranks 2nd (1/2).
    assert out["seen"] == pytest.approx((1 / 3 + 1 / 2) / 2)
    # Unseen: document 0's label 2 ranks 2nd (1/2), document 2's label 3 ranks 2nd (1/2).
    assert out["unseen"] == pytest.approx(0.5)
    assert out["all"] == pytest.approx(label_ranking_average_precision_score(y, scores))
    assert out["harmonic"] == pytest.approx(2 * (5 / 12) * 0.5 / (5 / 12 + 0.5))
    # Pure zero-shot: among the unseen labels alone, document 0's label 2 and document 2's label 3 rank first.
    assert out["zero_shot"] == pytest.approx(1.0)


def test_random_expectation_matches_random_rankings():
    rng = np.random.RandomState(0)
    y = (rng.rand(30, 7) < 0.3).astype(int)
    y[y.sum(axis=1) == 0, 0] = 1
    expected = gzs.random_generalized(y, seen=[0, 1, 2])
    draws = [gzs.generalized(y, rng.rand(*y.shape), [0, 1, 2]) for _ in range(400)]
    for part in ("seen", "unseen", "all", "zero_shot"):
        assert np.mean([d[part] for d in draws]) == pytest.approx(expected[part], abs=0.01)


def test_glue_standardises_each_side_and_shifts_the_unseen():
    seen_logits = np.array([[1.0, 3.0]])
    fusion = np.array([[9.0, 9.0, 0.0, 2.0]])  # the seen columns of the fusion are not read
    out = gzs.glue(seen_logits, fusion, seen=[0, 1], gamma=0.5)
    np.testing.assert_allclose(out, [[-1.0, 1.0, -0.5, 1.5]], atol=1e-5)


def test_gamma_grid_widens_at_an_edge(monkeypatch):
    # Two seen positives (z 1) and one unseen (z 1): the harmonic mean is best for shifts in (0, 2) only
    # (unseen first, the other unseen label still below the seen positives).
    y = np.array([[1, 1, 0, 0, 1, 0]])
    seen_logits = np.array([[2.0, 2.0, 0.0, 0.0]])
    fusion = np.array([[0.0, 0.0, 0.0, 0.0, 1.0, -1.0]])
    monkeypatch.setattr(gzs, "GAMMAS", np.arange(-1.0, -0.499, 0.25))
    gamma, curve = gzs.choose_gamma(y, seen_logits, fusion, seen=[0, 1, 2, 3])
    assert gamma == 0.25 and max(curve) > 0  # widened to the right, nearest 0 of the plateau
    # The two tied seen positives share rank 3 (scikit-learn's ties): seen AP 2/3, unseen 1.
    assert curve[gamma] == pytest.approx(2 * (2 / 3) / (2 / 3 + 1))


def test_gamma_ties_go_to_zero():
    y = np.array([[1, 0, 0, 0, 1, 0]])
    seen_logits = np.array([[5.0, 0.0, 0.0, 0.0]])
    fusion = np.array([[0.0, 0.0, 0.0, 0.0, 1.0, -1.0]])
    gamma, curve = gzs.choose_gamma(y, seen_logits, fusion, seen=[0, 1, 2, 3])
    best = max(curve.values())
    assert curve[gamma] == best and abs(gamma) == min(abs(g) for g, v in curve.items() if v == best)


def test_rows_read_the_summary():
    comparison = {"mean_gain": 0.01, "p_value": 0.02, "positive_splits": "8/10", "met": True}
    summary = {"splits": 10, "harmonic": {gzs.CANDIDATE: 0.5, "glued": 0.49, "minilm_cosine": 0.45}}
    strongest = dict(comparison, scorer="minilm_cosine", met=False)
    summary["zero_shot_avgpr"] = {gzs.CANDIDATE: 0.6, "untrained_fusion": 0.55, "minilm_cosine": 0.58}
    bars = {"zero_shot_vs_untrained_fusion": comparison, "zero_shot_vs_minilm_cosine": dict(comparison, met=False)}
    report = {
        "summary": {"aapd": dict(summary, best_vs_glued=comparison, best_vs_strongest_untrained=strongest, **bars)}
    }
    row, zero_shot = gzs.rows(report)
    assert zero_shot["verdict"] == "above the fusion: met (+0.0100); above the cosine: **not met** (+0.0100)"
    assert row["verdict"].startswith("above glued: met") and "0.5000" in row["ours"]
    assert "untrained: **not met**" in row["verdict"] and "(minilm_cosine) 0.4500" in row["baseline"]


def test_merge_summarises_the_splits_of_every_chunk(tmp_path):
    import json

    rng = np.random.default_rng(0)

    def entry(seed):
        reports = {
            s: dict(zip(gzs.PARTS, rng.uniform(0.3, 0.7, len(gzs.PARTS))))
            for s in (*gzs.UNTRAINED, "glued", gzs.CANDIDATE)
        }
        return {"seed": seed, "held_out_before": 0.5, "gamma": 0.25, "reports": reports}

    paths = []
    for first in (1002, 1000):
        report = {
            "benchmark": "generalized zero-shot",
            "command": f"python -m benchmarks.generalized_zero_shot --first-split {first} --splits 2",
            "code_version": "abc1234",
            "machine": {"cpu_count": 2},
            "wall_seconds": 10.0,
            "results": {"aapd": [entry(first), entry(first + 1)]},
            "summary": {},
        }
        paths.append(tmp_path / f"part_{first}.json")
        paths[-1].write_text(json.dumps(report))
    gzs.main(["--merge", *map(str, paths), "--output", str(tmp_path / "merged.json")])
    merged = json.loads((tmp_path / "merged.json").read_text())
    assert [e["seed"] for e in merged["results"]["aapd"]] == [1000, 1001, 1002, 1003]
    assert merged["summary"]["aapd"]["splits"] == 4 and merged["wall_seconds"] == 20.0
    harmonic = [e["reports"][gzs.CANDIDATE]["harmonic"] for e in merged["results"]["aapd"]]
    assert merged["summary"]["aapd"]["harmonic"][gzs.CANDIDATE] == pytest.approx(np.mean(harmonic))
    assert merged["rows"][0]["brief"] == "AAPD generalized zero-shot"
