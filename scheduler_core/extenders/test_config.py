"""KubeSchedulerConfiguration.extenders: validateExtenders (validation_test.go's extender
cases), Go durations, the NodeResourcesFit wiring of buildExtenders and the client's setup."""
from __future__ import annotations

import base64

import pytest

from scheduler_core.config import API_VERSION, parse_configuration
from scheduler_core.errors import ConfigError
from scheduler_core.extenders.client import build_extenders
from scheduler_core.extenders.config import (
    DEFAULT_EXTENDER_TIMEOUT,
    parse_go_duration,
    timeout_seconds,
    validate_extenders,
)

URL = "http://127.0.0.1:8888/scheduler"
FOO = "example.com/foo"


def ext(**fields) -> dict:
    return {"urlPrefix": URL, **fields}


@pytest.mark.parametrize("extenders,want", [
    pytest.param([ext(filterVerb="filter", prioritizeVerb="prioritize", weight=1,
                      bindVerb="bind", preemptVerb="preempt", nodeCacheCapable=True,
                      ignorable=True, httpTimeout="2s", enableHTTPS=True,
                      tlsConfig={"insecure": True, "serverName": "x"},
                      managedResources=[{"name": FOO, "ignoredByScheduler": True}])],
                 [], id="a complete extender is valid"),
    pytest.param([ext(prioritizeVerb="prioritize")],
                 ["extenders[0].weight: Invalid value: 0: must have a positive weight applied "
                  "to it"], id="prioritize without a weight"),
    pytest.param([ext(prioritizeVerb="prioritize", weight=-2)],
                 ["extenders[0].weight: Invalid value: -2: must have a positive weight applied "
                  "to it"], id="negative weight"),
    pytest.param([ext(weight=-2)], [], id="weight is only checked with a prioritize verb"),
    pytest.param([ext(bindVerb="bind"), ext(bindVerb="bind")],
                 ['extenders: Invalid value: "found 2 extenders implementing bind": only one '
                  "extender can implement bind"], id="only one extender may bind"),
    pytest.param([ext(managedResources=[{"name": FOO}]), ext(managedResources=[{"name": FOO}])],
                 [f'extenders[1].managedResources[0].name: Invalid value: "{FOO}": duplicate '
                  "extender managed resource name"], id="duplicate managed resource names"),
    pytest.param([ext(managedResources=[{"name": "kubernetes.io/foo"}])],
                 ['extenders[0].managedResources[0].name: Invalid value: "kubernetes.io/foo": '
                  "is an invalid extended resource name"], id="a native resource is not extended"),
    pytest.param([ext(managedResources=[{"name": "foo"}])],
                 ['extenders[0].managedResources[0].name: Invalid value: "foo": is an invalid '
                  "extended resource name"], id="an unprefixed name is not extended"),
    pytest.param([ext(managedResources=[{"name": "example.com/-foo"}])],
                 ['extenders[0].managedResources[0].name: Invalid value: "example.com/-foo": '
                  "name part must consist of alphanumeric characters, '-', '_' or '.', and must "
                  "start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  "
                  "or '123-abc', regex used for validation is "
                  "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"],
                 id="a managed resource name must be a qualified name"),
    pytest.param([{"filterVerb": "filter"}], ["extenders[0].urlPrefix: Required value"],
                 id="urlPrefix is required"),
    pytest.param([ext(httpTimeout="soon")],
                 ['extenders[0].httpTimeout: Invalid value: "soon": time: invalid duration '
                  '"soon"'], id="httpTimeout must be a Go duration"),
    pytest.param([ext(httpTimeout="30")],
                 ['extenders[0].httpTimeout: Invalid value: "30": time: missing unit in '
                  'duration "30"'], id="a duration needs a unit"),
    pytest.param([ext(prioritizeVerb="p", weight="high")],
                 ['extenders[0].weight: Invalid value: "high": must be an integer',
                  "extenders[0].weight: Invalid value: 0: must have a positive weight applied "
                  "to it"], id="weight must be an integer"),
    pytest.param([ext(ignorable="yes")],
                 ['extenders[0].ignorable: Invalid value: "yes": must be a boolean'],
                 id="ignorable must be a boolean"),
    pytest.param([ext(tlsConfig={"caData": "not base64!"})],
                 ['extenders[0].tlsConfig.caData: Invalid value: "<data>": must be '
                  "base64-encoded (a []byte field in JSON)"], id="tls data is base64"),
])
def test_validate_extenders(extenders, want):
    assert validate_extenders(extenders) == want


def test_invalid_extenders_make_the_configuration_invalid():
    raw = {"apiVersion": API_VERSION, "kind": "KubeSchedulerConfiguration",
           "extenders": [ext(bindVerb="bind"), ext(bindVerb="bind")]}
    with pytest.raises(ConfigError, match="only one extender can implement bind"):
        parse_configuration(raw)


@pytest.mark.parametrize("text,seconds", [
    ("30s", 30), ("1m30s", 90), ("500ms", 0.5), ("1.5h", 5400), ("0", 0), ("-2s", -2),
    ("250us", 0.00025), (".5s", 0.5),
])
def test_go_durations(text, seconds):
    assert parse_go_duration(text) == pytest.approx(seconds)


@pytest.mark.parametrize("text,message", [
    ("", 'time: invalid duration ""'),
    ("10", 'time: missing unit in duration "10"'),
    ("5x", 'time: unknown unit "x" in duration "5x"'),
    ("s", 'time: invalid duration "s"'),
])
def test_bad_go_durations(text, message):
    with pytest.raises(ValueError) as err:
        parse_go_duration(text)
    assert str(err.value) == message


@pytest.mark.parametrize("value,seconds", [
    (None, DEFAULT_EXTENDER_TIMEOUT), ("0s", DEFAULT_EXTENDER_TIMEOUT), ("2s", 2.0),
    (0.25, 0.25), ("-1s", None)],
    ids=["unset is extender.go's 5s default", "zero is the default too", "a duration",
         "a number of seconds", "negative means no deadline"])
def test_timeout_seconds(value, seconds):
    assert timeout_seconds(value) == seconds


# --- ignoredByScheduler -> NodeResourcesFit (scheduler.go buildExtenders) ----------------------
def config(profiles, extenders) -> dict:
    return {"apiVersion": API_VERSION, "kind": "KubeSchedulerConfiguration",
            "profiles": profiles, "extenders": extenders}


def test_ignored_resources_replace_node_resources_fit_ignored_resources_in_every_profile():
    fit_args = {"ignoredResources": ["other.com/bar"], "ignoredResourceGroups": ["group.com"]}
    profiles = [{"schedulerName": "a", "pluginConfig": [{"name": "NodeResourcesFit",
                                                         "args": fit_args}]},
                {"schedulerName": "b"}]
    extenders = [ext(managedResources=[{"name": FOO, "ignoredByScheduler": True},
                                       {"name": "example.com/kept"}]),
                 {"urlPrefix": "http://127.0.0.1:9999",
                  "managedResources": [{"name": "example.com/bar", "ignoredByScheduler": True}]}]
    cfg = parse_configuration(config(profiles, extenders))
    for profile in cfg.profiles:
        args = profile.plugin_config["NodeResourcesFit"]
        assert args["ignoredResources"] == [FOO, "example.com/bar"]
    assert cfg.profiles[0].plugin_config["NodeResourcesFit"]["ignoredResourceGroups"] == \
        ["group.com"]


def test_no_ignored_resources_leave_node_resources_fit_alone():
    profiles = [{"pluginConfig": [{"name": "NodeResourcesFit",
                                   "args": {"ignoredResources": ["other.com/bar"]}}]}]
    cfg = parse_configuration(config(profiles, [ext(managedResources=[{"name": FOO}])]))
    assert cfg.profiles[0].plugin_config["NodeResourcesFit"]["ignoredResources"] == \
        ["other.com/bar"]


def test_ignored_resources_need_node_resources_fit_args_in_every_profile():
    minimal = {"multiPoint": {"enabled": [{"name": "PrioritySort"}, {"name": "DefaultBinder"}],
                              "disabled": [{"name": "*"}]}}
    extenders = [ext(managedResources=[{"name": FOO, "ignoredByScheduler": True}])]
    with pytest.raises(ConfigError, match="can't find NodeResourcesFitArgs in plugin config"):
        parse_configuration(config([{"plugins": minimal}], extenders))


# --- building the clients ------------------------------------------------------------------------
def test_ignorable_extenders_are_placed_last():
    extenders = build_extenders([ext(ignorable=True), {"urlPrefix": "http://127.0.0.1:1"},
                                 {"urlPrefix": "http://127.0.0.1:2", "ignorable": True}])
    assert [e.name() for e in extenders] == [
        "http://127.0.0.1:1", URL, "http://127.0.0.1:2"]


def test_a_ca_with_the_insecure_flag_is_refused():
    ca = base64.b64encode(b"-----BEGIN CERTIFICATE-----\n").decode()
    with pytest.raises(ConfigError, match="specifying a root certificates file with the "
                                          "insecure flag is not allowed"):
        build_extenders([ext(tlsConfig={"insecure": True, "caData": ca})])


def test_plugin_names_and_interfaces():
    extender, = build_extenders([ext(bindVerb="bind", preemptVerb="preempt", ignorable=True)])
    assert extender.plugin == f"extender:{URL}"
    assert extender.is_binder() and extender.supports_preemption() and extender.is_ignorable()
    assert extender.url("filter") == URL + "/filter"
    assert build_extenders([{"urlPrefix": URL + "/"}])[0].url("filter") == URL + "/filter"
