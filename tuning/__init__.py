"""KerasTuner search scripts, run as `python -m tuning.<name>`; results in `tuning/results/`."""

import os

# `python -m benchmarks.<name>` (or `tuning.<name>`) imports this package before the script: TensorFlow's C++ log
# level is set here, before any script imports TensorFlow, so the scripts import in the usual order.
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
