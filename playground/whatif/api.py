"""/api/runs/<id>/global-placement/: the global placement beside the scheduler's."""
from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from playground.api.base import READ_ERRORS, PlaygroundMixin, errors
from playground.errors import InvalidInput
from playground.whatif.placement import MAX_TIME_LIMIT, global_placement


class RunGlobalPlacementView(PlaygroundMixin, APIView):
    @extend_schema(
        summary="The global placement of the run's pending pods beside the scheduler's",
        description="`python -m scheduler_core optimize` on the run's cluster: the scheduler's "
                    "bindings, the solver's (status OPTIMAL, or FEASIBLE when the time limit "
                    "stopped it), the pods the scheduler left pending that it binds with the "
                    "early decision that took their node (`gained`), and the enabled Filter "
                    "plugins it does not model (`unmodelled`). 413 past the solver's limits.",
        parameters=[OpenApiParameter("time_limit", OpenApiTypes.NUMBER,
                                     description=f"seconds, at most {MAX_TIME_LIMIT:g} "
                                                 "(default 10)")],
        responses={200: OpenApiTypes.OBJECT, **errors(*READ_ERRORS, 413)},
    )
    def get(self, request, pk):
        run = self.visible_run(pk)
        raw = request.query_params.get("time_limit", "10")
        try:
            seconds = float(raw)
        except ValueError:
            raise InvalidInput({"time_limit": ["must be a number of seconds"]}) from None
        return Response(global_placement(run, time_limit=seconds))
