"""fixtures/scale-500.yaml is exactly what scripts/make_scale_fixture.py writes."""

import importlib.util

import yaml

from tests.api.conftest import FIXTURES


def _generator():
    path = FIXTURES.parent / "scripts" / "make_scale_fixture.py"
    spec = importlib.util.spec_from_file_location("make_scale_fixture", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_committed_fixture_is_the_generators_output(tmp_path):
    out = tmp_path / "scale.yaml"
    assert _generator().main(["--output", str(out)]) == 0
    assert out.read_bytes() == (FIXTURES / "scale-500.yaml").read_bytes()


def test_it_holds_500_nodes_and_2000_pods():
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    docs = list(yaml.load_all((FIXTURES / "scale-500.yaml").read_text(), Loader=loader))
    kinds = [d["kind"] for d in docs]
    assert kinds.count("Node") == 500 and kinds.count("Pod") == 2000
    assert sum(1 for d in docs if d["kind"] == "Pod" and "nodeName" not in d["spec"]) == 1000
