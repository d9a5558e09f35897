import assert from "node:assert/strict";
import { test } from "node:test";

import {
  ARG_CHOICES, ARG_ON_CHOICE, effectiveText, getDeep, isFlatObjectList, isResourceList, messagePath,
  nextTab, setDeep, tabLabel, unsaved,
} from "../profile/model.js";

test("a kube-scheduler message points at the field path before its first colon", () => {
  assert.equal(messagePath("profiles[0].plugins.score.enabled[1].weight: Invalid value: -1: must be an integer"),
    "profiles[0].plugins.score.enabled[1].weight");
  assert.equal(messagePath("pluginConfig[NodeResourcesFit].args.scoringStrategy.type: Unsupported value"),
    "pluginConfig[NodeResourcesFit].args.scoringStrategy.type");
  assert.equal(messagePath("no field here"), "");
});

test("a strict decoding error points at the first field it names", () => {
  assert.equal(messagePath('strict decoding error: unknown field "profiles[0].plugin", unknown field "x"'),
    "profiles[0].plugin");
  assert.equal(messagePath("strict decoding error: decoding .profiles[0].pluginConfig[1]: strict decoding "
    + 'error: decoding args for plugin NodeResourcesFit: strict decoding error: unknown field '
    + '"scoringStrategy.resources[0].Name"'), "profiles[0].pluginConfig[1].args.scoringStrategy.resources[0].Name");
  assert.equal(messagePath("decoding .profiles[0].pluginConfig[0]: args for plugin DefaultPreemption were not "
    + "of type DefaultPreemptionArgs.kubescheduler.config.k8s.io, got InterPodAffinityArgs.kubescheduler.config.k8s.io"),
  "profiles[0].pluginConfig[0].args");
  assert.equal(messagePath('no kind "KubeSchedulerConfiguration" is registered for version '
    + '"kubescheduler.config.k8s.io/v1beta3" in scheme "pkg/scheduler/apis/config/scheme/scheme.go:30"'),
  "apiVersion");
});

test("Go's cannot-unmarshal message points at the first value of the wrong kind, indexes put back", () => {
  const config = { profiles: [
    { plugins: { score: { enabled: [{ name: "A", weight: 1 }, { name: "B", weight: "2" }] } } },
    { plugins: { score: { enabled: [{ name: "C", weight: "3" }] } } }] };
  assert.equal(messagePath("json: cannot unmarshal string into Go struct field "
    + "Plugin.profiles.plugins.score.enabled.weight of type int32", config),
  "profiles[0].plugins.score.enabled[1].weight");
  assert.equal(messagePath("json: cannot unmarshal number 50.5 into Go struct field "
    + "KubeSchedulerConfiguration.percentageOfNodesToScore of type int32", { percentageOfNodesToScore: 50.5 }),
  "percentageOfNodesToScore");
  assert.equal(messagePath("json: cannot unmarshal string into Go struct field "
    + "KubeSchedulerConfiguration.profiles of type []v1.KubeSchedulerProfile", { profiles: "x" }), "profiles");
  const args = { profiles: [{ pluginConfig: [{ name: "NodeResourcesFit" }, { name: "InterPodAffinity",
    args: { hardPodAffinityWeight: "5" } }] }] };
  assert.equal(messagePath("decoding .profiles[0].pluginConfig[1]: decoding args for plugin InterPodAffinity: "
    + "json: cannot unmarshal string into Go struct field InterPodAffinityArgs.hardPodAffinityWeight of type int32", args),
  "profiles[0].pluginConfig[1].args.hardPodAffinityWeight");
  assert.equal(messagePath("decoding .profiles[0].pluginConfig[1]: decoding args for plugin DynamicResources: "
    + "json: cannot unmarshal number into Go value of type string", args), "profiles[0].pluginConfig[1].args");
});

test("deep keys are set, removed with undefined, and read back", () => {
  const args = {};
  setDeep(args, "scoringStrategy.type", "MostAllocated");
  assert.deepEqual(args, { scoringStrategy: { type: "MostAllocated" } });
  assert.equal(getDeep(args, "scoringStrategy.type"), "MostAllocated");
  assert.equal(getDeep(args, "scoringStrategy.missing.deeper"), undefined);
  setDeep(args, "scoringStrategy.type", undefined);
  assert.deepEqual(args, { scoringStrategy: {} });
});

test("resource lists and rows of numbers are told apart for the args forms", () => {
  assert.ok(isResourceList([{ name: "cpu", weight: 1 }, { name: "memory", weight: 1 }]));
  assert.ok(!isResourceList([{ utilization: 0, score: 0 }]));
  assert.ok(isFlatObjectList([{ utilization: 0, score: 0 }, { utilization: 100, score: 10 }]));
  assert.ok(!isFlatObjectList([]));
  assert.ok(!isFlatObjectList([{ name: "cpu", weight: 1 }]));
});

test("choosing RequestedToCapacityRatio brings its shape; System defaulting drops the constraints", () => {
  assert.deepEqual(ARG_CHOICES["NodeResourcesFit.scoringStrategy.type"],
    ["LeastAllocated", "MostAllocated", "RequestedToCapacityRatio"]);
  const fit = { scoringStrategy: { type: "RequestedToCapacityRatio" } };
  ARG_ON_CHOICE["NodeResourcesFit.scoringStrategy.type"](fit, "RequestedToCapacityRatio");
  assert.deepEqual(fit.scoringStrategy.requestedToCapacityRatio.shape,
    [{ utilization: 0, score: 0 }, { utilization: 100, score: 10 }]);
  const spread = { defaultingType: "System", defaultConstraints: [{ maxSkew: 1 }] };
  ARG_ON_CHOICE["PodTopologySpread.defaultingType"](spread, "System");
  assert.deepEqual(spread, { defaultingType: "System" });
});

test("what a point runs reads as the check's pipeline, with Score weights", () => {
  const p = { points: { filter: ["NodeName", "TaintToleration"], score: ["NodeAffinity", "ImageLocality"], permit: [] },
    weights: { NodeAffinity: 2 } };
  assert.equal(effectiveText(p, "filter"), "runs: NodeName → TaintToleration");
  assert.equal(effectiveText(p, "score"), "runs: NodeAffinity×2 → ImageLocality×1");
  assert.equal(effectiveText(p, "permit"), "runs: (nothing)");
  assert.equal(effectiveText(p, "multiPoint"), "");
  assert.equal(effectiveText(null, "filter"), "runs: (fix the errors to see the pipeline)");
});

test("a tab's label carries its error count, replaced rather than appended twice", () => {
  assert.equal(tabLabel("Args", 1), "Args (1 error)");
  assert.equal(tabLabel("Args (1 error)", 3), "Args (3 errors)");
  assert.equal(tabLabel("Args (3 errors)", 0), "Args");
});

test("the arrow keys go round the tabs", () => {
  assert.equal(nextTab("plugins", "ArrowRight"), "args");
  assert.equal(nextTab("yaml", "ArrowRight"), "plugins");
  assert.equal(nextTab("plugins", "ArrowLeft"), "yaml");
});

test("a working copy is unsaved only when it differs once tidied", () => {
  const saved = { apiVersion: "kubescheduler.config.k8s.io/v1", kind: "KubeSchedulerConfiguration", profiles: [{ schedulerName: "a" }] };
  assert.ok(!unsaved(structuredClone(saved), saved));
  assert.ok(unsaved({ ...saved, profiles: [{ schedulerName: "b" }] }, saved));
});
