"""ImageLocality: favours nodes that already hold the pod's container images.

Each image present on the node adds its size scaled by the share of nodes that hold it (so an
image everywhere does not pull every pod to the same nodes); the sum, clamped to
[23MB, 1000MB x containers], maps linearly onto [0, 100].
"""
from __future__ import annotations

import numpy as np

from ...framework.cycle_state import CycleState
from ...framework.interfaces import MAX_NODE_SCORE, ScorePlugin
from ...framework.types import NodeInfo, PodInfo
from .. import names
from ..helper import go_div

NAME = names.IMAGE_LOCALITY
MB = 1024 * 1024
# Bounds of the image score range: 90% of images on Docker Hub fall between them.
MIN_THRESHOLD = 23 * MB
MAX_CONTAINER_THRESHOLD = 1000 * MB


def normalized_image_name(name: str) -> str:
    """The CRI name of an image: an implicit tag is ':latest'. Registries are not normalized,
    so 'nginx' in a pod does not match 'docker.io/library/nginx:latest' on a node."""
    if name.rfind(":") <= name.rfind("/"):
        return name + ":latest"
    return name


def calculate_priority(sum_scores: int, num_containers: int) -> int:
    max_threshold = MAX_CONTAINER_THRESHOLD * num_containers
    if sum_scores < MIN_THRESHOLD:
        sum_scores = MIN_THRESHOLD
    elif sum_scores > max_threshold:
        sum_scores = max_threshold
    return go_div(MAX_NODE_SCORE * (sum_scores - MIN_THRESHOLD), max_threshold - MIN_THRESHOLD)


def _pod_images(pod: PodInfo) -> tuple[str, ...]:
    """Normalized images of the init containers and containers, parsed once per pod."""
    images = pod.parsed.get(NAME)
    if images is None:
        containers = list(pod.spec.get("initContainers") or []) + \
            list(pod.spec.get("containers") or [])
        images = pod.parsed[NAME] = tuple(
            normalized_image_name(c.get("image") or "") for c in containers)
    return images


class ImageLocality(ScorePlugin):
    NAME = NAME

    def __init__(self, handle):
        self.handle = handle

    def score(self, state: CycleState, pod: PodInfo, node_info: NodeInfo):
        images = _pod_images(pod)
        total_num_nodes = len(self.handle.snapshot.list())
        image_states = node_info.image_states
        sum_scores = 0
        for image in images:
            image_state = image_states.get(image)
            if image_state is not None:
                spread = image_state.num_nodes / total_num_nodes
                sum_scores += int(image_state.size * spread)
        return calculate_priority(sum_scores, len(images)), None

    def score_vector(self, state: CycleState, pod: PodInfo, cols, rows):
        images = _pod_images(pod)
        if not images:
            return None
        total_num_nodes = len(self.handle.snapshot.list())
        columns = [cols.image(image) for image in images]
        # A node's score depends on its own images once the spreads are known: kept.
        key = (NAME, total_num_nodes, *((image, num) for image, (_, num) in zip(images, columns)))
        infos = cols.node_infos
        scores = cols.kept(key, lambda some: self._score_rows(columns, total_num_nodes, some),
                           lambda row: self.score(state, pod, infos[row])[0])
        return scores[rows]

    @staticmethod
    def _score_rows(columns, total_num_nodes: int, rows):
        sum_scores = np.zeros(len(rows), np.int64)
        for sizes, num_nodes in columns:
            if num_nodes:
                spread = num_nodes / total_num_nodes
                sum_scores += (sizes[rows].astype(np.float64) * spread).astype(np.int64)
        max_threshold = MAX_CONTAINER_THRESHOLD * len(columns)
        clamped = np.clip(sum_scores, MIN_THRESHOLD, max_threshold)
        return MAX_NODE_SCORE * (clamped - MIN_THRESHOLD) // (max_threshold - MIN_THRESHOLD)


def new(args: dict, handle) -> ImageLocality:
    return ImageLocality(handle)
