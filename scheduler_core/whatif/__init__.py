"""What-if questions answered by running the engine: how many nodes to add (plan), how many
more copies of a pod fit (capacity), and the global placement beside the scheduler's
(optimize). Plain Python like the rest of the engine: no web import."""
