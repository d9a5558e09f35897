"""Scheduler extenders over HTTP (kube-scheduler's HTTPExtender)."""
