"""A cluster's scheduler profile (its KubeSchedulerConfiguration) and the plugin catalog."""
