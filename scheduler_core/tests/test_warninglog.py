"""The run's warnings channel: the contract's line shape, once per line, to every sink."""
from scheduler_core.warninglog import WarningLog


def test_a_warning_names_the_file_the_document_and_the_object():
    log = WarningLog()
    log.warn("in.yaml", "document 3", "Pod default/web", 'unknown field "spec.nodeSelectr"')
    assert log.to_list() == ['in.yaml: document 3: Pod default/web: unknown field '
                             '"spec.nodeSelectr"']


def test_a_field_warning_names_the_field():
    log = WarningLog()
    log.field("in.yaml", "document 1", "Node n1", "status.declaredFeatures", "ignored")
    assert list(log) == ["in.yaml: document 1: Node n1: field status.declaredFeatures: ignored"]


def test_the_same_line_is_kept_once_and_sinks_see_each_line_as_it_comes():
    log, seen = WarningLog(["first"]), []
    log.subscribe(seen.append)
    log.append("second")
    log.append("second")
    assert seen == ["first", "second"] and len(log) == 2


def test_a_sink_may_skip_what_was_said_before_it_subscribed():
    log, seen = WarningLog(["before"]), []
    log.subscribe(seen.append, replay=False)
    log.append("after")
    assert seen == ["after"]
