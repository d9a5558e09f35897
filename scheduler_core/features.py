"""Releases of kube-scheduler and their feature gates, in one place (Go's pkg/features).

The engine follows one kube-scheduler minor release per run (RELEASES, newest by default).
Each gate has versioned specs as in Go's `defaultVersionedKubernetesFeatureGates` (the
scheduler's feature list at v1.37, `SetupCurrentKubernetesSpecificFeatureGates`): the spec in
force at a release is the last one whose version is not newer than it. A gate with no spec at
or before a release, or removed by it, is unknown to that release's kube-scheduler.

Everything here is decided when the scheduler is built: `FeatureGates` is an immutable map
that plugins read once, in their factory, never per cycle.

Who reads what:
- `parse_release(text)` -> "1.3X", or InputError naming the accepted releases.
- `feature_gates(release, "A=true,B=false")` -> FeatureGates, or FeatureGateError with
  kube-scheduler's own words (component-base/featuregate/feature_gate.go `Set`, wrapped as
  pflag wraps a flag's error).
- `gates.enabled("DRADeviceTaints")` -> bool; `gates.release`; `gates.minor` (34..37) for a
  release-dependent behaviour that is not behind a gate (a default profile, a message).
  Asking for a gate this module does not list is a programming error (KeyError), as Go's
  `Enabled` panics on an unknown feature.
- Plugins get the run's gates as `handle.features`; the loader gets them as
  `load_files(..., features=gates)`; both also reach the run's warning log
  (scheduler_core.warninglog) for input the release does not honour.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass
from types import MappingProxyType

from .errors import InputError

RELEASES = ("1.34", "1.35", "1.36", "1.37")
DEFAULT_RELEASE = RELEASES[-1]

ALPHA, BETA, GA, DEPRECATED = "ALPHA", "BETA", "", "DEPRECATED"


@dataclass(frozen=True)
class Spec:
    """featuregate.FeatureSpec at one version: (minor, default, prerelease, lockToDefault)."""
    minor: int
    default: bool
    prerelease: str
    locked: bool = False


def _specs(*rows) -> tuple[Spec, ...]:
    return tuple(Spec(*row) for row in rows)


# The scheduler's gates at v1.37 (pkg/scheduler's feature list; the DRA ones the scheduler
# and its DRA allocator read), with every version since 1.34 that matters here.
VERSIONED_SPECS: dict[str, tuple[Spec, ...]] = {
    "CompositePodGroup": _specs((37, False, ALPHA)),
    "DRAAdminAccess": _specs((32, False, ALPHA), (34, True, BETA), (36, True, GA, True)),
    "DRAConsumableCapacity": _specs((34, False, ALPHA), (36, True, BETA)),
    "DRADerivedAttributes": _specs((37, False, ALPHA)),
    "DRADeviceBindingConditions": _specs((34, False, ALPHA), (36, True, BETA)),
    "DRADeviceCompatibilityGroups": _specs((37, False, ALPHA)),
    "DRADeviceTaintRules": _specs((35, False, ALPHA), (36, False, BETA), (37, True, GA)),
    "DRADeviceTaints": _specs((33, False, ALPHA), (36, True, BETA), (37, True, GA)),
    "DRAExtendedResource": _specs((34, False, ALPHA), (36, True, BETA), (37, True, GA, True)),
    # v1.37 lists (1.37, false, Beta) and (1.37, true, Beta, MinCompatibilityVersion 1.37):
    # the second holds only with --min-compatibility-version 1.37, and kube-scheduler's
    # default is one minor below its version (featuregate's NewVersionedFeatureGate,
    # featureSpecAtEmulationAndMinCompatVersion), so at v1.37 the gate is off by default.
    "DRAFractionalCapacityRange": _specs((37, False, BETA)),
    "DRAListTypeAttributes": _specs((36, False, ALPHA)),
    "DRANodeAllocatableResources": _specs((36, False, ALPHA)),
    "DRAOptionalNodeOperations": _specs((37, False, ALPHA)),
    "DRAPartitionableDevices": _specs((33, False, ALPHA), (36, True, BETA)),
    "DRAPrioritizedList": _specs((33, False, ALPHA), (34, True, BETA), (36, True, GA),
                                 (37, True, GA, True)),
    "DRAResourceClaimDeviceStatus": _specs((32, False, ALPHA), (33, True, BETA),
                                           (37, True, GA, True)),
    "DRASchedulerFilterTimeout": _specs((34, True, BETA)),
    "DRAWorkloadResourceClaims": _specs((36, False, ALPHA), (37, False, BETA)),
    "DynamicResourceAllocation": _specs((26, False, ALPHA), (32, False, BETA), (34, True, GA),
                                        (35, True, GA, True)),
    # pkg/features/kube_features.go, alpha in v1.35 and v1.36; gone in v1.37 (REMOVED_IN).
    "GangScheduling": _specs((35, False, ALPHA)),
    "GenericWorkload": _specs((35, False, ALPHA), (37, False, BETA)),
    "InPlacePodLevelResourcesVerticalScaling": _specs((35, False, ALPHA), (36, True, BETA)),
    "InPlacePodVerticalScaling": _specs((27, False, ALPHA), (33, True, BETA),
                                        (35, True, GA, True)),
    "InPlacePodVerticalScalingSchedulerPreemption": _specs((37, False, ALPHA)),
    "InterPodAffinityHostnameFastPath": _specs((37, False, ALPHA)),
    "MatchLabelKeysInPodTopologySpread": _specs((25, False, ALPHA), (27, True, BETA)),
    "NodeDeclaredFeatures": _specs((35, False, ALPHA), (36, True, BETA), (37, True, GA, True)),
    "NodeInclusionPolicyInPodTopologySpread": _specs((25, False, ALPHA), (26, True, BETA),
                                                     (33, True, GA, True)),
    "NominatedNodeNameForExpectation": _specs((34, False, ALPHA), (35, True, BETA)),
    "OpportunisticBatching": _specs((35, True, BETA)),
    "PodGroupPreemptionPolicy": _specs((37, False, ALPHA)),
    "PodLevelResources": _specs((32, False, ALPHA), (34, True, BETA)),
    "SchedulerAsyncAPICalls": _specs((34, False, BETA)),
    "SchedulerAsyncPreemption": _specs((32, False, ALPHA), (33, True, BETA)),
    "SchedulerPopFromBackoffQ": _specs((33, True, BETA)),
    "SchedulerPreQueueingHints": _specs((37, False, ALPHA)),
    # GA and locked in v1.34 (kube_features.go at v1.34/v1.35); gone from v1.37's list.
    "SchedulerQueueingHints": _specs((28, False, BETA), (32, True, BETA), (34, True, GA, True)),
    "StorageCapacityScoring": _specs((33, False, ALPHA), (37, True, BETA)),
    "TaintTolerationComparisonOperators": _specs((35, False, ALPHA)),
    "TopologyAwareWorkloadScheduling": _specs((36, False, ALPHA)),
    "VolumeAttributesClass": _specs((29, False, ALPHA), (31, False, BETA), (34, True, GA),
                                    (36, True, GA, True)),
    "VolumeLimitScaling": _specs((35, False, ALPHA), (37, True, BETA)),
}
# The first release whose kube-scheduler no longer knows the gate. GangScheduling: v1.37's
# scheduler feature list has no such gate, and its GangScheduling plugin is built from
# feature.Features{EnableGenericWorkload, EnableCompositePodGroup} (gangscheduling_test.go),
# where v1.36's took EnableGangScheduling: from v1.37 GenericWorkload alone turns gangs on.
REMOVED_IN = {"SchedulerQueueingHints": 37, "GangScheduling": 37}
# The release from which gangs follow GenericWorkload (FeatureGates.gangs).
GANGS_WITH_GENERIC_WORKLOAD = 37
# The gates whose behaviour the engine follows either way. Setting another one is accepted,
# as kube-scheduler accepts it, with a warning that it changes nothing here (docs/ENGINE.md
# lists what each release's gates do and which the engine does not model).
MODELLED = frozenset({
    "DynamicResourceAllocation", "DRAAdminAccess", "DRAConsumableCapacity",
    "DRADeviceBindingConditions", "DRADeviceTaints", "DRAExtendedResource",
    "DRAListTypeAttributes",
    "DRAPartitionableDevices", "DRAPrioritizedList", "DRAResourceClaimDeviceStatus",
    "GangScheduling", "GenericWorkload", "NodeDeclaredFeatures",
    "NominatedNodeNameForExpectation", "OpportunisticBatching", "PodLevelResources",
    "TaintTolerationComparisonOperators",
})
# pkg/features/kube_features.go's defaultKubernetesFeatureGateDependencies, for the gates
# listed here: a gate may be on only while the gates it depends on are on. component-base
# checks them when the flag is set from v1.35 on (featuregate's unsafeSetFromMap, unchanged in
# the v1.36+ featuregate with MinCompatibilityVersion); v1.34's featuregate has none. A gate a
# release does not know is never on there, so one table serves every release.
# Read from kube_features.go at v1.35 (the newest stored copy with this table). v1.36's and
# v1.37's tables are not in the stored source; the v1.37 scheduler feature list's comments and
# featuregate's AddDependencies rules (no dependency on a less stable gate) agree with the rows
# below, and the last two rows are v1.36/v1.37 additions known from reports of kube-apiserver's
# refusal ("CompositePodGroup is enabled, but depends on features that are disabled:
# [TopologyAwareWorkloadScheduling]") and of v1.36's table (TopologyAwareWorkloadScheduling
# under GenericWorkload), not read in Go.
DEPENDENCIES: dict[str, tuple[str, ...]] = {
    **dict.fromkeys(("DRAAdminAccess", "DRAConsumableCapacity", "DRADeviceTaints",
                     "DRAExtendedResource", "DRAPartitionableDevices", "DRAPrioritizedList",
                     "DRASchedulerFilterTimeout"), ("DynamicResourceAllocation",)),
    "DRADeviceBindingConditions": ("DynamicResourceAllocation", "DRAResourceClaimDeviceStatus"),
    "DRADeviceTaintRules": ("DRADeviceTaints",),
    "GangScheduling": ("GenericWorkload",),
    "InPlacePodLevelResourcesVerticalScaling": ("InPlacePodVerticalScaling",
                                                "PodLevelResources", "NodeDeclaredFeatures"),
    "TopologyAwareWorkloadScheduling": ("GenericWorkload",),
    "CompositePodGroup": ("GenericWorkload", "TopologyAwareWorkloadScheduling"),
}
DEPENDENCIES_SINCE = 35
# component-base's own gates: set every unset alpha (beta) gate at once.
ALL_ALPHA, ALL_BETA = "AllAlpha", "AllBeta"

_BOOLS = {"1": True, "t": True, "T": True, "TRUE": True, "true": True, "True": True,
          "0": False, "f": False, "F": False, "FALSE": False, "false": False, "False": False}


class FeatureGateError(InputError):
    """A --feature-gates value kube-scheduler refuses; exit status 2. `detail` is
    component-base's own words, without pflag's wrapping (what the web shows by field)."""

    def __init__(self, message: str, detail: str):
        super().__init__(message)
        self.detail = detail


def minor_of(release: str) -> int:
    return int(release.split(".")[1])


def parse_release(text: str | None, *, field: str = "--release") -> str:
    """The release to follow ("1.3X"); None means the newest."""
    if text is None:
        return DEFAULT_RELEASE
    value = str(text).strip().removeprefix("v")
    if value.count(".") == 2 and value.endswith(".0"):   # "v1.35.0" names the same minor
        value = value[:-2]
    if value not in RELEASES:
        raise InputError(f'{field}: "{text}" is not a release the engine follows; accepted: '
                         f'{", ".join(RELEASES)}')
    return value


def spec_at(name: str, minor: int) -> Spec | None:
    """The gate's spec in force at that minor release, None when that release lacks it."""
    if REMOVED_IN.get(name, 99) <= minor:
        return None
    found = None
    for spec in VERSIONED_SPECS.get(name, ()):
        if spec.minor <= minor:
            found = spec
    return found


def known_gates(release: str) -> dict[str, Spec]:
    minor = minor_of(release)
    return {name: spec for name in VERSIONED_SPECS
            if (spec := spec_at(name, minor)) is not None}


@dataclass(frozen=True)
class FeatureGates:
    """The gates of one run: the release's defaults with the user's overrides on top."""
    release: str
    values: MappingProxyType
    overrides: tuple[tuple[str, bool], ...] = ()
    notes: tuple[str, ...] = ()   # kube-scheduler's warnings on setting the gates

    @functools.cached_property
    def minor(self) -> int:   # read for every loaded object
        return minor_of(self.release)

    def enabled(self, name: str) -> bool:
        """Whether the gate is on; False for a gate this release does not have yet."""
        if name not in VERSIONED_SPECS:
            raise KeyError(f"feature gate {name!r} is not listed in scheduler_core.features")
        return self.values.get(name, False)

    @property
    def gangs(self) -> bool:
        """Whether the GangScheduling plugin enforces gangs: its own gate through v1.36,
        GenericWorkload from v1.37 (REMOVED_IN)."""
        if self.minor >= GANGS_WITH_GENERIC_WORKLOAD:
            return self.enabled("GenericWorkload")
        return self.enabled("GangScheduling")

    def flag(self) -> str:
        """The overrides as --feature-gates takes them (empty when there is none)."""
        return flag_text(self.overrides)

    def to_json(self) -> dict:
        return dict(sorted(self.values.items()))


def flag_text(pairs) -> str:
    """(name, bool) pairs as --feature-gates takes them: "A=true,B=false"."""
    return ",".join(f"{k}={'true' if v else 'false'}" for k, v in pairs)


def _parse_flag(text: str) -> list[tuple[str, bool]]:
    """featureGate.Set's parsing: comma-separated NAME=BOOL, blanks skipped, strconv.ParseBool."""
    pairs = []
    for item in text.split(","):
        if not item:
            continue
        key, sep, raw = item.partition("=")
        key = key.strip()
        if not sep:
            raise _flag_error(text, f"missing bool value for {key}")
        value = raw.strip()
        if value not in _BOOLS:
            raise _flag_error(text, f'invalid value of {key}={value}, err: strconv.ParseBool: '
                                    f'parsing "{value}": invalid syntax')
        pairs.append((key, _BOOLS[value]))
    return pairs


def _flag_error(text: str, message: str) -> FeatureGateError:
    return FeatureGateError(f'invalid argument "{text}" for "--feature-gates" flag: {message}',
                            message)


def feature_gates(release: str = DEFAULT_RELEASE,
                  flag: str | dict[str, bool] | None = None) -> FeatureGates:
    """The release's gates with `flag` (kube-scheduler's --feature-gates syntax, or a mapping)
    applied as featureGate.SetFromMap does: an unknown gate and a locked gate set to the other
    value are refused; setting a GA or deprecated gate is allowed with kube's warning."""
    known = known_gates(release)
    values = {name: spec.default for name, spec in known.items()}
    text = flag if isinstance(flag, str) else flag_text((flag or {}).items())
    pairs = _parse_flag(text) if isinstance(flag, str) else list((flag or {}).items())
    explicit, notes, every = {}, [], {}
    for key, value in pairs:
        if key in (ALL_ALPHA, ALL_BETA):
            every[ALPHA if key == ALL_ALPHA else BETA] = value
            explicit[key] = value
            continue
        spec = known.get(key)
        if spec is None:
            raise _flag_error(text, f"unrecognized feature gate: {key}")
        if spec.locked and spec.default != value:
            raise _flag_error(text, f"cannot set feature gate {key} to {str(value).lower()}, "
                                    f"feature is locked to {str(spec.default).lower()}")
        if spec.prerelease in (GA, DEPRECATED):
            word = "GA" if spec.prerelease == GA else "deprecated"
            notes.append(f"--feature-gates: Setting {word} feature gate {key}="
                         f"{str(value).lower()}. It will be removed in a future release.")
        if key not in MODELLED:
            notes.append(f"--feature-gates: {key}: the engine does not model this gate; "
                         f"setting it changes nothing in this run")
        explicit[key] = value
    for stage, value in every.items():   # setUnsetAlphaGates / setUnsetBetaGates
        for name, spec in known.items():
            if spec.prerelease == stage and name not in explicit:
                values[name] = value
    values.update({k: v for k, v in explicit.items() if k in known})
    if minor_of(release) >= DEPENDENCIES_SINCE:
        _check_dependencies(values, text)
    return FeatureGates(release, MappingProxyType(values), tuple(explicit.items()), tuple(notes))


def _check_dependencies(values: dict[str, bool], text: str) -> None:
    """unsafeSetFromMap's last check: each gate that is on with a gate it depends on off
    (Go walks a map; sorted here, for stable words), aggregated as utilerrors does."""
    errors = []
    for name in sorted(DEPENDENCIES):
        off = sorted(d for d in DEPENDENCIES[name] if not values.get(d, False))
        if values.get(name) and off:
            errors.append(f"{name} is enabled, but depends on features that are disabled: "
                          f"[{' '.join(off)}]")
    if errors:
        raise _flag_error(text, errors[0] if len(errors) == 1 else
                          "[" + ", ".join(errors) + "]")


DEFAULT_GATES = feature_gates()
