"""The database in services mode really is PostgreSQL."""

import pytest
from django.db import connection

pytestmark = [pytest.mark.services, pytest.mark.django_db]


def test_the_database_is_postgresql():
    assert connection.vendor == "postgresql"
    with connection.cursor() as cursor:
        cursor.execute("SELECT version()")
        (version,) = cursor.fetchone()
    assert version.startswith("PostgreSQL")


def test_it_uses_psycopg_3():
    import psycopg

    assert connection.Database is psycopg
