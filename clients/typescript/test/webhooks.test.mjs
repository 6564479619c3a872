// verifyWebhook against a delivery Ponte really sent (captured by tests/clients/test_typescript_client.py
// and passed in PONTE_DELIVERY), then tampered, expired and re-keyed copies of it; and headers Ponte's
// signer made for a secret in the Standard Webhooks form (`whsec_<base64>`).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { verifyWebhook, WebhookVerificationError } from "../dist/index.js";

const path = process.env.PONTE_DELIVERY;
assert.ok(path, "PONTE_DELIVERY must be set (run through tests/clients/test_typescript_client.py)");
const { delivered, standard } = JSON.parse(readFileSync(path, "utf8"));
const { headers, body: text, secret } = delivered;
const body = Buffer.from(text, "utf8");
const sentAt = new Date(Number(headers["webhook-timestamp"]) * 1000);
const refused = (pattern) => (error) =>
  error instanceof WebhookVerificationError && error.statusCode === 400 && pattern.test(error.message);
const mismatch = refused(/does not match/);

test("a delivery Ponte sent verifies, as node:http headers, fetch Headers and a string body", () => {
  assert.match(headers["webhook-signature"], /^v1,/);
  verifyWebhook(headers, body, secret);
  verifyWebhook(new Headers(headers), text, secret);
  const upper = Object.entries(headers).map(([name, value]) => [name.toUpperCase(), value]);
  verifyWebhook(Object.fromEntries(upper), body, secret);
});

test("one matching signature among several is enough", () => {
  const other = "v1,bm90LXRoaXMtb25l";
  const several = { ...headers, "webhook-signature": `${other} ${headers["webhook-signature"]}` };
  verifyWebhook(several, body, secret);
  const noneMatch = { ...headers, "webhook-signature": `${other} v2,abc` };
  assert.throws(() => verifyWebhook(noneMatch, body, secret), mismatch);
});

test("a tampered body, id or secret is refused", () => {
  assert.throws(() => verifyWebhook(headers, Buffer.concat([body, Buffer.from(" ")]), secret), mismatch);
  assert.throws(() => verifyWebhook({ ...headers, "webhook-id": "msg_other" }, body, secret), mismatch);
  assert.throws(() => verifyWebhook(headers, body, "another-secret"), mismatch);
});

test("a timestamp more than 5 minutes away is refused, within it accepted", () => {
  const later = (seconds) => new Date(sentAt.getTime() + seconds * 1000);
  verifyWebhook(headers, body, secret, { now: later(299) });
  assert.throws(() => verifyWebhook(headers, body, secret, { now: later(301) }), refused(/too old/));
  assert.throws(() => verifyWebhook(headers, body, secret, { now: later(-301) }), refused(/too old/));
  const unstamped = { ...headers, "webhook-timestamp": "soon" };
  assert.throws(() => verifyWebhook(unstamped, body, secret), refused(/not a number/));
});

test("the hex x-webhook-signature alone is checked when there are no Standard Webhooks headers", () => {
  const legacy = { "x-webhook-signature": headers["x-webhook-signature"] };
  verifyWebhook(legacy, body, secret);
  assert.throws(() => verifyWebhook(legacy, body, "another-secret"), mismatch);
  assert.throws(() => verifyWebhook({}, body, secret), refused(/No webhook-signature/));
});

test("a whsec_ secret is used base64-decoded, as the Standard Webhooks libraries do", () => {
  const { headers: signed, body: signedText, secret: whsec } = standard;
  assert.ok(whsec.startsWith("whsec_"));
  verifyWebhook(signed, signedText, whsec);
  const undecoded = whsec.slice("whsec_".length);
  assert.throws(() => verifyWebhook(signed, signedText, undecoded), mismatch);
});
