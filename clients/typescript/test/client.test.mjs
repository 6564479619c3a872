// The built client (dist/) against a live Ponte. Run by tests/clients/test_typescript_client.py, which
// starts the server and passes its URL, keys and a delivery Ponte signed in environment variables.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { test } from "node:test";

import {
  AuthenticationError,
  BondsAccessError,
  ConflictError,
  NotFoundError,
  PermissionDeniedError,
  Ponte,
  RateLimitError,
} from "../dist/index.js";

const env = (name) => {
  const value = process.env[name];
  assert.ok(value, `${name} must be set (run through tests/clients/test_typescript_client.py)`);
  return value;
};
const baseUrl = env("PONTE_URL");
const ponte = new Ponte({ baseUrl, apiKey: env("PONTE_ADMIN_KEY") });
const CUSTOMER = "5511988880002";

test("bonds: a keyed list, filters, a preview without a key, CSV", async () => {
  const full = await ponte.bonds.list();
  assert.equal(full.response.status, "ok");
  assert.ok(full.bonds.length > 5);
  const cdbs = await ponte.bonds.list({ product: ["cdb"], tax_free: false });
  assert.ok(cdbs.bonds.length > 0);
  assert.deepEqual(new Set(cdbs.bonds.map((bond) => bond.product)), new Set(["cdb"]));
  assert.ok(cdbs.bonds.every((bond) => bond.tax_free === false));
  const byRate = (await ponte.bonds.list({ product: ["cdb"], sort: "-rate" })).bonds.map((bond) => bond.rate);
  assert.deepEqual(byRate, [...byRate].sort((a, b) => b - a));
  const preview = await new Ponte({ baseUrl }).bonds.list();
  assert.equal(preview.response.status, "preview");
  assert.equal(preview.bonds.length, 5);
  const csv = await ponte.bonds.csv({ product: ["cdb"] });
  assert.deepEqual(csv.split("\n")[0].split(",").slice(0, 3), ["name", "bank", "bank_name"]);
  assert.match(await ponte.bonds.csv({ locale: "pt-BR" }), /VERDADEIRO|FALSO/);
});

test("bonds: a key without a subscription throws BondsAccessError (HTTP 200)", async () => {
  const client = new Ponte({ baseUrl, apiKey: env("PONTE_NO_SUBSCRIPTION_KEY") });
  await assert.rejects(client.bonds.list(), (error) => {
    assert.ok(error instanceof BondsAccessError);
    assert.equal(error.statusCode, 200);
    assert.equal(error.error, "no_subscription");
    assert.match(error.message, /subscription/);
    return true;
  });
});

test("sessions: created, connected, paired in the sandbox, then a text, a group, and deleted", async () => {
  const session = await ponte.sessions.create("shop");
  assert.equal(session.status, "disconnected");
  assert.ok(session.instanceKey);
  assert.deepEqual((await ponte.sessions.list()).data.map((s) => s.id), [session.id]);
  assert.equal((await ponte.sessions.get(session.id)).name, "shop");
  const connection = await ponte.sessions.connect(session.id);
  assert.equal(connection.status, "qr");
  const qr = await ponte.sessions.qrcode(session.id);
  assert.equal(qr.qrCode, connection.qrCode);
  assert.ok(qr.qrCodeImage.startsWith("data:image/png;base64,"));
  const pairing = await ponte.sessions.pairingCode(session.id, "5511988887777");
  assert.equal(pairing.pairingCode.length, 9);

  const scanned = await ponte.sessions.sandboxScan(session.id, { phone: "5511999990001" });
  assert.equal(scanned.status, "connected");
  assert.equal((await ponte.sessions.list({ status: "connected" })).meta.total, 1);

  const sent = await ponte.messages.sendText(session.id, CUSTOMER, "Olá!");
  assert.ok(sent.messageId);
  assert.equal(sent.to, `${CUSTOMER}@s.whatsapp.net`);
  const quoted = { messageId: sent.messageId };
  const reply = await ponte.messages.sendText(session.id, CUSTOMER, "again", { quoted });
  assert.equal((await ponte.messages.react(session.id, CUSTOMER, reply.messageId, "👍")).success, true);
  const where = await ponte.messages.sendLocation(session.id, CUSTOMER, -23.55, -46.63, { name: "Office" });
  const history = await ponte.messages.list(session.id, { chat: CUSTOMER });
  const ids = history.data.map((m) => m.messageId);
  assert.ok(ids.includes(sent.messageId) && ids.includes(where.messageId));

  const rows = [{ rowId: "b1", title: "Suco", description: "Laranja" }];
  const listed = await ponte.messages.sendList(session.id, CUSTOMER, "Escolha", "Ver", [{ title: "Bebidas", rows }], {
    footer: "Loja",
  });
  assert.ok(listed.messageId);
  const previewed = await ponte.messages.sendTextWithPreview(session.id, CUSTOMER, "https://a.example/x", {
    url: "https://a.example/x",
    title: "A",
  });
  const copy = await ponte.messages.forward(session.id, "5511977770003", CUSTOMER, previewed.messageId);
  const copies = await ponte.messages.list(session.id, { chat: "5511977770003" });
  assert.deepEqual(
    copies.data.map((m) => [m.messageId, m.forwarded, m.content.text]),
    [[copy.messageId, true, "https://a.example/x"]],
  );
  await assert.rejects(ponte.messages.forward(session.id, CUSTOMER, CUSTOMER, "3EB0NOPE"), NotFoundError);

  const group = await ponte.groups.create(session.id, "Team", [CUSTOMER]);
  assert.equal(group.subject, "Team");
  assert.deepEqual((await ponte.groups.list(session.id)).map((g) => g.id), [group.id]);
  assert.equal((await ponte.groups.leave(session.id, group.id)).success, true);

  assert.equal((await ponte.sessions.delete(session.id)).success, true);
  await assert.rejects(ponte.sessions.get(session.id), (error) => {
    assert.ok(error instanceof NotFoundError);
    assert.equal(error.statusCode, 404);
    assert.equal(error.error, "SESSION_NOT_FOUND");
    return true;
  });
});

test("status: a text status posted, listed, deleted; a contact's status listed", async () => {
  const session = await ponte.sessions.create("stories");
  await ponte.sessions.connect(session.id);
  await ponte.sessions.sandboxScan(session.id, { phone: "5511999990004" });
  const posted = await ponte.status.postText(session.id, { text: "Bom dia", backgroundColor: "#25d366", font: 2 });
  assert.equal(posted.backgroundColor, "#25D366");
  assert.deepEqual((await ponte.status.list(session.id)).data.map((s) => s.id), [posted.id]);
  const inbound = `${baseUrl}/api/sandbox/sessions/${session.id}/inbound`;
  const seen = await fetch(inbound, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": env("PONTE_ADMIN_KEY") },
    body: JSON.stringify({ event: "status", from: CUSTOMER, text: "Oi", backgroundColor: "#000000", font: 0 }),
  });
  assert.equal(seen.status, 201);
  assert.equal((await ponte.status.contacts(session.id)).data[0].sender, `${CUSTOMER}@s.whatsapp.net`);
  assert.equal((await ponte.status.delete(session.id, posted.id)).id, posted.id);
  assert.equal((await ponte.status.list(session.id)).meta.total, 0);
  await ponte.sessions.delete(session.id);
});

test("channels: created, listed, posted to by the owner, posts read back", async () => {
  const session = await ponte.sessions.create("channel");
  await ponte.sessions.connect(session.id);
  await ponte.sessions.sandboxScan(session.id, { phone: "5511999990005" });
  const channel = await ponte.channels.create(session.id, "Ofertas");
  assert.equal(channel.role, "owner");
  assert.deepEqual((await ponte.channels.list(session.id)).map((c) => c.jid), [channel.jid]);
  const sent = await ponte.messages.sendText(session.id, channel.jid, "Abrimos às 9h");
  const posts = await ponte.channels.messages(session.id, channel.jid);
  assert.deepEqual(posts.data.map((m) => m.messageId), [sent.messageId]);
  await assert.rejects(ponte.channels.follow(session.id, { invite: "NOPE" }), (error) => {
    assert.ok(error instanceof NotFoundError);
    return true;
  });
  await ponte.sessions.delete(session.id);
});

test("webhooks: created, listed, updated and deleted through the gateway", async () => {
  const session = await ponte.sessions.create("hooks");
  const hook = await ponte.webhooks.create(session.id, "http://127.0.0.1:9/hook", ["message"], {
    secret: "a-long-secret",
    retryCount: 3,
  });
  assert.equal(hook.hasSecret, true);
  assert.equal(hook.retryCount, 3);
  assert.deepEqual((await ponte.webhooks.list({ sessionId: session.id })).map((w) => w.id), [hook.id]);
  const updated = await ponte.webhooks.update(hook.id, { events: ["message", "connected"], retryCount: 5 });
  assert.deepEqual(updated.events, ["message", "connected"]);
  assert.equal((await ponte.webhooks.get(hook.id)).retryCount, 5);
  assert.equal((await ponte.webhooks.delete(hook.id)).deleted, true);
  assert.deepEqual(await ponte.webhooks.list({ sessionId: session.id }), []);
  await assert.rejects(ponte.webhooks.get(hook.id), (error) => {
    assert.ok(error instanceof NotFoundError);
    assert.equal(error.error, "Webhook not found"); // the gateway's {error} shape
    return true;
  });
  await ponte.sessions.delete(session.id);
});

test("delivery log: a webhook's deliveries page by page, one delivery, resend refusals, dead letters", async () => {
  const session = await ponte.sessions.create("log");
  await ponte.sessions.connect(session.id);
  await ponte.sessions.sandboxScan(session.id, { phone: "5511999990003" });
  // No worker runs beside this server: the deliveries stay pending, which is what the log shows.
  const hook = await ponte.webhooks.create(session.id, "http://127.0.0.1:9/hook", ["message"]);
  const inbound = `${baseUrl}/api/sandbox/sessions/${session.id}/inbound`;
  for (const text of ["a", "b", "c"]) {
    const headers = { "X-API-Key": env("PONTE_ADMIN_KEY"), "Content-Type": "application/json" };
    const body = JSON.stringify({ event: "message", from: CUSTOMER, text });
    assert.equal((await fetch(inbound, { method: "POST", headers, body })).status, 201);
  }
  const first = await ponte.deliveries.list(hook.id, { limit: 2 });
  assert.deepEqual(first.meta, { total: 3, page: 1, limit: 2, totalPages: 2 });
  assert.ok(first.data.every((row) => row.status === "pending" && row.event === "message"));
  const walked = [];
  for await (const row of ponte.deliveries.iterate(hook.id, { limit: 1, status: "pending" })) walked.push(row.id);
  assert.deepEqual(walked, (await ponte.deliveries.list(hook.id)).data.map((row) => row.id));
  const [newest] = first.data;
  const detail = await ponte.deliveries.get(newest.eventId);
  assert.equal(detail.id, newest.id);
  assert.equal(detail.payload.event, "message");
  assert.deepEqual(detail.attempts, []);
  await assert.rejects(ponte.deliveries.resend(newest.id), (error) => {
    assert.ok(error instanceof ConflictError);
    assert.deepEqual([error.statusCode, error.error], [409, "Delivery in progress"]);
    return true;
  });
  assert.equal((await ponte.deadLetters.list({ webhookId: hook.id })).meta.total, 0);
  assert.deepEqual(await ponte.deadLetters.resend({ ids: [newest.id] }), { queued: 0, skipped: 1 });
  await assert.rejects(ponte.deliveries.get(999999999), (error) => {
    assert.ok(error instanceof NotFoundError);
    assert.equal(error.error, "Delivery not found");
    return true;
  });
  await ponte.sessions.delete(session.id);
});

test("event types: every event's schema and example, the names typed as a union", async () => {
  const types = await ponte.webhooks.eventTypes();
  const names = types.map((type) => type.name);
  assert.ok(names.includes("message") && names.includes("message_ack") && names.includes("webhook.test"));
  const message = types.find((type) => type.name === "message");
  assert.deepEqual(message.aliases, ["messages", "message.received"]);
  assert.equal(message.schema.properties.event.const, "message");
  assert.equal(message.example.event, "message");
});

test("errors are typed with the API's code, and the rate-limit headers are exposed", async () => {
  await assert.rejects(new Ponte({ baseUrl, apiKey: "ponte_xxxxxxxx_wrong" }).sessions.list(), (error) => {
    assert.ok(error instanceof AuthenticationError);
    assert.deepEqual([error.statusCode, error.error], [401, "Unauthorized"]);
    return true;
  });
  const viewer = new Ponte({ baseUrl, apiKey: env("PONTE_VIEWER_KEY") });
  await assert.rejects(viewer.sessions.create("nope"), (error) => {
    assert.ok(error instanceof PermissionDeniedError);
    assert.equal(error.statusCode, 403);
    assert.match(error.message, /role/);
    return true;
  });
  assert.ok(viewer.rateLimit !== null && viewer.rateLimit.limit > 0);
  assert.ok(viewer.rateLimit.remaining < viewer.rateLimit.limit);
  assert.ok(viewer.rateLimit.reset > Date.now() / 1000 - 1);
});

test("a 429 is retried after Retry-After, then thrown as RateLimitError", async () => {
  // A stand-in server answering 429 with Retry-After: 0 every time.
  let arrivals = 0;
  const server = createServer((request, response) => {
    arrivals += 1;
    response.writeHead(429, { "Content-Type": "application/json", "Retry-After": "0" });
    const body = { statusCode: 429, error: "TOO_MANY_REQUESTS", message: "Slow down.", retryAfter: 0 };
    response.end(JSON.stringify(body));
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const baseUrl = `http://127.0.0.1:${server.address().port}`;
    const client = new Ponte({ baseUrl, apiKey: "k", retry: { maxRetries: 2 } });
    await assert.rejects(client.messages.sendText("s", CUSTOMER, "hi"), (error) => {
      assert.ok(error instanceof RateLimitError);
      assert.deepEqual(
        [error.statusCode, error.error, error.message, error.retryAfter],
        [429, "TOO_MANY_REQUESTS", "Slow down.", 0],
      );
      return true;
    });
    assert.equal(arrivals, 3);
  } finally {
    server.close();
  }
});
