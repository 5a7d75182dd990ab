"""Benchmarks: measurements that take minutes. Run each as a module, `python -m benchmarks.<name>`.

Shared pieces live beside the scripts: `report` (what every result file records),
`timing` (round-robin step timing, epoch timing), `baselines` (tuned tf-idf SVM,
untrained zero-shot scorers), `seeds` (mean ± sample std over seeds), `tables`
(Markdown tables).
"""
