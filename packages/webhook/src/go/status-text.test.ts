import assert from "node:assert/strict";
import { test } from "node:test";
import { goStatusReason, goStatusText } from "./status-text.js";

test("goStatusText words codes as Go does, not as node does", () => {
  assert.equal(goStatusText(200), "OK");
  assert.equal(goStatusText(413), "Request Entity Too Large");
  assert.equal(goStatusText(414), "Request URI Too Long");
  assert.equal(goStatusText(416), "Requested Range Not Satisfiable");
  assert.equal(goStatusText(418), "I'm a teapot");
});

test("goStatusText knows no 306 or 509, and goStatusReason names them by number", () => {
  assert.equal(goStatusText(306), "");
  assert.equal(goStatusText(509), "");
  assert.equal(goStatusReason(509), "status code 509");
  assert.equal(goStatusReason(404), "Not Found");
});
