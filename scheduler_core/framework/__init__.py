"""The scheduling framework: statuses, cycle state, node and pod infos, plugin interfaces."""
