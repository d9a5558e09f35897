"""scheduler_core: kube-scheduler's scheduling framework in plain Python (no Django)."""
