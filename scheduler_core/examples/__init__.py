"""Example out-of-tree plugins: registered by dotted path or entry point, never in-tree."""
