"""Runs a test file as a script in a fresh process on two devices and reads the JSON it prints.

The devices have to exist before the backend starts (JAX reads `XLA_FLAGS` when
it is imported; TensorFlow's logical devices are set before it initialises), and
this pytest process has already imported keras with the TensorFlow backend.
"""

import json
import os
import pathlib
import subprocess
import sys

import pytest

REPO = pathlib.Path(__file__).resolve().parents[1]
TIMEOUT_S = 300


def run_two_device_script(script, backend, marker, request=None, args=()):
    """Runs `script` under `backend` (JAX with 2 host CPU devices) and returns the JSON after `marker`."""
    env = dict(os.environ, KERAS_BACKEND=backend, TF_CPP_MIN_LOG_LEVEL="3")
    if backend == "jax":
        devices = "--xla_force_host_platform_device_count=2"
        env.update(JAX_PLATFORMS="cpu", XLA_FLAGS=f"{env.get('XLA_FLAGS', '')} {devices}".strip())
        # As tests/test_backends.py: JAX's persistent cache makes every run after the first faster.
        cache = getattr(request.config, "cache", None) if request is not None else None
        if cache is not None and "JAX_COMPILATION_CACHE_DIR" not in env:
            env["JAX_COMPILATION_CACHE_DIR"] = str(cache.mkdir("jax_compilation_cache"))
            env["JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS"] = "0"
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    try:
        result = subprocess.run(
            [sys.executable, str(script), *args], cwd=REPO, env=env, capture_output=True, text=True, timeout=TIMEOUT_S
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"{pathlib.Path(script).name} ({backend}) ran past {TIMEOUT_S} s", pytrace=False)
    lines = [line for line in result.stdout.splitlines() if line.startswith(marker)]
    if result.returncode != 0 or not lines:
        pytest.fail(
            f"the {backend} subprocess failed (exit code {result.returncode}).\n"
            f"--- stdout tail ---\n{result.stdout[-2000:]}\n--- stderr tail ---\n{result.stderr[-6000:]}",
            pytrace=False,
        )
    return json.loads(lines[-1][len(marker) :])
