"""/api/plugins/: the registry's plugins, their extension points and default args."""


def test_it_lists_every_in_tree_plugin_with_its_points_and_defaults(api):
    response = api.get("/api/plugins/")
    assert response.status_code == 200
    plugins = {p["name"]: p for p in response.json()}
    fit = plugins["NodeResourcesFit"]
    assert fit["extension_points"] == ["preFilter", "filter", "preScore", "score"]
    assert fit["default_args"]["scoringStrategy"]["type"] == "LeastAllocated"
    assert (fit["enabled_by_default"], fit["default_weight"]) == (True, 1)
    assert plugins["TaintToleration"]["default_weight"] == 3
    assert plugins["PrioritySort"]["extension_points"] == ["queueSort"]
    assert plugins["DefaultBinder"]["extension_points"] == ["bind"]
    assert plugins["DefaultPreemption"]["extension_points"] == ["postFilter"]


def test_it_lists_the_out_of_tree_plugins_from_settings(api):
    plugins = {p["name"]: p for p in api.get("/api/plugins/").json()}
    assert plugins["Coscheduling"]["enabled_by_default"] is False
    assert "permit" in plugins["Coscheduling"]["extension_points"]


def test_it_follows_the_setting(api, settings):
    settings.SCHEDULER_OUT_OF_TREE_PLUGINS = {}
    names = {p["name"] for p in api.get("/api/plugins/").json()}
    assert "Coscheduling" not in names and "NodeAffinity" in names


def test_it_rejects_anonymous_users(anon):
    assert anon.get("/api/plugins/").status_code in (401, 403)
