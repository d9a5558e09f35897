"""CronJob controller (pkg/controller/cronjob, cronjob_controllerv2.go) in virtual time.

At each time of spec.schedule (standard cron syntax and its @descriptors, in spec.timeZone or
UTC) the controller makes a Job `<cronjob>-<scheduled time in minutes since the epoch>`
(getJobName), from spec.jobTemplate, with the template's labels and annotations, the
batch.kubernetes.io/cronjob-scheduled-timestamp annotation (RFC 3339 in the time zone) and a
controller owner reference to the CronJob (getJobFromTemplate2). Then:
- suspend: no Job is made while it is true;
- concurrencyPolicy Allow (default) makes the Job whatever runs, Forbid skips a time while a
  Job of the CronJob is unfinished, Replace deletes the unfinished Jobs (and their pods)
  first;
- startingDeadlineSeconds: a time is missed (mostRecentScheduleTime's earliest bound, and
  the tooLate check) when the controller comes to it more than that late, which happens
  here when Forbid held it back and the running Job finished after the deadline;
- successfulJobsHistoryLimit (default 3) and failedJobsHistoryLimit (default 1): before each
  sync, the oldest finished Jobs beyond the limit are deleted with their pods
  (cleanupFinishedJobs), oldest by status.startTime, then by name. A Job is Failed when its
  status holds a true Failed condition (a Job read from the input); the Jobs made here run
  pods that succeed, so they finish Complete.

Virtual second 0 of a run is the CronJob's creation (the input's creationTimestamp and
status.lastScheduleTime are not read: the run starts a fresh cluster), and
scheduler.RUN_EPOCH is its wall-clock time. The controller wakes at each schedule time and
whenever a Job finishes; the run's --until bounds it (3600 s by default with a CronJob).
"""
from __future__ import annotations

import copy
from datetime import UTC, datetime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from . import job as jobs
from .naming import is_owned_by, owner_reference
from .pods import name_of, namespace_of

KIND = "CronJob"
SCHEDULED_TIMESTAMP = "batch.kubernetes.io/cronjob-scheduled-timestamp"
ALLOW, FORBID, REPLACE = "Allow", "Forbid", "Replace"
POLICIES = (ALLOW, FORBID, REPLACE)
LAST_SCHEDULE = "lastScheduleTime"
# SetDefaults_CronJob (pkg/apis/batch/v1/defaults.go).
HISTORY_LIMITS = {"successfulJobsHistoryLimit": 3, "failedJobsHistoryLimit": 1}


def validate(cj: dict) -> list[tuple[str, str]]:
    """ValidateCronJobSpec's schedule, time zone, policy and deadline checks."""
    spec = cj.get("spec") or {}
    problems = []
    schedule = spec.get("schedule")
    if not schedule:
        problems.append(("spec.schedule", "Required value"))
    elif "TZ" in schedule:
        problems.append(("spec.schedule", f'Invalid value: "{schedule}": cannot use TZ or '
                                          "CRON_TZ in schedule, use timeZone field instead"))
    elif not _croniter().is_valid(schedule):
        problems.append(("spec.schedule", f'Invalid value: "{schedule}": not a standard '
                                          "cron schedule"))
    zone = spec.get("timeZone")
    if zone is not None and _zone(zone) is None:
        problems.append(("spec.timeZone", f'Invalid value: "{zone}": unknown time zone '
                                          f"{zone}"))
    policy = spec.get("concurrencyPolicy")
    if policy is not None and policy not in POLICIES:
        problems.append(("spec.concurrencyPolicy",
                         f'Unsupported value: "{policy}": supported values: "Allow", '
                         '"Forbid", "Replace"'))
    deadline = spec.get("startingDeadlineSeconds")
    if deadline is not None and deadline < 0:
        problems.append(("spec.startingDeadlineSeconds",
                         f"Invalid value: {deadline}: must be greater than or equal to 0"))
    for field in HISTORY_LIMITS:
        limit = spec.get(field)
        if limit is not None and limit < 0:
            problems.append((f"spec.{field}",
                             f"Invalid value: {limit}: must be greater than or equal to 0"))
    if not (spec.get("jobTemplate") or {}).get("spec"):
        problems.append(("spec.jobTemplate.spec", "Required value"))
    return problems


def _zone(name: str | None):
    if not name:
        return UTC
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return None


def job_name(cj: dict, scheduled: float) -> str:
    """getJobName: the scheduled time in minutes, so that one time makes one Job."""
    return f"{name_of(cj)}-{int(scheduled // 60)}"


def _croniter():
    """croniter, imported for the first CronJob: a run without one never needs it (with
    dateutil, its import is a measurable part of a short process's start)."""
    from croniter import croniter
    return croniter


def schedule_times(cj: dict, after: float, until: float) -> list[float]:
    """Every schedule time t with after < t <= until (epoch seconds)."""
    spec = cj["spec"]
    zone = _zone(spec.get("timeZone"))
    it = _croniter()(spec["schedule"], datetime.fromtimestamp(after, zone))
    times = []
    while True:
        t = it.get_next(float)
        if t > until:
            return times
        times.append(t)


def next_time(cj: dict, now: float) -> float:
    spec = cj["spec"]
    it = _croniter()(spec["schedule"], datetime.fromtimestamp(now, _zone(spec.get("timeZone"))))
    return it.get_next(float)


def new_job(cj: dict, scheduled: float, world) -> dict:
    """getJobFromTemplate2."""
    template = cj["spec"]["jobTemplate"]
    tmeta = template.get("metadata") or {}
    zone = _zone(cj["spec"].get("timeZone"))
    stamp = datetime.fromtimestamp(scheduled, zone).isoformat().replace("+00:00", "Z")
    meta = {"name": job_name(cj, scheduled), "namespace": namespace_of(cj),
            "labels": dict(tmeta.get("labels") or {}),
            "annotations": {**(tmeta.get("annotations") or {}), SCHEDULED_TIMESTAMP: stamp},
            "creationTimestamp": datetime.fromtimestamp(scheduled, UTC).strftime(
                "%Y-%m-%dT%H:%M:%SZ"),
            "ownerReferences": [owner_reference(cj)]}
    return {"apiVersion": "batch/v1", "kind": jobs.KIND, "metadata": meta,
            "spec": copy.deepcopy(template.get("spec") or {})}


def _owned_jobs(cj: dict, world) -> list[dict]:
    return [j for j in world.workloads(jobs.KIND) if is_owned_by(j, cj)]


def _last_schedule(cj: dict, created: float) -> float:
    stamp = (cj.get("status") or {}).get(LAST_SCHEDULE)
    return datetime.fromisoformat(stamp).timestamp() if stamp else created


def most_recent_time(cj: dict, now: float, created: float) -> float | None:
    """mostRecentScheduleTime: the latest unmet time, not before the starting deadline."""
    earliest = _last_schedule(cj, created)
    deadline = cj["spec"].get("startingDeadlineSeconds")
    if deadline is not None:
        earliest = max(earliest, now - deadline)
    times = schedule_times(cj, earliest, now)
    return times[-1] if times else None


def finished_status(job: dict, world) -> str | None:
    """getFinishedStatus: Complete or Failed once the Job has finished, else None."""
    return jobs.finished_condition(job) or (jobs.COMPLETE if jobs.is_finished(job, world)
                                            else None)


def _start_order(job: dict) -> tuple:
    """byJobStartTime: by start time, Jobs without one last, then by name. The Job controller
    starts a Job made here when it is created, so its creationTimestamp is its start time."""
    meta = job.get("metadata") or {}
    started = (job.get("status") or {}).get("startTime") or meta.get("creationTimestamp")
    when = datetime.fromisoformat(started).timestamp() if started else None
    return (when is None, when or 0.0, meta.get("name", ""))


def cleanup_finished_jobs(cj: dict, world) -> None:
    """cleanupFinishedJobs: keep the newest finished Jobs of each outcome up to its limit."""
    spec = cj["spec"]
    by_outcome = {jobs.COMPLETE: [], jobs.FAILED: []}
    for job in _owned_jobs(cj, world):
        outcome = finished_status(job, world)
        if outcome is not None:
            by_outcome[outcome].append(job)
    for outcome, field in ((jobs.COMPLETE, "successfulJobsHistoryLimit"),
                           (jobs.FAILED, "failedJobsHistoryLimit")):
        limit = spec.get(field, HISTORY_LIMITS[field])
        finished = sorted(by_outcome[outcome], key=_start_order)
        for job in finished[:max(0, len(finished) - limit)]:   # removeOldestJobs
            world.delete_workload(job)


def sync(cj: dict, world) -> bool:
    """sync at the world's time: cleanupFinishedJobs, then syncCronJob; False while the
    cluster is only being loaded."""
    now = world.now()
    if now is None:
        return False
    cleanup_finished_jobs(cj, world)
    spec = cj["spec"]
    world.wake_at(next_time(cj, now))
    if spec.get("suspend"):
        return False
    scheduled = most_recent_time(cj, now, world.start())
    if scheduled is None:
        return False
    deadline = spec.get("startingDeadlineSeconds")
    if deadline is not None and scheduled + deadline < now:
        return False     # tooLate: a missed start
    owned = _owned_jobs(cj, world)
    if any(name_of(j) == job_name(cj, scheduled) for j in owned):
        return False     # already made for this time
    active = [j for j in owned if not jobs.is_finished(j, world)]
    policy = spec.get("concurrencyPolicy") or ALLOW
    if policy == FORBID and active:
        return False     # comes back when a Job finishes, if still within the deadline
    if policy == REPLACE:
        for j in active:
            world.delete_workload(j)
    world.create_workload(new_job(cj, scheduled, world))
    cj.setdefault("status", {})[LAST_SCHEDULE] = datetime.fromtimestamp(
        scheduled, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    return True
