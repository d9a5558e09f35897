"""Quantity parsing, ported from apimachinery's quantity_test.go (TestQuantityParse and its
invalid list), plus the MilliValue/Value rounding the scheduler relies on."""
from decimal import Decimal

import pytest

from scheduler_core.quantity import (
    QuantityError,
    int_value,
    milli_value,
    parse_quantity,
    resource_value,
)

D = Decimal
PARSED = [
    ("0", 0), ("0n", 0), ("0u", 0), ("0m", 0), ("0Ki", 0), ("0k", 0), ("0Mi", 0), ("0M", 0),
    ("0Gi", 0), ("0G", 0), ("0Ti", 0), ("0T", 0),
    ("1", 1),
    # binary suffixes
    ("1Ki", 1024), ("8Ki", 8 * 1024), ("7Mi", 7 * 2**20), ("6Gi", 6 * 2**30),
    ("5Ti", 5 * 2**40), ("4Pi", 4 * 2**50), ("3Ei", 3 * 2**60), ("10Ti", 10 * 2**40),
    ("100Ti", 100 * 2**40), ("2Gi", 2 * 2**30),
    # decimal suffixes
    ("5n", D("5e-9")), ("4u", D("4e-6")), ("3m", D("0.003")), ("100m", D("0.1")), ("9", 9),
    ("8k", 8000), ("50k", 50000), ("7M", 7 * 10**6), ("6G", 6 * 10**9), ("1G", 10**9),
    ("5T", 5 * 10**12), ("40T", 40 * 10**12), ("300T", 300 * 10**12), ("2P", 2 * 10**15),
    ("1E", 10**18), ("12E", 12 * 10**18),
    # decimal exponents
    ("1E-3", D("0.001")), ("1e3", 1000), ("1E6", 10**6), ("1e9", 10**9), ("1E12", 10**12),
    ("1e15", 10**15), ("1E18", 10**18), ("1e14", 10**14), ("1e13", 10**13),
    ("100.035k", 100035),
    # things that look like floating point
    ("0.001", D("0.001")), ("0.0005k", D("0.5")), ("0.005", D("0.005")), ("0.05", D("0.05")),
    ("0.5", D("0.5")), ("1.5", D("1.5")), ("0.00050k", D("0.5")), ("0.00500", D("0.005")),
    ("0.5e0", D("0.5")), ("0.5e-1", D("0.05")), ("0.5e-2", D("0.005")),
    ("10.035M", 10035000), ("1.2e3", 1200), ("1.3E+6", 1300000), ("1.40e9", 14 * 10**8),
    ("1.53E12", 153 * 10**10), ("1.6e15", 16 * 10**14), ("1.7E18", 17 * 10**17),
    ("9.01", D("9.01")), ("8.1k", 8100), ("7.123456M", 7123456), ("6.987654321G", 6987654321),
    ("5.444T", 5444 * 10**9), ("40.1T", 401 * 10**11), ("300.2T", 3002 * 10**11),
    ("2.5P", 25 * 10**14), ("1.01E", 101 * 10**16),
    ("128974848", 128974848),
    # fractional binary
    ("100.035Ki", D("102435.84")), ("0.5Mi", 2**19), ("0.05Gi", D("53687091.2")),
    ("0.025Ti", D("27487790694.4")),
    # things written by trolls
    (".001", D("0.001")), (".0001k", D("0.1")), (".5", D("0.5")), ("1.", 1), ("1.G", 10**9),
]


@pytest.mark.parametrize("text,want", [pytest.param(t, w, id=t) for t, w in PARSED])
def test_parse_quantity(text, want):
    assert parse_quantity(text) == want
    assert parse_quantity("+" + text) == want
    assert parse_quantity("-" + text) == -want


INVALID = ["1.1.M", "1+1.0M", "0.1mi", "0.1am", "aoeu", ".5i", "1i", "-3.01i", "-3.01e-",
           " 1", "1 ", "1\n", "12x", "1.2.3", "", "Gi", ".", "1.5 Gi", "--1"]


@pytest.mark.parametrize("text", [pytest.param(t, id=repr(t)) for t in INVALID])
def test_invalid_quantity(text):
    with pytest.raises(QuantityError, match="quantities must match the regular expression"):
        parse_quantity(text)


def test_a_boolean_is_not_a_quantity():
    with pytest.raises(QuantityError):
        parse_quantity(True)


def test_numbers_from_yaml_are_quantities():
    assert parse_quantity(2) == 2
    assert parse_quantity(0.5) == D("0.5")


@pytest.mark.parametrize("text,milli,value", [
    pytest.param("100m", 100, 1, id="a tenth rounds up to one unit"),
    pytest.param("1.5", 1500, 2, id="one and a half"),
    pytest.param("3.001n", 1, 1, id="nanos round up to a milli"),
    pytest.param("0.0000000001", 1, 1, id="below a nano still rounds up"),
    pytest.param("2Gi", 2 * 2**30 * 1000, 2 * 2**30, id="binary"),
])
def test_milli_value_and_value_round_up(text, milli, value):
    assert (milli_value(text), int_value(text)) == (milli, value)


def test_resource_value_is_millicores_for_cpu_and_units_otherwise():
    assert resource_value("cpu", "100m") == 100
    assert resource_value("cpu", 2) == 2000
    assert resource_value("memory", "1Gi") == 2**30
    assert resource_value("pods", "110") == 110
    assert resource_value("example.com/gpu", "1") == 1


@pytest.mark.parametrize("value", ["1e400", "1e999999999", "9223372036854775808",
                                   "10000000000000000000Ei", float("inf"), float("-inf")])
def test_a_quantity_beyond_int64_is_refused_not_unlimited(value):
    with pytest.raises(QuantityError, match="must be"):
        resource_value("memory", value)


def test_cpu_is_refused_when_its_millicores_do_not_fit():
    assert resource_value("memory", "9223372036854775807") == 2**63 - 1
    with pytest.raises(QuantityError, match="must be no more than 9223372036854775807"):
        resource_value("cpu", "9223372036854775807")


def test_a_tiny_exponent_still_rounds_up():
    assert milli_value("1e-999999999") == 1
    assert milli_value("0e999999999") == 0


def test_nan_is_not_a_quantity():
    with pytest.raises(QuantityError, match="finite"):
        parse_quantity(float("nan"))
