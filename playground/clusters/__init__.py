"""Clusters: Kubernetes objects imported from kubectl output, edited one by one, exported,
cloned; who may see and change them."""
