"""DynamicResourcesArgs (apis/config/v1): filterTimeout and bindingTimeout, validated as
ValidateDynamicResourcesArgs does. Setting a field whose feature gate is off is an error (not
ignored), as Go says: "In contrast to the REST API, setting fields that have no effect because
the corresponding feature is disabled is considered an error."

The engine's Filter is not bounded by wall-clock time, so filterTimeout never cuts it short;
bindingTimeout is how long PreBind waits for binding conditions (binding.py)."""
from __future__ import annotations

from ...durations import go_duration, parse_go_duration
from ...errors import Printed, forbidden, invalid

FIELDS = ("filterTimeout", "bindingTimeout")


def validate_args(args: dict, path: str, gates=None) -> list[str]:
    """ValidateDynamicResourcesArgs; gates (FeatureGates) decide which fields may be set."""
    errors = []
    prefix = f"{path}." if path else ""
    for name in FIELDS:
        if args.get(name) is None:
            continue
        try:
            seconds = parse_go_duration(args[name])
        except ValueError as exc:
            errors.append(invalid(f"{prefix}{name}", args[name], str(exc)))
            continue
        # field.Invalid is given the *metav1.Duration: printed by its String(), unquoted.
        printed = Printed(go_duration(seconds))
        if name == "filterTimeout":
            if gates is not None and not gates.enabled("DRASchedulerFilterTimeout"):
                errors.append(forbidden(f"{prefix}{name}",
                                        "DRASchedulingFilterTimeout feature gate is disabled"))
            elif seconds < 0:
                errors.append(invalid(f"{prefix}{name}", printed, "must be zero or positive"))
        elif gates is not None and not (gates.enabled("DRADeviceBindingConditions")
                                        and gates.enabled("DRAResourceClaimDeviceStatus")):
            errors.append(forbidden(f"{prefix}{name}", "DRADeviceBindingConditions or "
                                    "DRAResourceClaimDeviceStatus feature gate is disabled"))
        elif seconds < 1:
            errors.append(invalid(f"{prefix}{name}", printed, "must be at least 1 second"))
    return errors
