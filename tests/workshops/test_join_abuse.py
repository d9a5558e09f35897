"""Joining cannot be flooded and names cannot be forged: the join throttle (per address, per
workshop: 429 with Retry-After), display names compared as the room reads them, and the CSV
of predictions safe to open in a spreadsheet."""

import csv
import io

import pytest
from rest_framework.test import APIClient

from playground.workshops import services
from playground.workshops.models import Attendee
from playground.workshops.selectors import csv_cell
from tests.workshops.conftest import url

JOIN = "/api/workshops/join/"


def join(code, name, address="203.0.113.7"):
    return APIClient(REMOTE_ADDR=address).post(JOIN, {"code": code, "display_name": name},
                                               format="json")


@pytest.fixture
def limits(settings):
    settings.PLAYGROUND_JOIN_FAILURES = 3
    settings.PLAYGROUND_JOIN_PER_ADDRESS = 4
    settings.PLAYGROUND_JOIN_PER_WORKSHOP = 6
    settings.PLAYGROUND_JOIN_WINDOW_SECONDS = 60
    return settings


def test_wrong_codes_from_one_address_are_throttled_with_retry_after(workshop, limits):
    for _ in range(3):
        assert join("WRONG1", "Zed").status_code == 400
    throttled = join(workshop.code, "Zed")  # even the right code, until the window moves on
    assert throttled.status_code == 429
    assert 1 <= int(throttled["Retry-After"]) <= 60
    assert "too many refused joins from your address" in throttled.json()["detail"]
    # Another address is not held up.
    assert join(workshop.code, "Zed", address="198.51.100.2").status_code == 200


def test_accounts_made_from_one_address_are_throttled(workshop, limits):
    assert [join(workshop.code, f"P{i}").status_code for i in range(5)] == [200] * 4 + [429]
    assert Attendee.objects.filter(workshop=workshop).count() == 4


def test_accounts_made_in_one_workshop_are_throttled_whatever_the_address(workshop, limits):
    codes = [join(workshop.code, f"P{i}", address=f"192.0.2.{i}").status_code
             for i in range(7)]
    assert codes == [200] * 6 + [429]


def test_the_join_page_is_throttled_too(client, workshop, limits):
    for _ in range(3):
        client.post("/join/", {"code": "WRONG1", "display_name": "Zed"})
    page = client.post("/join/", {"code": workshop.code, "display_name": "Zed"})
    assert page.status_code == 429 and int(page["Retry-After"]) >= 1
    assert b"too many refused joins from your address" in page.content


def test_a_browser_coming_back_is_not_counted(workshop, limits):
    client = APIClient(REMOTE_ADDR="203.0.113.9")
    for _ in range(6):
        assert client.post(JOIN, {"code": workshop.code, "display_name": "Ana"},
                           format="json").status_code == 200
    assert Attendee.objects.filter(workshop=workshop).count() == 1


@pytest.mark.parametrize("twin", ["a3dup", "Ａ３ＤＵＰ", "A3D\u200bUP",
                                  " A3DUP ", "A3DUP\u3000"])
def test_names_the_room_cannot_tell_apart_are_one_name(workshop, twin):
    assert join(workshop.code, "A3DUP").status_code == 200
    response = join(workshop.code, twin, address="198.51.100.3")
    assert response.status_code == 400, twin
    assert "already called" in response.json()["display_name"][0]


@pytest.mark.parametrize("control", ["\u202e", "\u202d", "\u2066", "\u200f", "\u061c"])
def test_bidirectional_control_characters_are_refused(workshop, control):
    response = join(workshop.code, f"PUD3A{control}")
    assert response.status_code == 400
    assert response.json() == {"display_name": [
        f"bidirectional control characters are not allowed (U+{ord(control):04X})"]}


def test_name_keys_fold_case_width_and_invisible_characters():
    assert services.name_key("Ａｎａ") == services.name_key("ANA") == "ana"
    assert services.name_key("Stra\u00dfe") == services.name_key("STRASSE")
    assert services.name_key("ﬁnn") == "finn"
    assert services.name_key("A\u200db") == "ab"


def test_the_csv_neutralises_formulas(room, workshop, presented):
    client = APIClient()
    client.post(JOIN, {"code": workshop.code, "display_name": '=HYPERLINK("http://x","y")'},
                format="json")
    question = room["trainer"].post(url(workshop, "questions/"),
                                    {"point": "Score", "cycle_index": 3}, format="json").json()
    client.post(url(workshop, f"questions/{question['id']}/predictions/"),
                {"answer": ["node-b"]}, format="json")
    text = room["trainer"].get(url(workshop, "predictions.csv")).content.decode()
    (row,) = csv.DictReader(io.StringIO(text))
    assert row["attendee"] == '\'=HYPERLINK("http://x","y")'
    for start in "=+-@\t\r":
        assert csv_cell(f"{start}1+1") == f"'{start}1+1"
    assert csv_cell("node-b") == "node-b"
