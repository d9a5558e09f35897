"""What-if answers on the web: the global placement beside a run's (scheduler_core.whatif)."""
