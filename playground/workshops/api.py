"""REST endpoints of workshops, under /api/workshops/ (wired by playground.urls).

Who may call what: anyone may join with a code; a workshop is "not found" (404) to everyone
but its trainer and attendees; the trainer's endpoints answer 403 to attendees; an attendee's
sandbox is "not found" to other attendees. Refused input is a 400 naming the field.
"""

from __future__ import annotations

from django.contrib.auth import login
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404
from drf_spectacular.plumbing import build_array_type, build_basic_type
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.exceptions import PermissionDenied, Throttled
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from playground.api.base import ERRORS, PlaygroundMixin
from playground.clusters.selectors import clusters_visible_to
from playground.runs.selectors import run_summary
from playground.workshops import join_throttle, selectors, services
from playground.workshops.lessons import lesson_objects, lesson_text
from playground.workshops.models import Attendee, Question, WorkshopLesson
from scheduler_core.features import DEFAULT_RELEASE, RELEASES

READ = (401, 403, 404)
# Lists of JSON objects (the list endpoints answer arrays, not objects).
OBJECTS = build_array_type(build_basic_type(OpenApiTypes.OBJECT))
WRITE = (400, 401, 403, 404, 409)


def errors(*codes: int) -> dict:
    return {code: ERRORS[code] for code in codes}


class CreateSerializer(serializers.Serializer):
    title = serializers.CharField(max_length=200)
    lessons = serializers.ListField(child=serializers.IntegerField(min_value=1),
                                    min_length=1, max_length=services.MAX_LESSONS)
    hours = serializers.IntegerField(min_value=1, max_value=services.MAX_HOURS,
                                     default=services.DEFAULT_HOURS)
    release = serializers.CharField(
        max_length=16, required=False, allow_blank=True, default=DEFAULT_RELEASE,
        help_text=f"the kube-scheduler release every run of the workshop follows: "
                  f"{', '.join(RELEASES)}")
    feature_gates = serializers.JSONField(
        required=False, default=dict,
        help_text="feature gates on top of the release's defaults for every run of the "
                  "workshop, as kube-scheduler's --feature-gates takes them or as a map; "
                  "refused as a run's are")


class JoinSerializer(serializers.Serializer):
    code = serializers.CharField(max_length=20)
    display_name = serializers.CharField(max_length=60)


class PresentSerializer(serializers.Serializer):
    lesson = serializers.IntegerField(min_value=0, max_value=services.MAX_LESSONS)


class DetachSerializer(serializers.Serializer):
    cycles = serializers.IntegerField(min_value=0, required=False)


class AskSerializer(serializers.Serializer):
    point = serializers.ChoiceField(choices=list(services.PROMPTS))
    prompt = serializers.CharField(max_length=300, required=False, allow_blank=True)
    cycle_index = serializers.IntegerField(min_value=0, required=False)


class PredictSerializer(serializers.Serializer):
    answer = serializers.ListField(child=serializers.CharField(max_length=600), max_length=500)


def workshop_data(member: selectors.Membership) -> dict:
    w = member.workshop
    lesson = w.current_lesson
    lessons = [{"position": le.position, "cluster": le.cluster_id, "name": le.cluster.name,
                "presenter_run": le.presenter_run_id}
               for le in w.lessons.select_related("cluster")]
    question = selectors.open_question(w)
    data = {"code": w.code, "title": w.title, "state": w.state, "expires": w.expires,
            "joinable": w.joinable(), "join_path": f"/join/{w.code}/",
            "role": "trainer" if member.is_trainer else "attendee",
            "lessons": lessons, "current_lesson": lesson.position if lesson else None,
            "presenter_run": lesson.presenter_run_id if lesson else None,
            "release": w.release, "feature_gates": w.gates_flag,
            "open_question": services.question_data(question) if question else None}
    if not member.is_trainer:
        data["me"] = {"attendee": member.attendee.pk,
                      "display_name": member.attendee.display_name}
    return data


def sandbox_data(sandbox, *, withhold_run: bool = False) -> dict:
    """A sandbox as the API shows it; its run left out (withheld) while a question is open
    for the attendee looking at it (selectors.question_open_for)."""
    run = None if withhold_run else sandbox.run
    return {"id": sandbox.pk, "attendee": sandbox.attendee_id, "run_withheld": withhold_run,
            "display_name": sandbox.attendee.display_name,
            "lesson": sandbox.lesson.position, "cluster": sandbox.cluster_id,
            "copied": sandbox.cluster_id is not None,
            "cluster_name": sandbox.shown_cluster.name, "reset_count": sandbox.reset_count,
            "run": run_summary(run) if run is not None else None,
            "view_path": f"/workshops/{sandbox.lesson.workshop.code}/sandboxes/{sandbox.pk}/"}


class _WorkshopView(PlaygroundMixin, APIView):
    """Resolves the workshop of the URL for the user: 404 unless they are in it."""

    trainer_only = False

    def member(self) -> selectors.Membership:
        member = selectors.membership(self.request.user, self.kwargs["code"])
        if member is None:
            raise Http404("no such workshop")
        if self.trainer_only and not member.is_trainer:
            raise PermissionDenied("only the workshop's trainer may do this")
        return member

    def question(self, member) -> Question:
        return get_object_or_404(Question, workshop=member.workshop, pk=self.kwargs["pk"])

    def sandbox(self, member):
        return get_object_or_404(selectors.sandboxes_visible(member), pk=self.kwargs["pk"])


class WorkshopListView(PlaygroundMixin, APIView):
    @extend_schema(summary="Workshops you lead or attend", operation_id="workshops_list",
                   responses={200: OBJECTS, **errors(401, 403)})
    def get(self, request):
        out = []
        for workshop in selectors.workshops_of(request.user):
            member = selectors.membership(request.user, workshop.code)
            out.append(workshop_data(member))
        return Response(out)

    @extend_schema(summary="Create a workshop from lesson clusters (you are its trainer)",
                   request=CreateSerializer,
                   responses={201: OpenApiTypes.OBJECT, **errors(400, 401, 403)})
    def post(self, request):
        if Attendee.objects.filter(user=request.user).exists():
            raise PermissionDenied("a workshop attendee's account cannot lead a workshop")
        data = self.validated(CreateSerializer)
        visible = {c.pk: c for c in clusters_visible_to(request.user).filter(
            pk__in=data["lessons"])}
        missing = [pk for pk in data["lessons"] if pk not in visible]
        if missing:
            raise services.InvalidInput({"lessons": [f"no cluster {pk} that you can see"
                                                     for pk in missing]})
        workshop = services.workshop_create(trainer=request.user, title=data["title"],
                                            clusters=[visible[pk] for pk in data["lessons"]],
                                            hours=data["hours"], release=data["release"],
                                            feature_gates=data["feature_gates"])
        member = selectors.membership(request.user, workshop.code)
        return Response(workshop_data(member), status=status.HTTP_201_CREATED)


class JoinView(PlaygroundMixin, APIView):
    permission_classes = [AllowAny]

    @extend_schema(summary="Join a workshop with its code and a display name (signs you in)",
                   request=JoinSerializer, auth=[],
                   responses={200: OpenApiTypes.OBJECT, **errors(400, 401, 403, 429)})
    def post(self, request):
        data = self.validated(JoinSerializer)
        try:
            attendee = join_throttle.throttled_join(
                request, services.normalize_code(data["code"]),
                lambda: services.workshop_join(code=data["code"],
                                               display_name=data["display_name"],
                                               user=request.user))
        except join_throttle.JoinThrottled as exc:
            raise Throttled(wait=exc.wait, detail=str(exc)) from exc
        if request.user != attendee.user:
            login(request._request, attendee.user,
                  backend="django.contrib.auth.backends.ModelBackend")
        member = selectors.membership(attendee.user, attendee.workshop.code)
        return Response(workshop_data(member))


class WorkshopDetailView(_WorkshopView):
    @extend_schema(summary="A workshop you lead or attend",
                   responses={200: OpenApiTypes.OBJECT, **errors(*READ)})
    def get(self, request, code):
        return Response(workshop_data(self.member()))


class AttendeeListView(_WorkshopView):
    trainer_only = True

    @extend_schema(summary="The attendees (trainer)",
                   responses={200: OBJECTS, **errors(*READ)})
    def get(self, request, code):
        attendees = self.member().workshop.attendees.order_by("id")
        return Response([{"id": a.pk, "display_name": a.display_name, "joined": a.joined}
                         for a in attendees])


class SandboxListView(_WorkshopView):
    @extend_schema(summary="Sandboxes: all of them for the trainer, your own for an attendee",
                   operation_id="workshops_sandboxes_list",
                   responses={200: OBJECTS, **errors(*READ)})
    def get(self, request, code):
        member = self.member()
        withhold = not member.is_trainer and selectors.question_open_for(request.user)
        return Response([sandbox_data(s, withhold_run=withhold)
                         for s in selectors.sandboxes_visible(member)])


class SandboxDetailView(_WorkshopView):
    @extend_schema(summary="A sandbox with its objects (read-only for the trainer)",
                   responses={200: OpenApiTypes.OBJECT, **errors(*READ)})
    def get(self, request, code, pk):
        member = self.member()
        sandbox = self.sandbox(member)
        withhold = not member.is_trainer and selectors.question_open_for(request.user)
        return Response({**sandbox_data(sandbox, withhold_run=withhold),
                         "objects": lesson_objects(sandbox.shown_cluster)})


class SandboxResetView(_WorkshopView):
    trainer_only = True

    @extend_schema(summary="Reset one sandbox to the lesson (trainer)", request=None,
                   responses={200: OpenApiTypes.OBJECT, **errors(*WRITE)})
    def post(self, request, code, pk):
        sandbox = services.sandbox_reset(sandbox=self.sandbox(self.member()))
        return Response(sandbox_data(sandbox))


class SandboxDetachView(_WorkshopView):
    @extend_schema(summary="Your own run of your sandbox, taken to `cycles` cycles",
                   request=DetachSerializer,
                   responses={201: OpenApiTypes.OBJECT, **errors(*WRITE)})
    def post(self, request, code, pk):
        member = self.member()
        if member.is_trainer:
            raise PermissionDenied("the trainer follows nobody: only an attendee detaches")
        sandbox = self.sandbox(member)
        cycles = self.validated(DetachSerializer).get("cycles")
        if cycles is None:
            presenter = sandbox.lesson.presenter_run
            cycles = presenter.cycle_count if presenter is not None else 0
        run = services.sandbox_detach(sandbox=sandbox, cycles=cycles)
        return Response({"run": run_summary(run), "cycles": cycles},
                        status=status.HTTP_201_CREATED)


class ResetAllView(_WorkshopView):
    trainer_only = True

    @extend_schema(summary="Reset every sandbox to its lesson (trainer)", request=None,
                   responses={200: OpenApiTypes.OBJECT, **errors(*WRITE)})
    def post(self, request, code):
        return Response({"reset": services.workshop_reset_all(workshop=self.member().workshop)})


class CloseView(_WorkshopView):
    trainer_only = True

    @extend_schema(summary="Close the workshop: nobody joins any more (trainer)", request=None,
                   responses={200: OpenApiTypes.OBJECT, **errors(*WRITE)})
    def post(self, request, code):
        member = self.member()
        services.workshop_close(workshop=member.workshop)
        return Response(workshop_data(member))


class PresentView(_WorkshopView):
    trainer_only = True

    @extend_schema(summary="Put a lesson on the projector: its run is what attendees follow",
                   request=PresentSerializer,
                   responses={200: OpenApiTypes.OBJECT, **errors(*WRITE)})
    def post(self, request, code):
        member = self.member()
        position = self.validated(PresentSerializer)["lesson"]
        lesson = WorkshopLesson.objects.filter(workshop=member.workshop,
                                               position=position).first()
        if lesson is None:
            raise services.InvalidInput({"lesson": [f"this workshop has no lesson {position}"]})
        run = services.workshop_present(workshop=member.workshop, lesson=lesson)
        return Response({"lesson": position, "run": run_summary(run)})


class LessonView(_WorkshopView):
    @extend_schema(summary="The lesson on the projector: its text and its objects",
                   responses={200: OpenApiTypes.OBJECT, **errors(*READ)})
    def get(self, request, code):
        member = self.member()
        lesson = member.workshop.current_lesson
        if lesson is None:
            raise Http404("no lesson is presented")
        return Response({"position": lesson.position, "name": lesson.cluster.name,
                         "text": lesson_text(lesson.cluster, spoilers=member.is_trainer),
                         "objects": lesson_objects(lesson.cluster)})


class QuestionListView(_WorkshopView):
    @extend_schema(summary="The workshop's questions (answers once revealed)",
                   operation_id="workshops_questions_list",
                   responses={200: OBJECTS, **errors(*READ)})
    def get(self, request, code):
        member = self.member()
        return Response([services.question_data(q) for q in member.workshop.questions.all()])

    @extend_schema(summary="Ask a question at a point of a cycle of the presenter's run "
                           "(trainer)", request=AskSerializer,
                   responses={201: OpenApiTypes.OBJECT, **errors(*WRITE)})
    def post(self, request, code):
        member = self.member()
        if not member.is_trainer:
            raise PermissionDenied("only the workshop's trainer may ask")
        data = self.validated(AskSerializer)
        question = services.question_ask(workshop=member.workshop, point=data["point"],
                                         prompt=data.get("prompt") or "",
                                         cycle_index=data.get("cycle_index"))
        return Response(services.question_data(question), status=status.HTTP_201_CREATED)


class QuestionDetailView(_WorkshopView):
    @extend_schema(summary="A question: the tally for the trainer, your prediction for you",
                   responses={200: OpenApiTypes.OBJECT, **errors(*READ)})
    def get(self, request, code, pk):
        member = self.member()
        question = self.question(member)
        data = services.question_data(question)
        if member.is_trainer:
            data["tally"] = services.tally(question)
        else:
            mine = question.predictions.filter(attendee=member.attendee).first()
            data["mine"] = ({"answer": mine.answer, "correct": mine.correct}
                            if mine is not None else None)
        return Response(data)


class PredictionView(_WorkshopView):
    @extend_schema(summary="Submit (or change) your prediction", request=PredictSerializer,
                   responses={200: OpenApiTypes.OBJECT, **errors(*WRITE)})
    def post(self, request, code, pk):
        member = self.member()
        if member.is_trainer:
            raise PermissionDenied("the trainer knows the answer: only attendees predict")
        question = self.question(member)
        answer = self.validated(PredictSerializer)["answer"]
        prediction = services.prediction_submit(question=question, attendee=member.attendee,
                                                answer=answer)
        return Response({"question": question.pk, "answer": prediction.answer})


class RevealView(_WorkshopView):
    trainer_only = True

    @extend_schema(summary="Reveal the answer: every prediction marked right or wrong "
                           "(trainer)", request=None,
                   responses={200: OpenApiTypes.OBJECT, **errors(*WRITE)})
    def post(self, request, code, pk):
        member = self.member()
        question = services.question_reveal(question=self.question(member))
        return Response({**services.question_data(question), "tally": services.tally(question)})


class PredictionsCsvView(_WorkshopView):
    trainer_only = True

    @extend_schema(summary="Every prediction of the workshop as CSV (trainer)",
                   responses={(200, "text/csv"): inline_serializer("Csv", {}),
                              **errors(*READ)})
    def get(self, request, code):
        member = self.member()
        response = HttpResponse(selectors.predictions_csv(member.workshop),
                                content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = (
            f'attachment; filename="workshop-{member.workshop.code}-predictions.csv"')
        return response
