"""CycleState: per-cycle data shared by plugins, cloned for preemption's what-if runs."""

# The key under which the scheduler hands a cycle the snapshot's node columns
# (scheduler_core.columns), when the cycle runs on them.
COLUMNS_KEY = "columns.NodeColumns"


class StateData:
    """Data a plugin stores in CycleState. Clone must copy whatever AddPod/RemovePod mutate."""

    def clone(self) -> "StateData":
        return self


class CycleState:
    __slots__ = ("_data", "skip_filter_plugins", "skip_score_plugins", "skip_pre_bind_plugins")

    def __init__(self):
        self._data: dict = {}
        self.skip_filter_plugins: set[str] = set()
        self.skip_score_plugins: set[str] = set()
        # The PreBind plugins whose PreBindPreFlight returned Skip (set only when the
        # scheduler runs the preflights: NominatedNodeNameForExpectation).
        self.skip_pre_bind_plugins: set[str] = set()

    def read(self, key):
        try:
            return self._data[key]
        except KeyError:
            raise KeyError(f"{key} not found") from None

    def get(self, key, default=None):
        return self._data.get(key, default)

    def write(self, key, value) -> None:
        self._data[key] = value

    def delete(self, key) -> None:
        self._data.pop(key, None)

    def clone(self) -> "CycleState":
        copy = CycleState()
        copy._data = {k: (v.clone() if hasattr(v, "clone") else v) for k, v in self._data.items()}
        copy.skip_filter_plugins = set(self.skip_filter_plugins)
        copy.skip_score_plugins = set(self.skip_score_plugins)
        copy.skip_pre_bind_plugins = set(self.skip_pre_bind_plugins)
        return copy
