"""/api/auth/token/: tokens for scripts (Authorization: Token <key>)."""

import pytest


def test_a_token_opens_the_api_to_scripts(alice, cluster, client):
    response = client.post("/api/auth/token/", {"username": "alice",
                                                "password": "alice-password-1"})
    assert response.status_code == 200
    token = response.json()["token"]
    listed = client.get("/api/clusters/", HTTP_AUTHORIZATION=f"Token {token}")
    assert listed.status_code == 200
    assert listed.json()["count"] == 1


def test_the_same_user_gets_the_same_token(alice, client):
    body = {"username": "alice", "password": "alice-password-1"}
    assert client.post("/api/auth/token/", body).json() == \
        client.post("/api/auth/token/", body).json()


@pytest.mark.parametrize("body", [{"username": "alice", "password": "wrong"}, {}],
                         ids=["wrong password", "nothing"])
def test_it_rejects_bad_credentials(alice, client, body):
    response = client.post("/api/auth/token/", body)
    assert response.status_code == 400


def test_it_rejects_a_bad_token(client, db):
    response = client.get("/api/clusters/", HTTP_AUTHORIZATION="Token nope")
    assert response.status_code in (401, 403)
    assert response.json()["detail"] == "Invalid token."
