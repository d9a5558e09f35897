"""The strict environment helpers behind settings.py."""

import pytest
from django.core.exceptions import ImproperlyConfigured

from playground.env import env_bool, env_choice, env_int, env_list, env_str, env_url

VAR = "PLAYGROUND_TEST_VARIABLE"


@pytest.fixture
def setenv(monkeypatch):
    monkeypatch.delenv(VAR, raising=False)
    return lambda value: monkeypatch.setenv(VAR, value)


def refused(call, *words):
    with pytest.raises(ImproperlyConfigured) as info:
        call()
    message = str(info.value)
    assert VAR in message
    for word in words:
        assert word in message
    return message


class TestEnvBool:
    def test_it_returns_the_default_when_unset_or_empty(self, setenv):
        assert env_bool(VAR, True) is True
        setenv("")
        assert env_bool(VAR, False) is False

    @pytest.mark.parametrize("value", ["1", "true", "True", "YES", "on"])
    def test_it_accepts_true_words(self, setenv, value):
        setenv(value)
        assert env_bool(VAR, False) is True

    @pytest.mark.parametrize("value", ["0", "false", "False", "no", "OFF"])
    def test_it_accepts_false_words(self, setenv, value):
        setenv(value)
        assert env_bool(VAR, True) is False

    @pytest.mark.parametrize("value", ["maybe", "2", "tru", "enabled"])
    def test_it_refuses_other_words(self, setenv, value):
        setenv(value)
        refused(lambda: env_bool(VAR, True), repr(value), "true/false")


class TestEnvInt:
    def test_it_parses_numbers(self, setenv):
        assert env_int(VAR, 7) == 7
        setenv(" 42 ")
        assert env_int(VAR, 7) == 42

    @pytest.mark.parametrize("value", ["forty", "4.5", "0x10", "1e3"])
    def test_it_refuses_non_numbers(self, setenv, value):
        setenv(value)
        refused(lambda: env_int(VAR, 1), "whole number")

    def test_it_enforces_bounds(self, setenv):
        setenv("0")
        refused(lambda: env_int(VAR, 1, minimum=1), ">= 1")
        setenv("100")
        refused(lambda: env_int(VAR, 1, maximum=32), "<= 32")
        setenv("32")
        assert env_int(VAR, 1, minimum=1, maximum=32) == 32


class TestEnvList:
    def test_it_splits_on_commas(self, setenv):
        assert env_list(VAR, ["a"]) == ["a"]
        setenv("example.com, www.example.com")
        assert env_list(VAR) == ["example.com", "www.example.com"]

    @pytest.mark.parametrize("value", ["a,,b", "a,", ",a"])
    def test_it_refuses_empty_items(self, setenv, value):
        setenv(value)
        refused(lambda: env_list(VAR), "empty items")


class TestEnvStr:
    def test_it_returns_the_value_or_default(self, setenv):
        assert env_str(VAR, "x") == "x"
        setenv("value")
        assert env_str(VAR, "x") == "value"

    def test_required_refuses_missing(self, setenv):
        refused(lambda: env_str(VAR, required=True), "must be set")


class TestEnvChoice:
    def test_it_matches_case_insensitively(self, setenv):
        setenv("debug")
        assert env_choice(VAR, ["DEBUG", "INFO"], "INFO") == "DEBUG"

    def test_it_refuses_unknown(self, setenv):
        setenv("LOUD")
        refused(lambda: env_choice(VAR, ["DEBUG", "INFO"], "INFO"), "DEBUG, INFO")


class TestEnvUrl:
    def test_it_accepts_listed_schemes(self, setenv):
        setenv("redis://127.0.0.1:6379/0")
        assert env_url(VAR, {"redis", "rediss"}) == "redis://127.0.0.1:6379/0"

    def test_it_refuses_other_schemes(self, setenv):
        setenv("mysql://root@localhost/test")
        refused(lambda: env_url(VAR, {"postgres", "sqlite"}), "postgres, sqlite")

    def test_it_refuses_a_missing_host(self, setenv):
        setenv("redis://")
        refused(lambda: env_url(VAR, {"redis"}), "host")

    def test_it_refuses_a_bad_port(self, setenv):
        setenv("redis://localhost:port/0")
        refused(lambda: env_url(VAR, {"redis"}), "not a URL")

    def test_it_refuses_text_that_is_not_a_url(self, setenv):
        setenv("127.0.0.1:6379")
        refused(lambda: env_url(VAR, {"redis"}))
