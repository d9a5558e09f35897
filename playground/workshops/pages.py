"""Workshop pages: sign-in, join, the workshop list, the trainer's dashboard, the attendee's
page, a sandbox read-only, and the presenter's run.

The pages are templates that load ES modules from frontend/js/workshop/; their data comes
from /api/workshops/ and the workshop socket. Who may open what is the API's rule: a
workshop is "not found" to anyone outside it, a sandbox to other attendees.
"""

from __future__ import annotations

from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import path
from django.views.decorators.http import require_http_methods

from playground.errors import Conflict, InvalidInput
from playground.site.pages import RELEASE_CHOICES
from playground.site.throttling import throttle_sign_in
from playground.workshops import join_throttle, selectors, services
from playground.workshops.lessons import lesson_text

LOGIN_URL = "/login/"


def _member_or_404(request, code: str) -> selectors.Membership:
    member = selectors.membership(request.user, code)
    if member is None:
        raise Http404("no such workshop")
    return member


def _login_required(view):
    def wrapper(request, *args, **kwargs):
        if not request.user.is_authenticated:
            return redirect(f"{LOGIN_URL}?next={request.path}")
        return view(request, *args, **kwargs)

    wrapper.__name__ = view.__name__
    return wrapper


class SignInView(auth_views.LoginView):
    template_name = "workshops/signin.html"
    next_page = "/"
    extra_context = {"page": "signin"}


@require_http_methods(["GET", "POST"])
def join_page(request, code: str = ""):
    """Code and display name; a browser that joined before goes straight back in."""
    code = services.normalize_code(request.POST.get("code", code))
    member = selectors.membership(request.user, code) if code else None
    if member is not None and request.method == "GET":
        return redirect("page-workshop", code=member.workshop.code)
    errors, name, wait = {}, request.POST.get("display_name", ""), 0
    if request.method == "POST":
        try:
            attendee = join_throttle.throttled_join(
                request, code, lambda: services.workshop_join(code=code, display_name=name,
                                                              user=request.user))
        except InvalidInput as exc:
            errors = exc.errors
        except join_throttle.JoinThrottled as exc:
            errors, wait = {"code": [str(exc)]}, exc.wait
        else:
            if request.user != attendee.user:
                login(request, attendee.user,
                      backend="django.contrib.auth.backends.ModelBackend")
            return redirect("page-workshop", code=attendee.workshop.code)
    response = render(request, "workshops/join.html", {
        "page": "join", "code": code, "display_name": name, "errors": errors},
        status=429 if wait else 400 if errors else 200)
    if wait:
        response["Retry-After"] = str(wait)
    return response


@_login_required
def workshops_page(request):
    return render(request, "workshops/list.html", {"page": "workshops", **RELEASE_CHOICES})


@_login_required
def workshop_page(request, code: str):
    member = _member_or_404(request, code)
    template = "workshops/trainer.html" if member.is_trainer else "workshops/attendee.html"
    lesson = member.workshop.current_lesson
    return render(request, template, {
        "page": "workshop", "workshop": member.workshop, "member": member,
        "lesson_text": lesson_text(lesson.cluster, spoilers=member.is_trainer) if lesson
        else ""})


@_login_required
def sandbox_page(request, code: str, pk: int):
    member = _member_or_404(request, code)
    sandbox = get_object_or_404(selectors.sandboxes_visible(member), pk=pk)
    return render(request, "workshops/sandbox.html", {
        "page": "sandbox", "workshop": member.workshop, "sandbox": sandbox,
        "read_only": member.is_trainer})


@_login_required
@require_http_methods(["GET", "POST"])
def presenter_page(request, code: str):
    """The presenter's run in the run view, laid out for a 1280x720 projector. Before any
    lesson is presented: a page that offers to present the current one (a POST here)."""
    member = _member_or_404(request, code)
    lesson = member.workshop.current_lesson
    if not member.is_trainer or lesson is None:
        raise Http404("no such workshop")
    if request.method == "POST":
        try:
            services.workshop_present(workshop=member.workshop, lesson=lesson)
        except Conflict as exc:
            return render(request, "workshops/present_first.html", {
                "page": "workshop", "workshop": member.workshop, "lesson": lesson,
                "errors": exc.errors.get("detail", [])}, status=409)
        return redirect("page-workshop-present", code=member.workshop.code)
    if lesson.presenter_run is None:
        return render(request, "workshops/present_first.html", {
            "page": "workshop", "workshop": member.workshop, "lesson": lesson})
    run = lesson.presenter_run
    return render(request, "workshops/presenter.html", {
        "page": "run", "run": run, "cluster": run.cluster, "workshop": member.workshop,
        "lesson_text": lesson_text(lesson.cluster, spoilers=True)})


urlpatterns = [
    path("login/", throttle_sign_in(SignInView.as_view()), name="login"),
    path("logout/", auth_views.LogoutView.as_view(next_page="/"), name="logout"),
    path("join/", join_page, name="page-join"),
    path("join/<str:code>/", join_page, name="page-join-code"),
    path("workshops/", workshops_page, name="page-workshops"),
    path("workshops/<str:code>/", workshop_page, name="page-workshop"),
    path("workshops/<str:code>/present/", presenter_page, name="page-workshop-present"),
    path("workshops/<str:code>/sandboxes/<int:pk>/", sandbox_page,
         name="page-workshop-sandbox"),
]
