"""Timelines: cluster events at virtual times, and the cluster that lives through them.

`attach(scheduler)` checks the Timeline documents of the scheduler's cluster and schedules
their steps; see docs/TIMELINE.md for the format and life.py for what reacts.
"""
