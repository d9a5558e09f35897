"""The sign-in, join and workshop pages: who sees which, and clear messages for bad codes."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from playground.workshops import services
from playground.workshops.models import Attendee
from tests.helpers import make_user


def join(client, code, name="Ana"):
    return client.post("/join/", {"code": code, "display_name": name})


def test_the_sign_in_page_is_the_apps_own_and_signs_in(db):
    make_user("carol")
    client = Client()
    page = client.get("/login/?next=/clusters/").content.decode()
    assert "css/pages.css" in page and "Join with the code" in page
    response = client.post("/login/", {"username": "carol", "password": "carol-password-1",
                                       "next": "/clusters/"})
    assert response.status_code == 302 and response["Location"] == "/clusters/"


def test_a_wrong_sign_in_says_so(db):
    response = Client().post("/login/", {"username": "nobody", "password": "x"})
    assert response.status_code == 200
    assert "enter a correct username and password" in response.content.decode().lower()


def test_pages_send_anonymous_users_to_the_sign_in_page(workshop):
    for url in ("/workshops/", f"/workshops/{workshop.code}/"):
        response = Client().get(url)
        assert response.status_code == 302 and response["Location"].startswith("/login/")


def test_home_links_to_clusters_workshops_and_join(db):
    page = Client().get("/").content.decode()
    for href in ('href="/clusters/"', 'href="/workshops/"', 'href="/join/"', 'href="/login/"'):
        assert href in page


def test_joining_signs_in_a_new_user_and_coming_back_resumes(workshop):
    client = Client()
    response = join(client, workshop.code.lower())
    assert response.status_code == 302 and response["Location"] == f"/workshops/{workshop.code}/"
    attendee = Attendee.objects.get()
    assert attendee.display_name == "Ana" and not attendee.user.has_usable_password()
    page = client.get(f"/workshops/{workshop.code}/").content.decode()
    assert 'data-role="attendee"' in page and "Ana" in page
    again = client.get(f"/join/{workshop.code}/")
    assert again.status_code == 302 and again["Location"] == f"/workshops/{workshop.code}/"
    assert join(client, workshop.code, "Someone else").status_code == 302
    assert Attendee.objects.count() == 1


@pytest.mark.parametrize("case, message", [
    ("wrong", "no workshop has the code"),
    ("closed", "is closed"),
    ("expired", "expired at"),
])
def test_a_bad_code_gets_a_clear_message(workshop, case, message):
    code = workshop.code
    if case == "wrong":
        code = "ZZZZZZ"
    elif case == "closed":
        services.workshop_close(workshop=workshop)
    else:
        workshop.expires = timezone.now() - timedelta(minutes=1)
        workshop.save()
    response = join(Client(), code)
    assert response.status_code == 400
    assert message in response.content.decode()
    assert not Attendee.objects.exists()


def test_a_taken_name_is_refused(workshop):
    join(Client(), workshop.code, "Ana")
    response = join(Client(), workshop.code, "Ana")
    assert response.status_code == 400 and "already called Ana" in response.content.decode()


def test_the_trainer_gets_the_dashboard(workshop, trainer_user):
    client = Client()
    client.force_login(trainer_user)
    page = client.get(f"/workshops/{workshop.code}/").content.decode()
    assert 'data-role="trainer"' in page and workshop.code in page


def test_it_rejects_other_attendees_sandbox_page(workshop, trainer_user):
    ana, ben = Client(), Client()
    join(ana, workshop.code, "Ana")
    join(ben, workshop.code, "Ben")
    sandbox = Attendee.objects.get(display_name="Ana").sandboxes.get()
    url = f"/workshops/{workshop.code}/sandboxes/{sandbox.pk}/"
    assert ana.get(url).status_code == 200
    assert ben.get(url).status_code == 404
    trainer = Client()
    trainer.force_login(trainer_user)
    assert "read-only" in trainer.get(url).content.decode()


def test_outsiders_and_attendees_do_not_get_the_presenter_page(workshop, trainer_user):
    services.workshop_present(workshop=workshop, lesson=workshop.lessons.get())
    ana, outsider = Client(), Client()
    join(ana, workshop.code)
    outsider.force_login(make_user("outsider"))
    url = f"/workshops/{workshop.code}/present/"
    assert ana.get(url).status_code == 404
    assert outsider.get(url).status_code == 404
    assert outsider.get(f"/workshops/{workshop.code}/").status_code == 404
    trainer = Client()
    trainer.force_login(trainer_user)
    page = trainer.get(url).content.decode()
    assert "presenter-init.js" in page and 'id="run-view"' in page


def test_the_join_page_refuses_nul_characters(workshop):
    response = Client().post("/join/", {"code": workshop.code, "display_name": "a\x00b"})
    assert response.status_code == 400
    assert "NUL characters are not allowed" in response.content.decode()


def test_the_presenter_view_of_a_new_workshop_offers_to_present_its_first_lesson(
        workshop, trainer_user):
    trainer = Client()
    trainer.force_login(trainer_user)
    url = f"/workshops/{workshop.code}/present/"
    first = trainer.get(url)
    assert first.status_code == 200
    assert "Nothing is on the projector yet" in first.content.decode()
    assert 'id="present-first"' in first.content.decode()
    presented = trainer.post(url)
    assert presented.status_code == 302 and presented["Location"] == url
    workshop.refresh_from_db()
    assert workshop.current_lesson.presenter_run is not None
    assert 'id="run-view"' in trainer.get(url).content.decode()


def test_a_closed_workshop_is_not_presented_and_says_why(workshop, trainer_user):
    services.workshop_close(workshop=workshop)
    trainer = Client()
    trainer.force_login(trainer_user)
    response = trainer.post(f"/workshops/{workshop.code}/present/")
    assert response.status_code == 409
    assert f"workshop {workshop.code} is closed" in response.content.decode()


def test_the_header_names_who_is_signed_in_and_offers_to_sign_out(workshop, trainer_user):
    ana = Client()
    join(ana, workshop.code)
    page = ana.get(f"/workshops/{workshop.code}/").content.decode()
    assert '<b id="signed-in-as">Ana</b>' in page and 'id="sign-out"' in page
    # An attendee's account is for the workshop: no API docs, no admin.
    assert "/api/docs/" not in page and "/admin/" not in page
    trainer = Client()
    trainer.force_login(trainer_user)
    mine = trainer.get("/workshops/").content.decode()
    assert '<b id="signed-in-as">trainer</b>' in mine and "/api/docs/" in mine
    assert "/admin/" not in mine  # the admin is for staff
    trainer_user.is_staff = True
    trainer_user.save()
    assert "/admin/" in trainer.get("/workshops/").content.decode()
    signed_out = ana.post("/logout/")
    assert signed_out.status_code == 302
    assert 'id="sign-in"' in Client().get("/").content.decode()
