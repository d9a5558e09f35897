"""Runs: a cluster's snapshot scheduled by the engine, stepped from the browser, streamed.

services (create, start, step, pause, resume, reset) -> tasks (Celery) -> executor (advance
a chunk, store its cycles, send them) -> sessions (the live engine sessions) and lease (one
task at a time per run); selectors read rows, state reads the engine where the run is,
consumer is the run socket, export and records turn stored cycles into files and rows.
"""
