from django.http import HttpResponsePermanentRedirect, JsonResponse
from django.templatetags.static import static
from django.views.decorators.cache import never_cache
from django.views.generic import TemplateView

from playground.site.health import run_checks


class HomeView(TemplateView):
    template_name = "playground/home.html"


@never_cache
async def healthz(request):
    """Database, channel layer and broker status; 200 when all are ok, else 503."""
    report = await run_checks()
    return JsonResponse(report, status=200 if report["ok"] else 503)


def favicon(request):
    """/favicon.ico, which browsers ask for on pages without a <link rel="icon"> (the admin,
    DRF's sign-in). Resolved per request: the static manifest may not exist at import."""
    return HttpResponsePermanentRedirect(static("img/favicon.svg"))
