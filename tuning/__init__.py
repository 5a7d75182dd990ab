"""KerasTuner search scripts, run as `python -m tuning.<name>`; results in `tuning/results/`."""
