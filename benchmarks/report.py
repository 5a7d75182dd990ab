"""What every benchmark writes beside its numbers: machine, library versions, command, wall time."""

import json
import os
import pathlib
import platform
import sys
import time

RESULTS = pathlib.Path(__file__).resolve().parent / "results"


def machine():
    import tensorflow as tf

    return {
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "cpu_count": os.cpu_count(),
        "gpus": [d.name for d in tf.config.list_physical_devices("GPU")],
    }


def versions():
    import importlib

    out = {"python": platform.python_version()}
    for module in ("keras", "tensorflow", "tensorflow_text", "sklearn", "numpy", "jax"):
        try:
            out[module] = importlib.import_module(module).__version__
        except ImportError:
            pass
    return out


def write_report(output, benchmark, script, args, argv, results, summary, table, start):
    """Writes `output` (JSON) and the same name with `.md` (the table under the command that made it)."""
    report = {
        "benchmark": benchmark,
        "command": f"python {script if '/' in script else 'benchmarks/' + script} "
        + " ".join(sys.argv[1:] if argv is None else argv),
        "config": vars(args),
        "versions": versions(),
        "machine": machine(),
        "wall_seconds": round(time.time() - start, 1),
        "results": results,
        "summary": summary,
    }
    output = pathlib.Path(output)
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(json.dumps(report, indent=2))
    output.with_suffix(".md").write_text(f"`{report['command'].strip()}`\n\n{table}\n")
    return report
