"""A pod's effective requests (resourcehelper.PodRequests) as PodInfo computes them."""
import pytest

from scheduler_core.framework.types import PodInfo, pod_requests
from scheduler_core.testing import make_pod

MI = 2**20


def container(cpu=None, memory=None, limits=None, restart=None, **extra):
    requests = {k: v for k, v in (("cpu", cpu), ("memory", memory)) if v is not None}
    requests.update(extra)
    c = {"name": "c", "resources": {}}
    if requests:
        c["resources"]["requests"] = requests
    if limits:
        c["resources"]["limits"] = limits
    if restart:
        c["restartPolicy"] = restart
    return c


def sidecar(cpu):
    return container(cpu=cpu, restart="Always")


def spec(containers, init=(), **extra):
    return {"containers": list(containers), "initContainers": list(init), **extra}


@pytest.mark.parametrize("pod_spec,want_cpu", [
    pytest.param(spec([container("1"), container("1")], [container("3"), container("1")]),
                 3000, id="the largest init container wins over the sum of containers"),
    pytest.param(spec([container("1"), container("1")], [container("1")]), 2000,
                 id="the sum of containers wins over a smaller init container"),
    pytest.param(spec([container("1")], [sidecar("1")]), 2000,
                 id="a restartable init container runs beside the containers"),
    pytest.param(spec([container("1")], [sidecar("1"), sidecar("2"), sidecar("3")]), 7000,
                 id="several restartable init containers add up"),
    pytest.param(spec([container("1")], [sidecar("1"), sidecar("2"), container("5"),
                                         sidecar("3")]), 8000,
                 id="an init container runs beside the sidecars started before it"),
    pytest.param(spec([container("1")], [sidecar("1"), container("10"), sidecar("2")]), 11000,
                 id="a large init container after one sidecar"),
    pytest.param(spec([container("1")], overhead={"cpu": "250m"}), 1250,
                 id="pod overhead is added"),
    pytest.param(spec([container("1")], [container("3")], overhead={"cpu": "500m"}), 3500,
                 id="overhead is added after the init container maximum"),
    pytest.param(spec([container(limits={"cpu": "2"})]), 2000,
                 id="a limit without a request defaults the request"),
    pytest.param(spec([container("1", limits={"cpu": "2"})]), 1000,
                 id="an explicit request wins over the limit"),
    pytest.param(spec([container()]), 0, id="no requests at all"),
])
def test_cpu_requests(pod_spec, want_cpu):
    assert pod_requests(pod_spec).get("cpu", 0) == want_cpu
    pi = PodInfo({"metadata": {"name": "p"}, "spec": pod_spec})
    assert pi.requests.milli_cpu == want_cpu


def test_every_resource_is_accounted():
    pi = PodInfo(make_pod("p", containers=[
        container("500m", "1Gi", **{"ephemeral-storage": "2Gi", "example.com/gpu": "2"}),
        container(memory="512Mi")]))
    assert pi.requests.milli_cpu == 500
    assert pi.requests.memory == 1024 * MI + 512 * MI
    assert pi.requests.ephemeral_storage == 2 * 1024 * MI
    assert pi.requests.scalar == {"example.com/gpu": 2}


@pytest.mark.parametrize("containers,want", [
    pytest.param([container()], (100, 200 * MI), id="defaults for a container asking nothing"),
    pytest.param([container(), container()], (200, 400 * MI),
                 id="the defaults apply per container"),
    pytest.param([container(cpu="1")], (1000, 200 * MI), id="only the missing one is defaulted"),
    pytest.param([container(cpu="0", memory="0")], (0, 0),
                 id="an explicit zero is not missing"),
])
def test_non_zero_requests_for_scoring(containers, want):
    pi = PodInfo(make_pod("p", containers=containers))
    assert (pi.non_zero_cpu, pi.non_zero_mem) == want
