// A sandbox read-only (the trainer looking at an attendee's copy, or the attendee's own).

import { api } from "../api.js";
import { $ } from "../util.js";
import { drawObjects } from "./objects.js";

const root = $("#sandbox-view");
const data = await api.get(`/api/workshops/${root.dataset.code}/sandboxes/${root.dataset.sandbox}/`);
$("#sandbox-run").textContent = data.run_withheld ? "Your own run is hidden while a question is open: it is back after the reveal."
  : data.run
  ? `Own run #${data.run.id}: ${data.run.status}, cycle ${data.run.cycle_count}, ${data.run.pods_bound} bound`
  : data.copied ? "No run of its own yet."
    : "Not copied yet: the lesson as it is (the first detach makes the private copy).";
drawObjects(data.objects, $("#nodes"), $("#pods"));
