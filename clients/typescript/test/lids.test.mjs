// Linked ids with the built client (dist/) against a live Ponte (tests/clients/test_typescript_client.py).
import assert from "node:assert/strict";
import { test } from "node:test";

import { NotFoundError, Ponte } from "../dist/index.js";

const baseUrl = process.env.PONTE_URL;
const adminKey = process.env.PONTE_ADMIN_KEY;
const ponte = new Ponte({ baseUrl, apiKey: adminKey });
const LID = "190000111222333@lid";
const PN = "5511911110001@s.whatsapp.net";

test("linked ids: the pair by either id, LID_NOT_FOUND typed, a person's one chat by either id", async () => {
  assert.ok(baseUrl && adminKey, "run through tests/clients/test_typescript_client.py");
  const session = await ponte.sessions.create("lids");
  await ponte.sessions.connect(session.id);
  await ponte.sessions.sandboxScan(session.id, { phone: "5511999990004" });
  const headers = { "X-API-Key": adminKey, "Content-Type": "application/json" };
  const body = JSON.stringify({ event: "message", from: LID, senderPn: PN, text: "oi" });
  const inbound = `${baseUrl}/api/sandbox/sessions/${session.id}/inbound`;
  assert.equal((await fetch(inbound, { method: "POST", headers, body })).status, 201);
  assert.deepEqual(await ponte.contacts.lid(session.id, LID), { lid: LID, pn: PN });
  assert.deepEqual(await ponte.contacts.lid(session.id, "5511911110001"), { lid: LID, pn: PN });
  await assert.rejects(ponte.contacts.lid(session.id, "80000999888777@lid"), (error) => {
    assert.ok(error instanceof NotFoundError);
    assert.equal(error.error, "LID_NOT_FOUND");
    return true;
  });
  const chats = await ponte.chats.list(session.id, 1, 20, PN);
  assert.deepEqual(
    chats.data.map((chat) => [chat.id, chat.lid, chat.pn]),
    [[LID, LID, PN]],
  );
  const sent = await ponte.messages.sendText(session.id, "5511911110002", "@ana", { mentions: ["5511911110001"] });
  assert.ok(sent.messageId);
  await assert.rejects(
    ponte.messages.sendText(session.id, "5511911110002", "@todos", { mentionAll: true }),
    (error) => error.statusCode === 400,
  );
  await ponte.sessions.delete(session.id);
});
