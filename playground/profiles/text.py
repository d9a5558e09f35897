"""The profile editor's YAML: a configuration as hand-written YAML, and YAML back to data.

Half-typed YAML is the normal state of an editor, not a failed request: a parse error comes
back as an answer with its line, so typing does not fill the console with 400s.
"""

from __future__ import annotations

import yaml

from scheduler_core.config_decode import strict_decoding_errors
from scheduler_core.errors import InputError
from scheduler_core.safe_read import read_yaml_with_duplicates


class _ConfigDumper(yaml.SafeDumper):
    """Block style, keys in the given order: reads like a hand-written configuration."""

    def increase_indent(self, flow=False, indentless=False):
        return super().increase_indent(flow, False)


def config_text(data) -> dict:
    """{"text": the data as YAML}."""
    return {"text": yaml.dump(data, Dumper=_ConfigDumper, sort_keys=False,
                              default_flow_style=False, allow_unicode=True)}


def config_data(text: str) -> dict:
    """{"data": the mapping the text holds}, or {"error": ..., "line": n or None}; a key
    given twice is kube-scheduler's strict decoding error, at the line of the second."""
    try:
        docs, duplicates = read_yaml_with_duplicates(text, source="text")
    except InputError as exc:
        # The parser's own error (exc.__cause__) knows the line; a limit names none.
        mark = getattr(exc.__cause__, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        problem = getattr(exc.__cause__, "problem", None) or str(exc)
        return {"error": f"line {line}: {problem}" if line else problem, "line": line}
    data = (docs[0] if len(docs) == 1 else docs) or {}
    if not isinstance(data, dict):
        return {"error": "a KubeSchedulerConfiguration must be a mapping", "line": 1}
    if duplicates:
        # Only the repeated keys: the rest of the decoding is the check's, on the data.
        return {"error": strict_decoding_errors({}, [d.message() for d in duplicates]),
                "line": duplicates[0].line}
    return {"data": data}
