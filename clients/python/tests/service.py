"""A real compactd for the tests: this repository's server, run from its sources with
Node (``node --import tsx src/server.ts``), on an embedded PGlite database in a temporary
directory, listening on a free port of 127.0.0.1. Stopped (SIGTERM, then SIGKILL of its
process group) and its directory removed when the tests end.

COMPACTD_ROOT overrides where the repository is (default: three levels above this file).
"""

from __future__ import annotations

import atexit
import collections
import json
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from typing import Deque, Dict, List, Optional

ROOT = Path(os.environ.get("COMPACTD_ROOT") or Path(__file__).resolve().parents[3])
START_TIMEOUT = float(os.environ.get("COMPACTD_START_TIMEOUT", "120"))


class Service:
    def __init__(self, env: Optional[Dict[str, str]] = None) -> None:
        self.extra_env = dict(env or {})
        self.data_dir = tempfile.mkdtemp(prefix="compactd-py-")
        self.process: Optional[subprocess.Popen[str]] = None
        self.url = ""
        self.output: Deque[str] = collections.deque(maxlen=200)

    def env(self) -> Dict[str, str]:
        env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
        env.update(
            {
                "HOST": "127.0.0.1",
                "PORT": "0",
                "PGLITE_DATA_DIR": self.data_dir,
                "LOG_LEVEL": "info",
                "COMPUTE_THREADS": "1",
            }
        )
        env.update(self.extra_env)
        return env

    def start(self) -> str:
        self.process = subprocess.Popen(
            ["node", "--import", "tsx", "src/server.ts"],
            cwd=ROOT,
            env=self.env(),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,  # its own process group: stop() can end everything it started
        )
        found = threading.Event()

        def read() -> None:
            assert self.process and self.process.stdout
            for line in self.process.stdout:
                self.output.append(line.rstrip("\n"))
                if not found.is_set():
                    try:
                        msg = json.loads(line).get("msg", "")
                    except ValueError:
                        continue
                    if isinstance(msg, str) and msg.startswith("Server listening at http://127.0.0.1:"):
                        self.url = msg[len("Server listening at ") :]
                        found.set()

        threading.Thread(target=read, daemon=True).start()
        atexit.register(self.stop)  # also when the test process ends without its cleanups
        deadline = time.monotonic() + START_TIMEOUT
        while not found.wait(0.1):
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError("compactd did not start:\n" + "\n".join(self.output))
        return self.url

    def run_cli(self, args: List[str]) -> str:
        """A CLI of the repository (e.g. key-create) against this service's data directory."""
        done = subprocess.run(
            ["node", "--import", "tsx", *args], cwd=ROOT, env=self.env(), capture_output=True, text=True, timeout=START_TIMEOUT
        )
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(args)} failed: {done.stderr}")
        return done.stdout

    def stop(self) -> None:
        process, self.process = self.process, None
        if process is not None and process.poll() is None:
            process.send_signal(signal.SIGTERM)  # graceful: drains requests, closes the database
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                pass
        if process is not None:
            try:
                os.killpg(process.pid, signal.SIGKILL)  # anything left in its group
            except (ProcessLookupError, PermissionError):
                pass
            process.wait()
            if process.stdout:
                process.stdout.close()
        shutil.rmtree(self.data_dir, ignore_errors=True)
