"""Status as kube-scheduler's framework.Status: a code, reasons and the plugin that set it."""
from enum import IntEnum


class Code(IntEnum):
    SUCCESS = 0
    ERROR = 1
    UNSCHEDULABLE = 2
    UNSCHEDULABLE_AND_UNRESOLVABLE = 3
    WAIT = 4
    SKIP = 5
    PENDING = 6

    @property
    def label(self) -> str:
        return _LABELS[self]


_LABELS = {
    Code.SUCCESS: "Success",
    Code.ERROR: "Error",
    Code.UNSCHEDULABLE: "Unschedulable",
    Code.UNSCHEDULABLE_AND_UNRESOLVABLE: "UnschedulableAndUnresolvable",
    Code.WAIT: "Wait",
    Code.SKIP: "Skip",
    Code.PENDING: "Pending",
}


class Status:
    __slots__ = ("code", "reasons", "plugin", "error")

    def __init__(self, code: Code = Code.SUCCESS, *reasons: str, plugin: str = "", error=None):
        self.code = code
        self.reasons = list(reasons)
        self.plugin = plugin
        self.error = error

    # Constructors named like the Go helpers, so plugin code reads the same.
    @classmethod
    def unschedulable(cls, *reasons: str) -> "Status":
        return cls(Code.UNSCHEDULABLE, *reasons)

    @classmethod
    def unresolvable(cls, *reasons: str) -> "Status":
        return cls(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, *reasons)

    @classmethod
    def as_error(cls, error) -> "Status":
        return cls(Code.ERROR, str(error), error=error)

    @classmethod
    def skip(cls) -> "Status":
        return cls(Code.SKIP)

    def is_success(self) -> bool:
        return self.code == Code.SUCCESS

    def is_skip(self) -> bool:
        return self.code == Code.SKIP

    def is_wait(self) -> bool:
        return self.code == Code.WAIT

    def is_rejected(self) -> bool:
        return self.code in (Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE, Code.PENDING)

    def message(self) -> str:
        return ", ".join(self.reasons)

    def with_plugin(self, plugin: str) -> "Status":
        self.plugin = plugin
        return self

    def to_dict(self, plugin: str | None = None) -> dict:
        return {"plugin": plugin or self.plugin, "code": self.code.label,
                "reasons": list(self.reasons)}

    def __eq__(self, other):
        if other is None:
            return self.code == Code.SUCCESS
        return (isinstance(other, Status) and self.code == other.code
                and self.reasons == other.reasons)

    def __hash__(self):  # pragma: no cover - statuses are not used as keys
        return hash((self.code, tuple(self.reasons)))

    def __repr__(self):
        return f"Status({self.code.label}, {self.reasons!r}, plugin={self.plugin!r})"


def ok(status: "Status | None") -> bool:
    """A nil status is a success, as in Go."""
    return status is None or status.code == Code.SUCCESS


class SchedulingError(Exception):
    """A scheduling cycle failed with `status` (schedule_one.go's err from schedulePod)."""

    def __init__(self, status: Status):
        self.status = status
        super().__init__(status.message())
