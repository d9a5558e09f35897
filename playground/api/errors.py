"""JSON answers for everything under /api/: unmatched paths, server errors, and the bodies the
safe reader refuses. Elsewhere Django's own HTML pages stay."""

from __future__ import annotations

from django.http import JsonResponse
from django.views import defaults
from django.views.decorators.csrf import csrf_exempt
from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

from scheduler_core.errors import InputError
from scheduler_core.safe_read import read_json

API_PREFIX = "/api/"


def _is_api(request) -> bool:
    return request.path.startswith(API_PREFIX)


@csrf_exempt
def api_not_found(request, *args, **kwargs):
    """The view for /api/ paths no route matched (exempt from CSRF: a POST there is a 404,
    not Django's HTML 403 page)."""
    return JsonResponse({"detail": f"no API endpoint at {request.path}"}, status=404)


def not_found(request, exception=None):
    """handler404: JSON under /api/, Django's page elsewhere."""
    if _is_api(request):
        return api_not_found(request)
    return defaults.page_not_found(request, exception)


def server_error(request):
    """handler500: JSON under /api/ (never a traceback), Django's page elsewhere."""
    if _is_api(request):
        return JsonResponse({"detail": "internal server error"}, status=500)
    return defaults.server_error(request)


class SafeJSONParser(JSONParser):
    """JSON request bodies through the engine's safe reader: nesting, size and lone
    surrogates are refused with a 400 before json.loads can recurse."""

    def parse(self, stream, media_type=None, parser_context=None):
        raw = stream.read() if stream is not None else b""
        try:
            text = raw.decode((parser_context or {}).get("encoding") or "utf-8")
            return read_json(text, source="request body")
        except UnicodeDecodeError as exc:
            raise ParseError(f"request body: not UTF-8 ({exc.reason} at byte {exc.start})") \
                from exc
        except InputError as exc:
            raise ParseError(str(exc)) from exc
