"""Benchmarks: measurements that take minutes. Run each as a module, `python -m benchmarks.<name>`.

Shared pieces live beside the scripts: `report` (what every result file records),
`timing` (round-robin step timing, epoch timing), `baselines` (tuned tf-idf SVM,
untrained zero-shot scorers), `seeds` (mean ± sample std over seeds), `tables`
(Markdown tables and claim rows), `benchmark` (the shared flags; how a new benchmark is written).
"""

import os

# `python -m benchmarks.<name>` (or `tuning.<name>`) imports this package before the script: TensorFlow's C++ log
# level is set here, before any script imports TensorFlow, so the scripts import in the usual order.
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
