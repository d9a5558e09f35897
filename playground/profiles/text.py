"""The profile editor's YAML: a configuration as hand-written YAML, and YAML back to data.

Half-typed YAML is the normal state of an editor, not a failed request: a parse error comes
back as an answer with its line, so typing does not fill the console with 400s.
"""

from __future__ import annotations

import yaml

from scheduler_core.errors import InputError
from scheduler_core.safe_read import read_yaml


class _ConfigDumper(yaml.SafeDumper):
    """Block style, keys in the given order: reads like a hand-written configuration."""

    def increase_indent(self, flow=False, indentless=False):
        return super().increase_indent(flow, False)


def config_text(data) -> dict:
    """{"text": the data as YAML}."""
    return {"text": yaml.dump(data, Dumper=_ConfigDumper, sort_keys=False,
                              default_flow_style=False, allow_unicode=True)}


def config_data(text: str) -> dict:
    """{"data": the mapping the text holds}, or {"error": ..., "line": n or None}."""
    try:
        docs = read_yaml(text, source="text")
    except InputError as exc:
        # The parser's own error (exc.__cause__) knows the line; a limit names none.
        mark = getattr(exc.__cause__, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        problem = getattr(exc.__cause__, "problem", None) or str(exc)
        return {"error": f"line {line}: {problem}" if line else problem, "line": line}
    data = (docs[0] if len(docs) == 1 else docs) or {}
    if not isinstance(data, dict):
        return {"error": "a KubeSchedulerConfiguration must be a mapping", "line": 1}
    return {"data": data}
