// Refused credentials per client address (issue 13, finding 2): an address's
// refusals past its budget are 429 until a token is back; requests with no
// known address are never limited; memory stays bounded.
import { test } from "node:test";
import assert from "node:assert/strict";
import { withClientAddress } from "../../../core/http/mod.ts";
import { addressKey, createRefusalsPerAddress } from "../../../core/abuse/mod.ts";
import { isSvcError } from "../../../core/errors/mod.ts";

const from = (address: string | null) => withClientAddress(new Request("http://localhost/svc/agent/run"), address);

function refusal(check: () => void): { retryAfter: string } | null {
  try {
    check();
    return null;
  } catch (error) {
    assert.ok(isSvcError(error) && error.code === "RATE_LIMITED", String(error));
    return { retryAfter: new Headers(error.headers).get("retry-after")! };
  }
}

test("an address's refusals past its budget are 429 with Retry-After until a token is back; others are not", () => {
  let now = 0;
  const limit = createRefusalsPerAddress({ limit: 3, windowMs: 60_000 }, () => now);
  const a = from("198.51.100.1");
  for (let i = 0; i < 3; i++) assert.equal(refusal(() => limit.refused(a)), null, `refusal ${i + 1} stays a 401`);
  assert.deepEqual(refusal(() => limit.refused(a)), { retryAfter: "20" }, "one token is back in 60 s / 3");
  assert.equal(refusal(() => limit.refused(from("198.51.100.2"))), null, "another address is unaffected");
  now = 19_999;
  assert.notEqual(refusal(() => limit.refused(a)), null, "still 429 just before the token is back");
  now = 20_000;
  assert.equal(refusal(() => limit.refused(a)), null, "a 401 again once a token is back");
});

test("requests with no known address are never limited by address", () => {
  const limit = createRefusalsPerAddress({ limit: 1, windowMs: 60_000 });
  for (let i = 0; i < 10; i++) assert.equal(refusal(() => limit.refused(from(null))), null);
  assert.equal(limit.size, 0, "nothing is tracked for them");
});

test("an IPv6 client counts per /64, so cycling through its own addresses does not escape the limit", () => {
  const limit = createRefusalsPerAddress({ limit: 2, windowMs: 60_000 });
  limit.refused(from("2001:db8:1:2::1"));
  limit.refused(from("2001:db8:1:2:ffff:ffff:ffff:ffff"));
  assert.notEqual(refusal(() => limit.refused(from("2001:0db8:0001:0002::abcd"))), null);
  assert.equal(refusal(() => limit.refused(from("2001:db8:1:3::1"))), null, "the next /64 is someone else");
});

test("addressKey keeps IPv4 as it is, unmaps IPv4-mapped IPv6, and cuts IPv6 to its /64", () => {
  assert.equal(addressKey("127.0.0.1"), "127.0.0.1");
  assert.equal(addressKey("::ffff:127.0.0.1"), "127.0.0.1");
  assert.equal(addressKey("::1"), "0:0:0:0::/64");
  assert.equal(addressKey("fe80::1%eth0"), "fe80:0:0:0::/64");
  assert.equal(addressKey("2001:DB8:0:0:1::"), "2001:db8:0:0::/64");
  assert.equal(addressKey("2001:db8:aa:bb:cc:dd:ee:ff"), "2001:db8:aa:bb::/64");
});

test("memory stays bounded however many addresses are refused", () => {
  const limit = createRefusalsPerAddress({ limit: 1, windowMs: 60_000, maxEntries: 100 });
  for (let i = 0; i < 5000; i++) {
    assert.equal(refusal(() => limit.refused(from(`10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`))), null);
  }
  assert.ok(limit.size <= 100, `${limit.size} addresses tracked`);
});
