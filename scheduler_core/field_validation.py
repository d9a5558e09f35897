"""The API server's field validation of an object as it decodes it (the `fieldValidation`
parameter of a create request): unknown and duplicated fields, and integers beyond their type.

With "Warn" (the API server's default) an unknown or duplicated field is a warning and the
object is used without the unknown field; with "Strict" (kubectl's default) the object is
refused with `strict decoding error: ...`, listing duplicates then unknown fields as the API
server does; "Ignore" drops unknown fields silently. An integer out of the range of its Go
type is refused in every mode: the decoder cannot hold it.
"""
from __future__ import annotations

from .errors import InputError
from .openapi import DEFAULT_RELEASE, field_problems, kind_definition

IGNORE, WARN, STRICT = "Ignore", "Warn", "Strict"
FIELD_VALIDATION = (IGNORE, WARN, STRICT)


def check_fields(obj: dict | None, duplicates: list[str], *, mode: str = WARN,
                 release: str = DEFAULT_RELEASE, file: str = "", where: str = "",
                 keep: frozenset[str] = frozenset()) -> list[str]:
    """Check obj (a decoded document) as the API server decodes it and return the warnings
    it would give; unknown fields are removed from obj. duplicates: the parser's messages for
    the keys the document repeats. Raises InputError naming file and where (the document and
    the object) when the object is refused. obj None: a document's repeated keys alone.
    keep: field paths another check explains (a release's gated fields), left to it."""
    definition = obj and kind_definition(obj.get("apiVersion") or "", obj.get("kind") or "",
                                         release)
    problems = field_problems(obj, definition, release, keep=keep) if definition else None
    if problems is not None and problems.out_of_range:
        path, message = problems.out_of_range[0]
        raise InputError(message, file=file, obj=where, field=path)
    strict = list(duplicates) + [f'unknown field "{p}"'
                                 for p in (problems.unknown if problems else [])]
    if not strict or mode == IGNORE:
        return []
    if mode == STRICT:
        raise InputError("strict decoding error: " + ", ".join(strict), file=file, obj=where)
    return strict
