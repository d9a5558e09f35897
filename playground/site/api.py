"""/api/auth/token/: a token for scripts, behind the same sign-in lockout as the pages."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema, extend_schema_view, inline_serializer
from rest_framework import serializers as drf_serializers
from rest_framework.authtoken.views import ObtainAuthToken
from rest_framework.exceptions import Throttled, ValidationError
from rest_framework.parsers import FormParser, MultiPartParser

from playground.api.base import errors
from playground.api.errors import SafeJSONParser
from playground.site import throttling


@extend_schema_view(post=extend_schema(
    summary="A token for scripts: send it as `Authorization: Token <key>`",
    responses={200: inline_serializer("AuthTokenResponse", {"token": drf_serializers.CharField()}),
               **errors(400, 429)},
))
class TokenView(ObtainAuthToken):
    """Locked out (429, Retry-After) after too many failed attempts from one address."""

    parser_classes = [SafeJSONParser, FormParser, MultiPartParser]

    def post(self, request, *args, **kwargs):
        wait = throttling.sign_in_wait(request)
        if wait:
            raise Throttled(wait=wait, detail="too many failed sign-ins")
        try:
            return super().post(request, *args, **kwargs)
        except ValidationError:
            throttling.record_sign_in_failure(request)
            raise
