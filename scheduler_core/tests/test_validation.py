"""apimachinery's util/validation as the plugins share it: Go measures lengths in bytes and its
anchored regexps match the whole value, so the Python port must not accept what Go rejects."""
import pytest

from scheduler_core.validation import (
    is_dns1123_subdomain,
    is_qualified_name,
    is_valid_label_value,
)

NAME_REGEX_ERROR = (
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end "
    "with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
    "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')")
LABEL_VALUE_REGEX_ERROR = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value', "
    " or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')")


@pytest.mark.parametrize("value,want", [
    pytest.param("example.com/MyName", [], id="a prefixed name"),
    pytest.param("name\n", [NAME_REGEX_ERROR], id="a trailing newline does not match"),
    pytest.param("é" * 32, ["name part must be no more than 63 characters", NAME_REGEX_ERROR],
                 id="the length is counted in bytes"),
])
def test_is_qualified_name(value, want):
    assert is_qualified_name(value) == want


@pytest.mark.parametrize("value,want", [
    pytest.param("", [], id="an empty value is valid"),
    pytest.param("my_value", [], id="underscores are allowed"),
    pytest.param("value\n", [LABEL_VALUE_REGEX_ERROR], id="a trailing newline does not match"),
    pytest.param("a" * 64, ["must be no more than 63 characters"], id="too long"),
])
def test_is_valid_label_value(value, want):
    assert is_valid_label_value(value) == want


def test_is_dns1123_subdomain_length_limit():
    assert is_dns1123_subdomain("a" * 253) == []
    assert is_dns1123_subdomain("a" * 254) == ["must be no more than 253 characters"]
