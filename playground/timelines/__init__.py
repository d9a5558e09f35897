"""Timelines: a cluster's scripted steps (docs/TIMELINE.md), steps taken on a paused run, and
what a run's timeline recorded."""
