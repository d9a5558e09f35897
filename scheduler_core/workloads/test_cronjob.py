"""The CronJob controller in virtual time: names, the scheduled-timestamp annotation, the
concurrency policies, suspend, startingDeadlineSeconds and --until (cronjob_controllerv2_test's
situations, run through the engine)."""
from __future__ import annotations

import pytest

from scheduler_core.errors import InputError
from scheduler_core.scheduler import RUN_EPOCH
from scheduler_core.simulate import load_scheduler
from scheduler_core.workloads import cronjob

NODE = """
apiVersion: v1
kind: Node
metadata: {name: n1, labels: {kubernetes.io/hostname: n1}}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
"""
CRONJOB = """
---
apiVersion: batch/v1
kind: CronJob
metadata: {name: tick}
spec:
  schedule: "{schedule}"
{extra}
  jobTemplate:
    metadata: {labels: {team: a}}
    spec:
      template:
        metadata: {annotations: {playground.k8s.local/run-seconds: "{runs}"}}
        spec:
          restartPolicy: Never
          containers: [{name: c, image: busybox}]
"""
# RUN_EPOCH is 07:06:40 UTC: the first whole minute comes 20 virtual seconds in.
FIRST_MINUTE = 20.0


def run(schedule="* * * * *", extra="", runs=10, until=None):
    text = NODE + CRONJOB.replace("{schedule}", schedule).replace("{extra}", extra).replace(
        "{runs}", str(runs))
    sched = load_scheduler(["c.yaml"], texts={"c.yaml": text}, seed=1, until=until)
    sched.run()
    return sched


def jobs(sched) -> list[dict]:
    return sched.cluster.objects.extra.get("Job", [])


def job_names(sched) -> list[str]:
    return [j["metadata"]["name"] for j in jobs(sched)]


def minute_name(offset: float) -> str:
    return f"tick-{int((RUN_EPOCH + offset) // 60)}"


def test_jobs_are_named_by_their_scheduled_minute_and_owned_by_the_cronjob():
    sched = run(until=150)
    assert job_names(sched) == [minute_name(FIRST_MINUTE + 60 * i) for i in range(3)]
    job = jobs(sched)[0]
    (ref,) = job["metadata"]["ownerReferences"]
    assert (ref["apiVersion"], ref["kind"], ref["name"], ref["controller"]) == (
        "batch/v1", "CronJob", "tick", True)
    assert job["metadata"]["labels"] == {"team": "a"}
    assert job["metadata"]["annotations"][cronjob.SCHEDULED_TIMESTAMP] == "2096-10-02T07:07:00Z"


def test_each_job_runs_its_pod_from_its_time():
    sched = run(until=150)
    started = sorted(p.start_time - RUN_EPOCH for p in sched.pods)
    assert started == [FIRST_MINUTE, FIRST_MINUTE + 60, FIRST_MINUTE + 120]


def test_the_default_until_is_an_hour_with_a_cronjob():
    sched = run(extra="  successfulJobsHistoryLimit: 60")
    assert sched.until == 3600.0
    assert len(jobs(sched)) == 60


# cleanupFinishedJobs (cronjob_controllerv2.go) with SetDefaults_CronJob's limits.
def test_by_default_the_three_newest_successful_jobs_are_kept_and_older_ones_go_with_their_pods():
    # Jobs at 20, 80, ..., 380 each run 10 s; when the last finishes, four older ones go.
    sched = run(until=400)
    assert job_names(sched) == [minute_name(FIRST_MINUTE + 60 * i) for i in (4, 5, 6)]
    deleted = sorted({p.key.rsplit("-", 1)[0] for p in sched.pods if p.deletion_time is not None})
    assert deleted == [f"default/{minute_name(FIRST_MINUTE + 60 * i)}" for i in range(4)]


def test_a_history_limit_of_zero_keeps_only_the_running_job():
    # At 150 the jobs of 20 and 80 have finished (30 s each); the job of 140 still runs.
    sched = run(extra="  successfulJobsHistoryLimit: 0", runs=30, until=150)
    assert job_names(sched) == [minute_name(FIRST_MINUTE + 120)]


FAILED_JOB = """
---
apiVersion: batch/v1
kind: Job
metadata:
  name: {name}
  ownerReferences: [{apiVersion: batch/v1, kind: CronJob, name: tick, uid: tick-uid,
                     controller: true}]
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: busybox}]
status:
  startTime: "{start}"
  conditions: [{type: Failed, status: "True"}]
"""


@pytest.mark.parametrize("extra, kept", [
    pytest.param("", ["old-c"], id="the default keeps the newest failed job"),
    pytest.param("  failedJobsHistoryLimit: 2", ["old-b", "old-c"],
                 id="a limit of two keeps the two newest, by start time not by name"),
])
def test_failed_jobs_of_the_input_beyond_the_failed_limit_are_deleted(extra, kept):
    failed = "".join(FAILED_JOB.replace("{name}", name).replace("{start}", start)
                     for name, start in [("old-c", "2096-10-02T07:00:00Z"),
                                         ("old-a", "2096-10-02T06:00:00Z"),
                                         ("old-b", "2096-10-02T06:30:00Z")])
    cron = CRONJOB.replace("metadata: {name: tick}", "metadata: {name: tick, uid: tick-uid}")
    text = NODE + cron.replace("{schedule}", "0 0 1 1 *").replace("{extra}", extra).replace(
        "{runs}", "10") + failed
    sched = load_scheduler(["c.yaml"], texts={"c.yaml": text}, seed=1, until=60)
    sched.run()
    assert sorted(job_names(sched)) == kept
    assert sched.pods == []      # a finished Job makes no pod


def test_suspend_makes_no_job():
    assert job_names(run(extra="  suspend: true", until=600)) == []


def test_forbid_skips_the_times_while_a_job_runs_then_starts_the_latest_missed_one():
    # Each job runs 150 s. The job of minute 20 holds back 80 and 140; when it ends at 170,
    # mostRecentScheduleTime gives 140 (not 80), started late under its own name; it holds
    # back 200 and 260 in turn.
    sched = run(extra="  concurrencyPolicy: Forbid", runs=150, until=290)
    assert job_names(sched) == [minute_name(FIRST_MINUTE), minute_name(FIRST_MINUTE + 120)]
    late = jobs(sched)[1]
    assert late["metadata"]["creationTimestamp"] == "2096-10-02T07:09:00Z"


def test_forbid_with_a_starting_deadline_misses_the_late_times():
    # At 170 the times after max(last, now - 30) = 140 hold nothing due: 140 is missed; 200
    # starts on time.
    sched = run(extra="  concurrencyPolicy: Forbid\n  startingDeadlineSeconds: 30", runs=150,
                until=290)
    assert job_names(sched) == [minute_name(FIRST_MINUTE), minute_name(FIRST_MINUTE + 180)]


def test_replace_deletes_the_running_job_and_its_pod():
    sched = run(extra="  concurrencyPolicy: Replace", runs=1000, until=150)
    assert job_names(sched) == [minute_name(FIRST_MINUTE + 120)]
    running = [p.key for p in sched.pods if p.deletion_time is None]
    deleted = [p.key for p in sched.pods if p.deletion_time is not None]
    assert len(running) == 1 and running[0].startswith(f"default/{minute_name(140)}-")
    assert [k.rsplit("-", 1)[0] for k in deleted] == [
        f"default/{minute_name(20)}", f"default/{minute_name(80)}"]


def test_allow_lets_jobs_overlap():
    sched = run(runs=1000, until=150)
    assert len([k for k in sched.bindings if k.startswith("default/tick-")]) == 3


@pytest.mark.parametrize("extra, schedule, message", [
    ("", "every minute", 'field spec.schedule: Invalid value: "every minute"'),
    ("", "CRON_TZ=UTC * * * * *", "cannot use TZ or CRON_TZ in schedule"),
    ("  timeZone: Mars/Olympus", "* * * * *", "field spec.timeZone: Invalid value"),
    ("  concurrencyPolicy: Sometimes", "* * * * *",
     'field spec.concurrencyPolicy: Unsupported value: "Sometimes"'),
    ("  successfulJobsHistoryLimit: -1", "* * * * *",
     "field spec.successfulJobsHistoryLimit: Invalid value: -1: must be greater than or "
     "equal to 0"),
    ("  failedJobsHistoryLimit: -2", "* * * * *",
     "field spec.failedJobsHistoryLimit: Invalid value: -2: must be greater than or equal to 0"),
    ('  successfulJobsHistoryLimit: "3"', "* * * * *",
     "field spec.successfulJobsHistoryLimit: Invalid value: \"string\": "
     "spec.successfulJobsHistoryLimit in body must be of type integer"),
])
def test_a_bad_cronjob_is_bad_input(extra, schedule, message):
    with pytest.raises(InputError, match=message):
        run(schedule=schedule, extra=extra)


def test_a_time_zone_moves_the_schedule_and_the_annotation():
    sched = run(schedule="0 9 * * *", extra="  timeZone: Europe/Berlin", until=86400)
    (job,) = jobs(sched)
    assert job["metadata"]["annotations"][cronjob.SCHEDULED_TIMESTAMP] == \
        "2096-10-03T09:00:00+02:00"


def test_a_cronjob_a_timeline_creates_starts_then_and_the_run_still_ends():
    text = NODE + """
---
apiVersion: playground.k8s.local/v1
kind: Timeline
metadata: {name: later}
spec:
  steps:
  - at: 100
    action: Create
    object:
      apiVersion: batch/v1
      kind: CronJob
      metadata: {name: tick}
      spec:
        schedule: "*/10 * * * *"
        jobTemplate:
          spec:
            template:
              spec:
                restartPolicy: Never
                containers: [{name: c, image: busybox}]
"""
    sched = load_scheduler(["c.yaml"], texts={"c.yaml": text}, seed=1)
    sched.run()
    assert sched.until == 3600.0
    # Every ten minutes from 07:10:00 (virtual 200) to the hour's end.
    assert job_names(sched) == [minute_name(200 + 600 * i) for i in range(6)]
