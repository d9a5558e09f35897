"""`manage.py check --deploy` passes with a production-like environment."""

import secrets

from tests.helpers import run_manage

PRODUCTION = {
    "DJANGO_SECRET_KEY": secrets.token_urlsafe(64),
    "DJANGO_ALLOWED_HOSTS": "playground.example.com",
    "DJANGO_DEBUG": "0",
}


def test_check_deploy_passes_with_secret_hosts_and_debug_off():
    done = run_manage("check", "--deploy", "--fail-level", "WARNING", **PRODUCTION)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "System check identified no issues" in done.stdout


def test_check_deploy_fails_in_the_development_defaults():
    # Proves the check above has teeth: DEBUG on and the built-in key are both flagged.
    done = run_manage("check", "--deploy", "--fail-level", "WARNING")
    assert done.returncode != 0
    assert "security.W018" in done.stderr  # DEBUG
    assert "security.W009" in done.stderr  # SECRET_KEY
