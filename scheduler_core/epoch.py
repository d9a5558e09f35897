"""The wall-clock time of virtual second 0 of a run (epoch seconds).

Pods bound during a run start after every pod of the input (preemption's start-time rule), and
timestamps the input carries (allocationTimestamp, creationTimestamp) lie before the run. A
leaf module, so that plugins can read it without importing the scheduler that imports them."""
RUN_EPOCH = 4_000_000_000.0
