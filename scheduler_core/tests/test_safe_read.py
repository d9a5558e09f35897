"""The safe reader: hostile YAML and JSON are refused with one clear message, quickly, by the
library and by the command line (exit 2, one stderr line, nothing on stdout)."""
import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from scheduler_core import safe_read
from scheduler_core.errors import InputError

ROOT = Path(__file__).resolve().parents[2]
DEEP_JSON = "[" * 100_000 + "]" * 100_000
DEEP_YAML = "spec: " + "[" * 100_000 + "]" * 100_000
DEEP_BLOCK = "".join(" " * i + "- \n" for i in range(300))
# Nine levels of nine aliases each: 800 bytes that expand to 9**9 strings.
ALIAS_BOMB = 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n' + "".join(
    f"{n}: &{n} [{', '.join(['*' + p] * 9)}]\n" for p, n in zip("abcdefgh", "bcdefghi"))


def refused(text: str) -> str:
    with pytest.raises(InputError) as caught:
        safe_read.read_documents(text, source="in.yaml")
    assert str(caught.value).startswith("in.yaml: ")
    return str(caught.value)


def test_the_alias_bomb_is_small():
    assert len(ALIAS_BOMB) < 900


@pytest.mark.parametrize("text", [DEEP_JSON, DEEP_YAML, DEEP_BLOCK,
                                  '{"a":' * 5000 + "1" + "}" * 5000])
def test_deep_nesting_is_refused_before_recursing(text):
    assert refused(text).endswith("nesting is deeper than the limit of 100 levels")


def test_nesting_at_the_limit_is_read():
    expected: list = []
    for _ in range(99):
        expected = [expected]
    assert safe_read.read_documents("[" * 100 + "]" * 100) == expected


def test_brackets_inside_json_strings_do_not_count():
    assert safe_read.read_documents('{"a": "' + "[" * 500 + '"}') == [{"a": "[" * 500}]


def test_an_alias_bomb_is_refused_quickly():
    start = time.monotonic()
    message = refused(ALIAS_BOMB)
    assert "aliases expand to more than 1000000 nodes" in message
    assert time.monotonic() - start < 5


def test_a_few_aliases_are_read():
    docs = safe_read.read_documents("a: &x {k: v}\nb: *x\n")
    assert docs == [{"a": {"k": "v"}, "b": {"k": "v"}}]


@pytest.mark.parametrize("text", ['{"name": "\\uD83D"}', 'name: "\\uD83D"\n',
                                  '{"\\uDE00": 1}'])
def test_a_lone_surrogate_is_refused_the_same_by_yaml_and_json(text):
    assert refused(text).endswith(
        "invalid Unicode: a lone surrogate escape (such as \\uD83D) is not a character")


def test_a_surrogate_pair_in_json_is_one_character():
    assert safe_read.read_documents('{"a": "\\uD83D\\uDE00"}') == [{"a": "\U0001F600"}]


def test_timestamps_stay_strings_as_in_json():
    docs = safe_read.read_documents("t: 2024-01-01T00:00:00Z\nd: 2024-01-01\n")
    assert docs == [{"t": "2024-01-01T00:00:00Z", "d": "2024-01-01"}]


def test_a_parse_error_is_one_line_naming_the_source():
    message = refused("a: [1, 2\nb: {")
    assert message == ("in.yaml: cannot parse YAML: line 2, column 2: did not find expected "
                       "',' or ']' (while parsing a flow sequence at line 1)")


def test_over_the_size_limit(monkeypatch):
    monkeypatch.setattr(safe_read, "MAX_BYTES", 10)
    assert refused("a: 12345678901").endswith("is larger than the limit of 10 bytes")


@pytest.mark.parametrize("text", [DEEP_JSON, DEEP_YAML, ALIAS_BOMB, 'name: "\\uD83D"\n'])
def test_the_command_line_exits_2_with_one_line_naming_the_file(tmp_path, text):
    path = tmp_path / "hostile.yaml"
    path.write_text(text)
    done = subprocess.run([sys.executable, "-m", "scheduler_core", "simulate", str(path)],
                          cwd=ROOT, capture_output=True, timeout=60)
    assert done.returncode == 2
    assert done.stdout == b""
    lines = done.stderr.decode().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {path}: ")
    assert "Traceback" not in lines[0]


@pytest.mark.parametrize("text,depth,keys", [
    pytest.param("1", 0, 0, id="a scalar"),
    pytest.param("[[1], {\"a\": [2]}]", 3, 1, id="arrays and objects"),
    pytest.param('{"a": "[[[{{"}', 1, 1, id="brackets in a string"),
    pytest.param('{"a": "x\\"[[[", "b": [1]}', 2, 2, id="an escaped quote keeps the string open"),
    pytest.param('{"a": "x\\\\", "b": [[1]]}', 3, 2, id="an escaped backslash closes it"),
    pytest.param('["\\\\\\"]]", [[]]]', 3, 0, id="three backslashes before a quote escape it"),
    pytest.param('{"a:b": "c:d", "e": {"f": 1}}', 2, 3, id="colons in strings are no keys"),
])
def test_the_depth_and_keys_of_valid_json_are_counted_outside_strings(text, depth, keys):
    data = np.frombuffer(text.encode(), np.uint8)
    assert safe_read._json_structure(data) == (depth, keys)


@pytest.mark.parametrize("text, repeated", [
    pytest.param('{"a": 1, "a": 2}', ['duplicate field "a"'], id="at the top"),
    pytest.param('[{"kind": "Pod", "spec": {"x": [{"k": 1, "k": 2}]}}]',
                 ['duplicate field "spec.x[0].k"'], id="deep in a document of an array"),
    pytest.param('{"a": "k", "k": 1}', [], id="a value equal to a key is no repeat"),
])
def test_json_keys_repeated_are_found_behind_the_fast_reader(text, repeated):
    docs, duplicates = safe_read.read_with_duplicates(text, source="in.json")
    assert [d.message() for d in duplicates] == repeated
    want = json.loads(text)
    assert docs == (want if isinstance(want, list) else [want])


def test_yaml_keys_repeated_are_found_with_their_lines_and_merge_keys_are_not():
    text = "a: 1\nb: {c: 1, c: 2}\na: 3\n---\nbase: &m {q: 1}\nz:\n  <<: *m\n  q: 2\n"
    docs, duplicates = safe_read.read_with_duplicates(text)
    assert docs[0] == {"a": 3, "b": {"c": 2}}
    assert [(d.document, d.message()) for d in duplicates] == [
        (0, 'line 2: key "c" already set in map'), (0, 'line 3: key "a" already set in map')]


def test_a_template_is_read_as_yaml_and_told_so():
    message = refused("{{- if .Values.enabled }}\nkind: Pod\n{{- end }}\n")
    assert message.startswith("in.yaml: cannot parse YAML: line 1, column 3: ")
    assert message.endswith("(a template? render it first, e.g. with `helm template`)")


@pytest.mark.parametrize("text", ["[NaN]", "[1e400]", "[123456789012345678901234567890]",
                                  '["1234567890123456789", 18446744073709551616]'])
def test_what_orjson_refuses_is_read_as_the_standard_library_reads_it(text):
    assert safe_read.read_json(text) == json.loads(text)


def _structure_by_hand(text: str) -> tuple[int, int]:
    """Depth and keys of valid JSON text, scanned character by character."""
    depth = deepest = keys = 0
    inside = escaped = False
    for ch in text:
        if inside:
            inside, escaped = (inside, False) if escaped else (ch != '"', ch == "\\")
        elif ch == '"':
            inside = True
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth -= 1
        elif ch == ":":
            keys += 1
    return deepest, keys


@pytest.mark.parametrize("chunk", [1, 2, 3, 7, 1 << 22])
@pytest.mark.parametrize("text", [
    '{"a\\\\": [1, {"b": "x\\"y:["}]}', "[[[]]]", "{}", '"a:b"', "",
    json.dumps({f"k{i}": [[{"x": '\\"]:{', "y": [{}] * i}]] for i in range(4)}),
])
def test_json_structure_counts_depth_and_keys_across_chunks(monkeypatch, chunk, text):
    monkeypatch.setattr(safe_read, "_CHUNK", chunk)
    data = np.frombuffer(text.encode(), np.uint8)
    assert safe_read._json_structure(data) == _structure_by_hand(text)


@pytest.mark.parametrize("value", [
    {"a": 1}, {"a": ":x"}, [":a"], {":a": 1}, {"a\\": 1}, {'a"': {"b": [1, {"c": "d:e"}]}},
    {"a,": 1}, {"a{": {"[": ":"}}, {}, [], {"x": {"y": {}}}, ['":', '\\":'],
])
def test_the_keys_orjson_read_are_counted_as_on_arrays(value):
    # The byte search over the compact text and the count outside strings agree, strings
    # starting with a colon or holding quotes and backslashes included.
    text = safe_read.orjson.dumps(value)
    assert safe_read._keys_read(value) == safe_read._json_structure(
        np.frombuffer(text, np.uint8))[1]


def test_a_repeated_key_is_noted_when_the_strings_hold_colons():
    text = '{"items": [":a", {"k": ":b", "k": "c\\":"}]}'
    _, duplicates = safe_read.read_with_duplicates(text, source="f.json")
    assert [d.key for d in duplicates] == ["k"]
