"""Job controller (pkg/controller/job): run pods until spec.completions have succeeded.

The API server defaults parallelism and completions to 1 when both are unset, and labels
the template (and selector) with batch.kubernetes.io/controller-uid and
batch.kubernetes.io/job-name (and their legacy unprefixed forms). NonIndexed pods are named
`<job>-` plus five random characters; Indexed pods `<job>-<index>-` plus five, with the
batch.kubernetes.io/job-completion-index annotation and label and hostname `<job>-<index>`.
At most min(parallelism, completions - succeeded) pods are active; with completions unset
(a work queue) the Job stops creating pods once one has succeeded. Pods finish after the
playground.k8s.local/run-seconds annotation of their template (see docs/TIMELINE.md).
"""
from __future__ import annotations

from .naming import generate_name, is_owned_by
from .pods import (
    ensure_uid,
    is_active,
    labels_of,
    name_of,
    pod_from_template,
)

KIND = "Job"
CONTROLLER_UID_LABEL = "batch.kubernetes.io/controller-uid"
JOB_NAME_LABEL = "batch.kubernetes.io/job-name"
LEGACY_CONTROLLER_UID_LABEL = "controller-uid"
LEGACY_JOB_NAME_LABEL = "job-name"
COMPLETION_INDEX = "batch.kubernetes.io/job-completion-index"
INDEXED = "Indexed"
COMPLETE, FAILED = "Complete", "Failed"


def job_labels(job: dict, uid: str) -> dict:
    name = name_of(job)
    return {CONTROLLER_UID_LABEL: uid, JOB_NAME_LABEL: name,
            LEGACY_CONTROLLER_UID_LABEL: uid, LEGACY_JOB_NAME_LABEL: name}


def counts(job: dict) -> tuple[int, int | None]:
    """(parallelism, completions) as the API server defaults them."""
    spec = job.get("spec") or {}
    parallelism, completions = spec.get("parallelism"), spec.get("completions")
    if parallelism is None and completions is None:
        return 1, 1
    return (1 if parallelism is None else int(parallelism),
            None if completions is None else int(completions))


def _index(pod: dict) -> int:
    return int(labels_of(pod).get(COMPLETION_INDEX, -1))


def _new_pod(job: dict, world, index: int | None) -> dict:
    uid = ensure_uid(job, world.rng)
    base = f"{name_of(job)}-" if index is None else f"{name_of(job)}-{index}-"
    pod = pod_from_template((job.get("spec") or {}).get("template") or {}, job,
                            generate_name(world.rng, base), world.rng, job_labels(job, uid))
    if index is not None:
        pod["metadata"]["labels"][COMPLETION_INDEX] = str(index)
        pod["metadata"].setdefault("annotations", {})[COMPLETION_INDEX] = str(index)
        pod["spec"]["hostname"] = f"{name_of(job)}-{index}"
    return pod


def status(job: dict, world) -> tuple[list[dict], list[dict]]:
    """The Job's (active, succeeded) pods."""
    owned = [p for p in world.pods() if is_owned_by(p, job)]
    active = [p for p in owned if is_active(p)]
    succeeded = [p for p in owned if (p.get("status") or {}).get("phase") == "Succeeded"]
    return active, succeeded


def finished_condition(job: dict) -> str | None:
    """The type of a true Complete or Failed condition the Job's status holds (a finished Job
    read from the input), else None (getFinishedStatus)."""
    for condition in (job.get("status") or {}).get("conditions") or []:
        if condition.get("type") in (COMPLETE, FAILED) and condition.get("status") == "True":
            return condition["type"]
    return None


def is_finished(job: dict, world) -> bool:
    """A finished condition in its status, or the Complete condition as the controller comes
    to it: completions succeeded, or (a work queue) one succeeded and none is left running."""
    if finished_condition(job):
        return True
    _, completions = counts(job)
    active, succeeded = status(job, world)
    if completions is None:
        return bool(succeeded) and not active
    return len(succeeded) >= completions


def sync(job: dict, world) -> bool:
    if finished_condition(job):
        return False     # a finished Job makes no more pods
    parallelism, completions = counts(job)
    active, succeeded = status(job, world)
    if completions is None:
        want = 0 if succeeded else parallelism
    else:
        want = max(0, min(parallelism, completions - len(succeeded)))
    missing = want - len(active)
    if missing <= 0:
        return False
    if (job.get("spec") or {}).get("completionMode") == INDEXED:
        taken = {_index(p) for p in active + succeeded}
        indexes = [i for i in range(completions or 0) if i not in taken][:missing]
    else:
        indexes = [None] * missing
    for index in indexes:
        world.create_pod(_new_pod(job, world, index))
    return bool(indexes)
