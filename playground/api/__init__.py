"""What the features' REST API views (`<feature>/api.py`, under /api/) share: the mixin and the
documented errors (base), the serializers, pagination, JSON errors; no view of its own."""
