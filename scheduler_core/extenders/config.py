"""Validation of KubeSchedulerConfiguration.extenders (validateExtenders)."""
from ..errors import invalid, required


def validate_extenders(extenders: list[dict]) -> list[str]:
    errors = []
    binders = 0
    for i, ext in enumerate(extenders):
        path = f"extenders[{i}]"
        if not ext.get("urlPrefix"):
            errors.append(required(f"{path}.urlPrefix"))
        if ext.get("prioritizeVerb") and (ext.get("weight") or 0) <= 0:
            errors.append(invalid(f"{path}.weight", ext.get("weight", 0),
                                  "must have a positive weight applied to it"))
        if ext.get("bindVerb"):
            binders += 1
        for j, res in enumerate(ext.get("managedResources") or []):
            if not res.get("name"):
                errors.append(required(f"{path}.managedResources[{j}].name"))
    if binders > 1:
        errors.append(invalid("extenders", f"found {binders} extenders implementing bind",
                              "only one extender can implement bind"))
    return errors
