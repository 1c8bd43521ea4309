// The client's address beside a Request: recorded by the adapters (or by an
// app's own server with withClientAddress), else srvx's `ip`, else null.
import { test } from "node:test";
import assert from "node:assert/strict";
import { clientAddress, withClientAddress } from "../../../core/http/mod.ts";

test("clientAddress returns the address recorded with withClientAddress, and null for a request no server described", () => {
  const req = new Request("http://localhost/svc");
  assert.equal(withClientAddress(req, "203.0.113.7"), req, "the same request comes back");
  assert.equal(clientAddress(req), "203.0.113.7");
  assert.equal(clientAddress(new Request("http://localhost/svc")), null);
  assert.equal(
    clientAddress(new Request(req)),
    null,
    "a copy is another request: the server described only the one it got",
  );
});

test("withClientAddress records nothing for an empty or missing address", () => {
  for (const address of ["", null, undefined]) {
    assert.equal(clientAddress(withClientAddress(new Request("http://localhost/"), address)), null);
  }
});

test("clientAddress falls back to the ip srvx puts on its requests, and the recorded address wins", () => {
  const req = Object.defineProperty(new Request("http://localhost/"), "ip", { value: "192.0.2.1" });
  assert.equal(clientAddress(req), "192.0.2.1");
  assert.equal(clientAddress(withClientAddress(req, "::1")), "::1");
});

test("something longer than 100 characters or not a string is not an address", () => {
  assert.equal(clientAddress(withClientAddress(new Request("http://localhost/"), "1".repeat(101))), null);
  assert.equal(clientAddress(Object.defineProperty(new Request("http://localhost/"), "ip", { value: 7 })), null);
});

test("a function given to withClientAddress is called once, when the address is first asked for", () => {
  let calls = 0;
  const req = withClientAddress(new Request("http://localhost/"), () => {
    calls++;
    return "192.0.2.8";
  });
  assert.equal(calls, 0, "not asked yet");
  assert.equal(clientAddress(req), "192.0.2.8");
  assert.equal(clientAddress(req), "192.0.2.8");
  assert.equal(calls, 1);
  assert.equal(clientAddress(withClientAddress(new Request("http://localhost/"), () => undefined)), null);
});
