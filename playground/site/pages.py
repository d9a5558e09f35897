"""The browser pages: Django templates that load plain ES modules from frontend/js/.

Every piece of data they show comes from the REST API (/api/, documented at /api/docs/) or
the run websocket; a page only checks that the user may see what it is about.
"""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.shortcuts import get_object_or_404, render
from django.urls import path

from playground.clusters.selectors import clusters_visible_to
from playground.runs.selectors import runs_visible_to
from playground.workshops.lessons import lesson_text
from scheduler_core.features import DEFAULT_RELEASE, RELEASES

# The release pickers' choices (playground/pages/_release_select.html).
RELEASE_CHOICES = {"releases": RELEASES, "default_release": DEFAULT_RELEASE}

# The app's own sign-in page (playground.workshops.pages.SignInView).
LOGIN_URL = "/login/"

page = login_required(login_url=LOGIN_URL)


@page
def clusters_page(request):
    return render(request, "playground/pages/clusters.html", {"page": "clusters"})


@page
def cluster_page(request, pk: int):
    cluster = get_object_or_404(clusters_visible_to(request.user), pk=pk)
    return render(request, "playground/pages/cluster.html",
                  {"page": "cluster", "cluster": cluster, **RELEASE_CHOICES})


@page
def profile_page(request, pk: int):
    cluster = get_object_or_404(clusters_visible_to(request.user), pk=pk)
    return render(request, "playground/pages/profile.html",
                  {"page": "profile", "cluster": cluster, **RELEASE_CHOICES})


@page
def compare_page(request, pk: int):
    cluster = get_object_or_404(clusters_visible_to(request.user), pk=pk)
    return render(request, "playground/pages/compare.html",
                  {"page": "compare", "cluster": cluster, **RELEASE_CHOICES})


@page
def run_page(request, pk: int):
    run = get_object_or_404(runs_visible_to(request.user).select_related("cluster"), pk=pk)
    return render(request, "playground/pages/run.html",
                  {"page": "run", "run": run, "cluster": run.cluster,
                   "lesson_text": lesson_text(run.cluster, spoilers=True)})


urlpatterns = [
    path("clusters/", clusters_page, name="page-clusters"),
    path("clusters/<int:pk>/", cluster_page, name="page-cluster"),
    path("clusters/<int:pk>/profile/", profile_page, name="page-profile"),
    path("clusters/<int:pk>/compare/", compare_page, name="page-compare"),
    path("runs/<int:pk>/", run_page, name="page-run"),
]
