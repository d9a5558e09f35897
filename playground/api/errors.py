"""JSON answers for everything under /api/: unmatched paths, server errors, and the bodies the
safe reader refuses. Elsewhere Django's own HTML pages stay."""

from __future__ import annotations

from django.conf import settings
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


class ApiJsonErrorsMiddleware:
    """Outermost: every answer under /api/ is JSON, whatever failed on the way (a body over
    the limit, a parser, another middleware, Django's own 400 page in DEBUG): an error that
    is not JSON becomes `{"detail": "..."}` with its status. A body over
    PLAYGROUND_MAX_UPLOAD_BYTES and its envelope is refused (413) before anything reads it
    (the import names its `files` when the files alone are over)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if not _is_api(request):
            return self.get_response(request)
        limit = settings.PLAYGROUND_MAX_UPLOAD_BYTES + settings.UPLOAD_ENVELOPE_BYTES
        length = _content_length(request)
        if length is None:
            return JsonResponse({"detail": "Content-Length is not a number"}, status=400)
        if length > limit:
            return JsonResponse({"detail": f"request body is {length} bytes; the limit is "
                                           f"{limit} bytes (PLAYGROUND_MAX_UPLOAD_BYTES and "
                                           f"1 MiB of envelope)"}, status=413)
        response = self.get_response(request)
        if response.status_code >= 400 and not _is_json(response):
            answer = JsonResponse({"detail": _reason(response)}, status=response.status_code)
            for header, value in response.items():  # Retry-After, Allow, WWW-Authenticate...
                if header.lower() not in ("content-type", "content-length"):
                    answer[header] = value
            return answer
        return response


def _content_length(request) -> int | None:
    try:
        return int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return None


def _is_json(response) -> bool:
    return (response.get("Content-Type") or "").split(";")[0].strip() == "application/json"


def _reason(response) -> str:
    """A short text for an error page: its plain text when it is short, else the reason."""
    if not getattr(response, "streaming", False):
        text = response.content.decode("utf-8", "replace").strip()
        plain = (response.get("Content-Type") or "").startswith("text/plain")
        if plain and text and len(text) <= 500:
            return text
    return response.reason_phrase or f"HTTP {response.status_code}"
