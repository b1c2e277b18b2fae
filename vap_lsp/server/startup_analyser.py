"""A second process that analyses the documents opened while the server is still starting.

Why: spawn → first diagnostics is CPU-bound in one interpreter: importing lsprotocol and pygls
(~300 ms), then the analysis engine (~200 ms), then a first analysis with cold caches (~100 ms).
Threads cannot overlap imports (they hold the GIL), but a second process on a second core can:
`vap-lsp serve` spawns this module before it imports anything else; it imports the engine and
warms its caches (the default Kubernetes version's schemas, its CEL environment) while the
server imports the LSP stack. The server sends it the documents it must analyse before its own
engine is ready and publishes what comes back; once its engine is imported it closes the pipe
and this process exits.

Invariants:
- its diagnostics are exactly the server's own: `analyse_text` with the settings the server
  computed for the document (configuration and client settings), converted by the server's one
  converter. The helper reads no other file, so a result that other files could change (a kind
  it found no CRD for, `LoneDocumentIndex`, while the server has workspace folders or CRD
  settings) is not used and the server analyses that document itself. Findings across files (a
  binding's policy elsewhere) are made only with the complete index, so they come with the
  server's own analysis after its workspace scan, as for any analysis that ends before the scan;
- any failure (the process cannot start, dies, answers garbage) returns None and the server
  analyses the document itself: the helper can make diagnostics earlier, never different or lost;
- it is used only with two or more CPUs: on one, both processes would share the core and the
  first diagnostics would come later, not sooner. `VAP_LSP_STARTUP_ANALYSER=0` turns it off,
  `=1` on whatever the CPUs.

The pipe carries length-prefixed pickles: both ends are this package in the same interpreter.
This module imports neither lsprotocol nor the engine at the top: the server side must stay light.
"""

from __future__ import annotations

import contextlib
import importlib
import logging
import os
import pickle
import struct
import subprocess
import sys
import threading
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from vap_lsp import collector

if TYPE_CHECKING:
    from vap_lsp.analysis.diagnostics import Diagnostic
    from vap_lsp.analysis.settings import AnalysisSettings

log = logging.getLogger(__name__)

ENV_SWITCH = "VAP_LSP_STARTUP_ANALYSER"
# Larger documents are analysed by the server itself: their analysis, not the imports, is most
# of their first diagnostics' wait, and the copy through the pipe would add to it.
MAX_TEXT = 1 << 20
# An answer later than this (a pathological document, a stuck process) is not waited for: the
# helper is killed and the server analyses the document itself, its engine long imported.
TIMEOUT_SECONDS = 5.0
_HEADER = struct.Struct(">I")

# Analysed once before the first request: loads the default version's schemas and builds its
# CEL environment, the caches a first analysis would otherwise fill on the critical path.
WARM_UP = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: warm-up
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - apiGroups: ["apps"]
      apiVersions: ["v1"]
      operations: ["CREATE", "UPDATE"]
      resources: ["deployments"]
  variables:
  - name: replicas
    expression: "object.spec.replicas"
  validations:
  - expression: "variables.replicas <= 5 && object.metadata.name.startsWith('a')"
    message: "too many"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: warm-up
spec:
  policyName: warm-up
  validationActions: [Deny]
"""


# What reading a document's configuration imports lazily: `[tool.vap-lsp]` tables, the codes a
# configuration names (checked against the rule catalog).
_READ_ON_FIRST_USE = ("tomllib", "vap_lsp.codes.catalog")

# The helper runs this very copy of vap_lsp (an editable checkout, a venv, a path the server was
# started from): its root goes first on the helper's path, whatever the working directory.
_BOOT = (
    "import sys; sys.path.insert(0, {root!r}); "
    "from vap_lsp.server.startup_analyser import main; raise SystemExit(main())"
)


def _usable_cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not Linux
        return os.cpu_count() or 1


def _write(stream: IO[bytes], value: object) -> None:
    data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(_HEADER.pack(len(data)) + data)
    stream.flush()


def _read(stream: IO[bytes]) -> Any:
    """The next message, or EOFError when the other end has closed the pipe."""
    header = stream.read(_HEADER.size)
    if len(header) < _HEADER.size:
        raise EOFError
    (size,) = _HEADER.unpack(header)
    data = stream.read(size)
    if len(data) < size:
        raise EOFError
    return pickle.loads(data)


class StartupAnalyser:
    """The server's end: one request at a time, from any thread (blocking I/O: not the loop)."""

    def __init__(self, process: subprocess.Popen[bytes], timeout: float = TIMEOUT_SECONDS) -> None:
        self._process = process
        self._lock = threading.Lock()
        self._closed = False
        self._timeout = timeout

    @classmethod
    def spawn(cls) -> StartupAnalyser | None:
        switch = os.environ.get(ENV_SWITCH, "")
        if switch == "0" or (switch != "1" and _usable_cpus() < 2):
            return None
        try:
            process = subprocess.Popen(
                [sys.executable, "-c", _BOOT.format(root=str(Path(__file__).resolve().parents[2]))],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                # Its log lines go where the server's go (the editor's output panel).
                stderr=None,
            )
        except OSError as exc:
            log.info("no startup analyser: %s", exc)
            return None
        # The server asks for a document's settings (`ServerState.document_settings`) in a
        # thread while another imports the engine; what that reading imports on first use is
        # imported now, so that no two threads ever import at once (ARCHITECTURE.md, start-up).
        for module in _READ_ON_FIRST_USE:
            importlib.import_module(module)
        return cls(process)

    @property
    def open(self) -> bool:
        return not self._closed

    def diagnostics(
        self, uri: str, text: str, settings: AnalysisSettings, *, crds_elsewhere: bool = True
    ) -> list[Diagnostic] | None:
        """The document's diagnostics from the helper; None if it cannot give them (closed, dead,
        broken) or if they may differ from the server's: a kind without a CRD in the document
        while `crds_elsewhere` (workspace folders, `vapLsp.crds`, the configuration's `crds`)
        may type it. The caller then analyses the document itself."""
        if len(text) > MAX_TEXT:
            return None
        with self._lock:
            if self._closed:
                return None
            stdin, stdout = self._process.stdin, self._process.stdout
            assert stdin is not None and stdout is not None
            # Killing the process ends the read below with EOF: a timeout on any platform.
            watchdog = threading.Timer(self._timeout, self._process.kill)
            watchdog.daemon = True
            watchdog.start()
            try:
                _write(stdin, (uri, text, settings))
                answer = _read(stdout)
            except Exception as exc:  # dead, killed, or a pipe that no longer carries pickles
                log.warning("startup analyser failed (%r): the server analyses the document itself", exc)
                self._close_locked()
                return None
            finally:
                watchdog.cancel()
        if not isinstance(answer, tuple) or len(answer) != 2:
            return None
        ok, value = answer
        if not ok:
            log.warning("startup analyser: %s", value)
            return None
        diagnostics, depends = value
        if depends and crds_elsewhere:
            log.debug("%s may be typed by CRDs elsewhere: analysed by the server itself", uri)
            return None
        return list(diagnostics)

    def close(self) -> None:
        """End the helper (its stdin closes, it exits) and reap it without waiting here."""
        with self._lock:
            self._close_locked()

    def _close_locked(self) -> None:
        if self._closed:
            return
        self._closed = True
        process = self._process
        for stream in (process.stdin, process.stdout):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass
        threading.Thread(
            target=_reap, args=(process,), name="vap-lsp-startup-analyser-reaper", daemon=True
        ).start()


def _reap(process: subprocess.Popen[bytes]) -> None:
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:  # stuck in an analysis: it is no use any more
        process.kill()
        process.wait()


def serve(stdin: IO[bytes], stdout: IO[bytes]) -> None:
    """The helper's loop: warm up, then answer (uri, text, settings) with (True, (diagnostics,
    depends on other files)) or (False, reason) until the server closes the pipe."""
    from vap_lsp.analysis.engine import analyse_text
    from vap_lsp.analysis.model.workspace import LoneDocumentIndex, WorkspaceIndex
    from vap_lsp.analysis.settings import AnalysisSettings

    analyse_text(WARM_UP, AnalysisSettings(), workspace=WorkspaceIndex(), uri="untitled:vap-lsp-warm-up")
    collector.resume()
    while True:
        try:
            uri, text, settings = _read(stdin)
        except EOFError:
            return
        try:
            index = LoneDocumentIndex()
            analysis = analyse_text(text, settings, workspace=index, uri=uri)
            answer: tuple[bool, object] = (True, (analysis.diagnostics, index.depends))
        except Exception as exc:  # the server analyses it itself, and logs its own failure
            answer = (False, f"{type(exc).__name__}: {exc}")
        _write(stdout, answer)


def main() -> int:
    collector.pause()  # until warmed up (`vap_lsp.collector`)
    # Only the pickles may reach the pipe: anything else written to stdout (by Python or C code)
    # goes to stderr instead.
    channel = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    with contextlib.suppress(BrokenPipeError, KeyboardInterrupt):  # the server went away
        serve(sys.stdin.buffer, channel)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
