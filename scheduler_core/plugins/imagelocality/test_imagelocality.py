"""ImageLocality, ported from image_locality_test.go."""
import hashlib

import pytest

from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.handle import FakeHandle
from scheduler_core.framework.interfaces import MAX_NODE_SCORE
from scheduler_core.framework.snapshot import Snapshot
from scheduler_core.plugins.imagelocality import new
from scheduler_core.plugins.imagelocality.image_locality import MB, normalized_image_name
from scheduler_core.testing import make_node, make_pod, pod_info


def spec(*images, init=()):
    out = {"containers": [{"name": f"c{i}", "image": image} for i, image in enumerate(images)]}
    if init:
        out["initContainers"] = [{"name": f"i{i}", "image": image} for i, image in enumerate(init)]
    return out


TEST_40_250 = spec("gcr.io/40", "gcr.io/250")
TEST_40_300 = spec("gcr.io/40", "gcr.io/300")
TEST_MIN_MAX = spec("gcr.io/10", "gcr.io/4000")
TEST_300_600_900 = spec("gcr.io/300", "gcr.io/600", "gcr.io/900")
TEST_30_40 = spec("gcr.io/30", "gcr.io/40")
TEST_30_INIT_300 = spec("gcr.io/30", init=["gcr.io/300"])

NODE_40_300_2000 = [(["gcr.io/40:latest", "gcr.io/40:v1", "gcr.io/40:v1"], 40 * MB),
                    (["gcr.io/300:latest", "gcr.io/300:v1"], 300 * MB),
                    (["gcr.io/2000:latest"], 2000 * MB)]
NODE_250_10 = [(["gcr.io/250:latest"], 250 * MB), (["gcr.io/10:latest", "gcr.io/10:v1"], 10 * MB)]
NODE_600_40_900 = [(["gcr.io/600:latest"], 600 * MB), (["gcr.io/40:latest"], 40 * MB),
                   (["gcr.io/900:latest"], 900 * MB)]
NODE_300_600_900 = [(["gcr.io/300:latest"], 300 * MB), (["gcr.io/600:latest"], 600 * MB),
                    (["gcr.io/900:latest"], 900 * MB)]
NODE_4000_30 = [(["gcr.io/4000:latest"], 4000 * MB), (["gcr.io/30:latest"], 30 * MB)]
NODE_20_30_40 = [(["gcr.io/20:latest"], 20 * MB), (["gcr.io/30:latest"], 30 * MB),
                 (["gcr.io/40:latest"], 40 * MB)]
NO_IMAGES = []

CASES = [
    # node1: 40MB/2 < 23MB; node2: 100 * (250M/2 - 23M) / (1000M * 2 - 23M) = 5
    pytest.param(TEST_40_250, [NODE_40_300_2000, NODE_250_10], [0, 5],
                 id="two images spread on two nodes, prefer the larger image one"),
    # node1: 100 * ((40M + 300M)/2 - 23M) / (1000M * 2 - 23M) = 7
    pytest.param(TEST_40_300, [NODE_40_300_2000, NODE_250_10], [7, 0],
                 id="two images on one node, prefer this node"),
    # node1: 4000M/2 >= 1000M * 2, the max threshold; node2: 10M/2 < 23M
    pytest.param(TEST_MIN_MAX, [NODE_4000_30, NODE_250_10], [MAX_NODE_SCORE, 0],
                 id="if exceed limit, use limit"),
    # node1: 100 * (4000M/3 - 23M) / (1000M * 2 - 23M) = 66
    pytest.param(TEST_MIN_MAX, [NODE_4000_30, NODE_250_10, NO_IMAGES], [66, 0, 0],
                 id="if exceed limit, use limit (with node which has no images present)"),
    # node1: 100 * (600M * 2/3 + 900M * 2/3 - 23M) / (1000M * 3 - 23M) = 32
    # node2: 100 * (300M * 1/3 + 600M * 2/3 + 900M * 2/3 - 23M) / (1000M * 3 - 23M) = 36
    pytest.param(TEST_300_600_900, [NODE_600_40_900, NODE_300_600_900, NO_IMAGES], [32, 36, 0],
                 id="pod with multiple large images, node2 is preferred"),
    # node1: 100 * (30M + 40M * 1/2 - 23M) / (1000M * 2 - 23M) = 1
    pytest.param(TEST_30_40, [NODE_20_30_40, NODE_4000_30], [1, 0],
                 id="pod with multiple small images"),
    # node1: 100 * (300M * 1/2 - 23M) / (1000M * 2 - 23M) = 6
    pytest.param(TEST_30_INIT_300, [NODE_40_300_2000, NODE_20_30_40], [6, 0],
                 id="include InitContainers: two images spread on two nodes, prefer the larger "
                    "image one"),
    pytest.param(spec("nginx"), [[(["docker.io/library/nginx:latest"], 500 * MB)]], [0],
                 id="registry prefixes are not normalized, so a short name misses the node's "
                    "fully qualified image"),
    pytest.param(spec("docker.io/library/nginx"), [[(["docker.io/library/nginx:latest"],
                                                     500 * MB)]], [48],
                 id="the same fully qualified name matches with the implicit latest tag"),
]


@pytest.mark.parametrize("pod_spec,node_images,want", CASES)
def test_score(pod_spec, node_images, want):
    nodes = [make_node(f"node{i + 1}", images=images) for i, images in enumerate(node_images)]
    snapshot = Snapshot.from_objects(nodes)
    plugin = new({}, FakeHandle(snapshot))
    pod = pod_info(make_pod("p", **pod_spec))
    state = CycleState()
    scores = []
    for node in nodes:
        score, status = plugin.score(state, pod, snapshot.get(node["metadata"]["name"]))
        assert status is None
        scores.append(score)
    assert scores == want


def fake_digest(content: str) -> str:
    return "sha256:" + hashlib.sha256(content.encode()).hexdigest()


@pytest.mark.parametrize("name,want", [
    pytest.param("root", "root:latest", id="add :latest postfix 1"),
    pytest.param("gcr.io:5000/root", "gcr.io:5000/root:latest", id="add :latest postfix 2"),
    pytest.param("root:tag", "root:tag", id="keep it as is 1"),
    pytest.param("root@" + fake_digest("root"), "root@" + fake_digest("root"),
                 id="keep it as is 2"),
])
def test_normalized_image_name(name, want):
    assert normalized_image_name(name) == want
