"""requirements.lock pins every installed package, and agrees with the requirements files."""

import re
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PIN = re.compile(r"^([A-Za-z0-9_.\-]+)(\[[^\]]*\])?==([^\s;#]+)")


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _pins(path: Path) -> dict[str, str]:
    pins = {}
    for line in path.read_text().splitlines():
        line = line.strip()
        if not line or line.startswith(("#", "-r ")):
            continue
        match = PIN.match(line)
        assert match, f"{path.name}: not an exact pin: {line!r}"
        pins[_canonical(match.group(1))] = match.group(3)
    return pins


def test_every_requirement_is_locked_at_its_version():
    lock = _pins(ROOT / "requirements.lock")
    for name in ("requirements.txt", "requirements-test.txt"):
        for package, version in _pins(ROOT / name).items():
            assert lock.get(package) == version, f"{name}: {package}=={version} vs the lock"


def test_the_environment_runs_what_the_lock_pins():
    lock = _pins(ROOT / "requirements.lock")
    installed = {_canonical(d.metadata["Name"]): d.version for d in metadata.distributions()}
    wrong = {p: (v, installed.get(p)) for p, v in lock.items() if installed.get(p) != v}
    assert not wrong, f"installed packages differ from requirements.lock: {wrong}"
