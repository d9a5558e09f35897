"""The REST API (/api/): Django REST framework views over playground.services/selectors."""
