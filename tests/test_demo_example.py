"""`examples/demo.py` (`make demo`), end to end at 2 epochs: it trains, relabels, saves, exports and serves."""

import os
import pathlib
import subprocess
import sys

import pytest

DEMO = pathlib.Path(__file__).parent.parent / "examples" / "demo.py"


@pytest.mark.slow
def test_the_demo_runs_end_to_end_and_its_round_trips_hold(tmp_path):
    env = {**os.environ, "DEMO_OUTPUT": str(tmp_path), "DEMO_EPOCHS": "2"}
    run = subprocess.run([sys.executable, str(DEMO)], env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    out = run.stdout
    assert "reloaded scores equal: True" in out and "served scores equal: True" in out, out
    assert "Unseen labels (4, never trained on)" in out and "labels written at serving time" in out, out
    assert (tmp_path / "classifier.keras").is_file() and (tmp_path / "saved_model" / "saved_model.pb").is_file()
    assert (tmp_path / "attention.png").stat().st_size > 10_000
    assert "retracing" not in run.stderr and "build_from_config" not in run.stderr, run.stderr[-3000:]
