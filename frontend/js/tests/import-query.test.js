// The import forms' checkboxes as the import API's query parameters.
import assert from "node:assert/strict";
import { test } from "node:test";

import { importQuery, urls } from "../urls.js";

test("no option checked adds no query", () => {
  assert.equal(importQuery(), "");
  assert.equal(urls.clusterImport({ strict: false, dropRemovedPlugins: false }), "/api/clusters/import/");
});

test("strict is fieldValidation=Strict and dropping removed plugins is dropRemovedPlugins=true", () => {
  assert.equal(urls.clusterImport({ strict: true }), "/api/clusters/import/?fieldValidation=Strict");
  assert.equal(urls.clusterReimport(7, { dropRemovedPlugins: true }), "/api/clusters/7/import/?dropRemovedPlugins=true");
  assert.equal(importQuery({ strict: true, dropRemovedPlugins: true }), "?fieldValidation=Strict&dropRemovedPlugins=true");
});
