"""The run's warnings channel: input accepted but not honoured as given, said once, everywhere.

One WarningLog per loaded cluster (`cluster.warnings`), shared by the scheduler built over it
(`scheduler.warnings`, and `handle.warnings` for plugins). Every line it holds goes
- to stderr as `Warning: LINE` on the command line (a sink the CLI subscribes),
- into the JSON output's top-level `warnings` list, in the order they were emitted,
- to the web import's answer and the run page (the playground reads `cluster.warnings`).

How to emit:
- `log.warn(file, "document 3", "Pod default/web", "unknown field \"spec.nodeSelectr\"")`
  gives `FILE: document 3: Pod default/web: unknown field "spec.nodeSelectr"`, the contract's
  shape (empty parts are left out: `log.warn("", "", "", "...")` is just the message).
- `log.append(line)` adds a line already formatted.
- `log.field(file, where, label, field, detail)`: the shape for a field the run does not
  honour, e.g. `field spec.resources: pod-level resources need the PodLevelResources feature
  gate, off ...`.
The same line is kept once: a plugin that meets the same input every cycle warns only once.
"""
from __future__ import annotations

from collections.abc import Callable


def warning_line(file: str, where: str, label: str, message: str) -> str:
    return ": ".join(part for part in (file, where, label, message) if part)


class WarningLog(list):
    """Lines in emission order, without repeats; sinks see each new line as it comes.

    A list of strings, so that whatever took the loader's warnings as a list (the web import's
    answer, JSON encoders) still does; add lines only through append, warn and field."""

    def __init__(self, lines=()):
        super().__init__()
        self._sinks: list[Callable[[str], None]] = []
        for line in lines:
            self.append(line)

    def append(self, line: str) -> None:
        if line in self:
            return
        super().append(line)
        for sink in self._sinks:
            sink(line)

    def extend(self, lines) -> None:
        for line in lines:
            self.append(line)

    def warn(self, file: str, where: str, label: str, message: str) -> None:
        self.append(warning_line(file, where, label, message))

    def field(self, file: str, where: str, label: str, field: str, detail: str) -> None:
        self.warn(file, where, label, f"field {field}: {detail}")

    def subscribe(self, sink: Callable[[str], None], *, replay: bool = True) -> None:
        """sink(line) for every line from now on (and those already emitted when replay)."""
        if replay:
            for line in self:
                sink(line)
        self._sinks.append(sink)

    def to_list(self) -> list[str]:
        return list(self)
