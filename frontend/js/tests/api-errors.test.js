// The one-line messages the pages show for the API's error bodies.
import assert from "node:assert/strict";
import { test } from "node:test";

import { ApiError } from "../api.js";

test("a 409's detail list reads as its sentence, never as a field called detail", () => {
  const err = new ApiError(409, { detail: ["reveal the open question before asking another"] });
  assert.equal(err.message, "reveal the open question before asking another");
});

test("a detail string and field errors keep their forms", () => {
  assert.equal(new ApiError(403, { detail: "no" }).message, "no");
  assert.equal(new ApiError(400, { code: ["enter the code"] }).message, "code: enter the code");
});
