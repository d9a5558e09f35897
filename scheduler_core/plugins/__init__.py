"""In-tree plugins, one package per plugin; names in names.py, registry in framework.registry."""
