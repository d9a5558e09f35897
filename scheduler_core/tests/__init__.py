"""Engine-core tests: the framework runtime, scheduler loop, queue, config, loader and CLI."""
