"""Writes: capacity plans are checked, stored, queued, advanced and finished here (sweeps:
playground.whatif.sweeps)."""
from __future__ import annotations

from playground import tasking
from playground.clusters.services import cluster_manifests
from playground.engine import out_of_tree_plugins
from playground.errors import InvalidInput
from playground.profiles.models import SchedulerProfile
from playground.whatif.models import PlanJob
from scheduler_core.errors import InputError
from scheduler_core.whatif.plan import DEFAULT_MAX_NODES, plan
from scheduler_core.whatif.scenario import Scenario
from scheduler_core.whatif.template import check_names, read_template

# The registered name of the plan task (playground.whatif.tasks): queued messages carry it.
PLAN_RUN = "playground.whatif.plan_run"
TEMPLATE_FILE = "template"


def _template_of(text) -> tuple[dict, list[str]]:
    """(the template Node, its warnings)."""
    if not isinstance(text, str) or not text.strip():
        raise InvalidInput({"template": ["give the template Node as YAML or JSON"]})
    said: list[str] = []
    try:
        return read_template(TEMPLATE_FILE, text, warnings=said), said
    except InputError as exc:
        raise InvalidInput({"template": [str(exc)]}) from exc


def _max_nodes_of(value) -> int:
    if value is None:
        return DEFAULT_MAX_NODES
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= \
            DEFAULT_MAX_NODES:
        raise InvalidInput({"maxNodes": [f"must be a whole number from 1 to "
                                         f"{DEFAULT_MAX_NODES}"]})
    return value


def plan_create(*, cluster, owner, template, max_nodes=None) -> PlanJob:
    """Check the template (a valid Node whose copies' names are free) and queue the plan."""
    node, said = _template_of(template)
    limit = _max_nodes_of(max_nodes)
    names = {m["metadata"]["name"] for m in cluster_manifests(cluster) if m.get("kind") == "Node"}
    try:
        check_names(node, limit + 1, names, TEMPLATE_FILE)
    except InputError as exc:
        raise InvalidInput({"template": [str(exc)]}) from exc
    job = PlanJob.objects.create(cluster=cluster, owner=owner, template=node, max_nodes=limit,
                                 template_warnings=said)
    tasking.enqueue_on_commit(tasking.task_named(PLAN_RUN), job_id=job.pk)
    return job


def cluster_sources(cluster) -> list[tuple[str, list]]:
    """The cluster's objects and timelines as the engine loads them."""
    documents = list(cluster_manifests(cluster)) + [t.document() for t in cluster.timelines.all()]
    return [(f"cluster {cluster.pk}", documents)]


def cluster_config(cluster) -> dict | None:
    """The configuration the what-if answers run under: the cluster's first saved profile."""
    profile = SchedulerProfile.objects.filter(cluster=cluster).first()
    return profile.config if profile else None


def _scenario(cluster) -> Scenario:
    return Scenario(cluster_sources(cluster), config=cluster_config(cluster),
                    out_of_tree=out_of_tree_plugins(), checked=True)


def plan_execute(*, job_id: int) -> None:
    """Run the plan, storing each trial's row as it ends; a failure is stored, not raised."""
    job = PlanJob.objects.select_related("cluster").get(pk=job_id)
    PlanJob.objects.filter(pk=job_id).update(status=PlanJob.RUNNING, progress=[])
    rows: list[dict] = []

    def progress(event: dict) -> None:
        rows.append(event)
        PlanJob.objects.filter(pk=job_id).update(progress=list(rows))

    try:
        scenario = _scenario(job.cluster)
        scenario.warnings.extend(job.template_warnings)
        result = plan(scenario, job.template, template_file=TEMPLATE_FILE,
                      max_nodes=job.max_nodes, progress=progress)
    except InputError as exc:
        PlanJob.objects.filter(pk=job_id).update(status=PlanJob.FAILED, error=str(exc))
        return
    out = {"schemaVersion": 1, "release": scenario.features.release,
           "warnings": scenario.warnings.to_list(), **result.to_json()}
    PlanJob.objects.filter(pk=job_id).update(status=PlanJob.DONE, result=out)
