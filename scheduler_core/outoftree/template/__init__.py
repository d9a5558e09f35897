"""A minimal out-of-tree plugin to copy: plugin_template.py and its table-driven tests."""
