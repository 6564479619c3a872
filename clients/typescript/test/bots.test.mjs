// ponte.bots against a live Ponte (run by tests/clients/test_typescript_client.py): a bot created,
// listed, changed with its secret kept, a chat paused and resumed, a viewer refused, the bot deleted.
import assert from "node:assert/strict";
import { test } from "node:test";

import { NotFoundError, PermissionDeniedError, Ponte } from "../dist/index.js";

const env = (name) => {
  const value = process.env[name];
  assert.ok(value, `${name} must be set (run through tests/clients/test_typescript_client.py)`);
  return value;
};
const baseUrl = env("PONTE_URL");
const ponte = new Ponte({ baseUrl, apiKey: env("PONTE_ADMIN_KEY") });

test("bots: created, listed, changed, a chat paused and resumed, then deleted", async () => {
  const session = await ponte.sessions.create("bots");
  // A closed local port: nothing calls the model in this test.
  const settings = { baseUrl: "http://127.0.0.1:9/v1", model: "llama3.1", systemPrompt: "Seja breve." };
  const bot = await ponte.bots.create({
    sessionId: session.id,
    name: "assistente",
    kind: "openai",
    settings,
    secret: "sk-local-123",
    rules: { trigger: "keyword", operator: "contains", value: "oi" },
  });
  assert.equal(bot.kind, "openai");
  assert.equal(bot.secretSet, true);
  assert.equal(bot.rules.stopKeyword, "#sair");
  assert.ok(!JSON.stringify(bot).includes("sk-local-123"));
  assert.deepEqual((await ponte.bots.list(session.id)).map((each) => each.id), [bot.id]);
  const changed = await ponte.bots.update(bot.id, {
    sessionId: session.id,
    name: "assistente 2",
    kind: "openai",
    settings,
    enabled: false,
  });
  assert.equal(changed.name, "assistente 2");
  assert.equal(changed.enabled, false);
  assert.equal(changed.secretSet, true);
  assert.equal(await ponte.bots.pause(bot.id, "5511988880002", 30), true);
  const [conversation] = await ponte.bots.conversations(bot.id);
  assert.equal(conversation.chatId, "5511988880002@s.whatsapp.net");
  assert.equal(conversation.status, "paused");
  assert.equal(await ponte.bots.resume(bot.id, "5511988880002"), true);
  assert.equal((await ponte.bots.conversations(bot.id))[0].status, "active");
  const viewer = new Ponte({ baseUrl, apiKey: env("PONTE_VIEWER_KEY") });
  await assert.rejects(viewer.bots.delete(bot.id), PermissionDeniedError);
  assert.equal(await ponte.bots.delete(bot.id), true);
  await assert.rejects(ponte.bots.get(bot.id), NotFoundError);
  await ponte.sessions.delete(session.id);
});
