"""A Scenario: the input read and checked once, from which the engine is built many times.

The what-if commands run the scheduler over the same cluster again and again (with more
nodes, with copies of a pod). Reading and validating 2,500 objects each time would cost more
than scheduling them, so the documents are checked once and kept frozen (pickled); each run
thaws a fresh copy, since loading and scheduling write into the objects.
"""
from __future__ import annotations

import pickle

from ..build import build_scheduler
from ..errors import InputError
from ..features import DEFAULT_GATES, FeatureGates
from ..loader import Cluster, load_documents, read_sources
from ..scheduler import Scheduler
from ..warninglog import WarningLog

ADDED_NODES_SOURCE = "(added nodes)"


class Frozen:
    """Documents kept pickled: each thaw() is a fresh copy to load and schedule (faster than
    a deep copy, and the original is never written into)."""

    def __init__(self, value):
        self._blob = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)

    def thaw(self):
        return pickle.loads(self._blob)


class Scenario:
    def __init__(self, sources: list[tuple[str, list]], *, config: dict | None = None,
                 seed: int = 0, out_of_tree: dict | None = None, warn=None,
                 features: FeatureGates = DEFAULT_GATES, checked: bool = False,
                 config_file: str | None = None):
        """Checks everything now: bad input raises InputError here, not in a run.

        sources: [(file, [document, ...])] as load_documents takes them (checked: validated
        when stored, as a playground run's are); config: the KubeSchedulerConfiguration
        (None: the documents' own); config_file: a file that must hold it.
        warn(line) gets each warning once, as it comes: those of reading the input and of
        the configuration now, then any new one a run built here raises (`warnings` holds
        them all, in that order, without repeats)."""
        self.frozen = Frozen(sources)
        self.seed, self.out_of_tree, self.features = seed, out_of_tree, features
        self.config = config
        cluster = load_documents(sources, seed, checked=checked, features=features)
        if config_file and cluster.config_file != config_file:
            raise InputError("no KubeSchedulerConfiguration document", file=config_file)
        self.config_file = cluster.config_file
        # The configuration every run follows, as a document (sweep derives its variants).
        self.base_config = config if config is not None else cluster.config
        for note in features.notes:
            cluster.warnings.append(note)
        if warn is not None:
            cluster.warnings.subscribe(warn)
        self.node_names = {n["metadata"]["name"] for n in cluster.nodes}
        # Built once so that a bad configuration is reported before any search starts.
        self.frameworks = build_scheduler(cluster, config, config_file=self.config_file,
                                          seed=seed, out_of_tree=out_of_tree).frameworks
        self.warnings: WarningLog = cluster.warnings

    @classmethod
    def from_files(cls, paths: list[str], *, config_file: str | None = None,
                   texts: dict[str, str] | None = None, **options) -> Scenario:
        """As simulate reads FILEs and --config (texts: their contents, instead of reading)."""
        sources = read_sources(list(paths) + ([config_file] if config_file else []), texts)
        return cls(sources, config_file=config_file, **options)

    def cluster(self, extra_nodes: list[dict] = ()) -> Cluster:
        sources = self.frozen.thaw()
        if extra_nodes:
            sources.append((ADDED_NODES_SOURCE, list(extra_nodes)))
        cluster = load_documents(sources, self.seed, checked=True, features=self.features)
        cluster.warnings.subscribe(self._gather)
        return cluster

    def _gather(self, line: str) -> None:
        # Added copies repeat their template's own warnings, which its reading said once,
        # naming its file (template.read_template).
        if not line.startswith(f"{ADDED_NODES_SOURCE}:"):
            self.warnings.append(line)

    def scheduler(self, extra_nodes: list[dict] = (), observer=None) -> Scheduler:
        """A fresh scheduler over the cluster plus `extra_nodes`, nothing scheduled yet."""
        return build_scheduler(self.cluster(extra_nodes), self.config,
                               config_file=self.config_file, seed=self.seed, observer=observer,
                               out_of_tree=self.out_of_tree)
