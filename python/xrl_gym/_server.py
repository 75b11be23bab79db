"""Starting and stopping an `xrl env serve` subprocess."""

import atexit
import os
import pathlib
import shutil
import subprocess
import tempfile
import threading

from .errors import ServerUnavailableError

_REPO_BIN = pathlib.Path(__file__).resolve().parents[2] / "bin" / "xrl"


def find_xrl(xrl_bin=None):
    """Returns the xrl binary: xrl_bin, else $XRL_BIN, else `xrl` on PATH,
    else the repository's bin/xrl."""
    for cand in (xrl_bin, os.environ.get("XRL_BIN"), shutil.which("xrl"), _REPO_BIN):
        if cand and os.path.isfile(cand) and os.access(cand, os.X_OK):
            return str(cand)
    raise FileNotFoundError(
        "no xrl binary: pass xrl_bin=, set $XRL_BIN, put xrl on PATH or build "
        f"{_REPO_BIN} (go build -o bin/xrl ./cmd/xrl)")


class ServerProcess:
    """An `xrl env serve` child process; .address is its HOST:PORT.

    The server runs with --stop-on-eof, so it exits when this process
    closes its stdin, including when this Python process dies.
    """

    def __init__(self, args, xrl_bin=None, start_timeout=120.0):
        exe = find_xrl(xrl_bin)
        self._stderr = tempfile.TemporaryFile()
        self.argv = [exe, "env", "serve", "--stop-on-eof", *args]
        self.proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self._stderr)
        line = _read_line(self.proc.stdout, start_timeout)
        if not line.startswith("listening on "):
            self.proc.kill()
            self.proc.wait()
            msg = (f"{' '.join(self.argv)} did not start (exit code {self.proc.returncode}): "
                   f"{self.stderr_tail() or line or 'no output'}")
            self._close_files()
            raise ServerUnavailableError(msg)
        self.address = line[len("listening on "):].strip()
        atexit.register(self.stop)

    def alive(self):
        """Reports whether the process is still running."""
        return self.proc.poll() is None

    def stderr_tail(self, limit=2000):
        """Returns the end of the server's stderr."""
        if self._stderr.closed:
            return ""
        self._stderr.seek(0)
        data = self._stderr.read().decode("utf-8", "replace").strip()
        return data[-limit:]

    def stop(self, timeout=30.0):
        """Shuts the server down (closing its stdin) and waits for it."""
        if self.proc.poll() is None:
            try:
                self.proc.stdin.close()
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._close_files()
        atexit.unregister(self.stop)

    def _close_files(self):
        for f in (self.proc.stdin, self.proc.stdout, self._stderr):
            if f and not f.closed:
                f.close()


def _read_line(stream, timeout):
    """Reads one line from stream, giving up after timeout seconds."""
    out = []
    t = threading.Thread(target=lambda: out.append(stream.readline()), daemon=True)
    t.start()
    t.join(timeout)
    if not out:
        return ""
    return out[0].decode("utf-8", "replace").strip()
