/**
 * Bots on a session (docs/integrations.md): create, read, change, delete, and their conversations
 * (pause, resume). A bot's secret is write-only: replies say only `secretSet`.
 */

import type { Transport } from "./http.js";
import type { components } from "./schema.js";

type Schemas = components["schemas"];

export type Bot = Schemas["BotOutput"];
export type BotInput = Schemas["BotInputRequest"];
export type BotKind = Schemas["BotKindEnum"];
export type BotRules = Schemas["BotRulesRequest"];
export type BotConversation = Schemas["BotConversationOutput"];

const enc = encodeURIComponent;

export class Bots {
  constructor(private readonly http: Transport) {}

  /** The bots of one session, or of every session the key may use. */
  list(sessionId?: string): Promise<Bot[]> {
    return this.http.json({ method: "GET", path: "/api/bots", query: sessionId ? { sessionId } : {} });
  }

  /** `settings` by kind: http `{url}`; openai `{baseUrl, model, systemPrompt, …}`; typebot `{baseUrl, typebot}`. */
  create(bot: BotInput): Promise<Bot> {
    return this.http.json({ method: "POST", path: "/api/bots", body: bot });
  }

  get(botId: number): Promise<Bot> {
    return this.http.json({ method: "GET", path: `/api/bots/${enc(String(botId))}` });
  }

  /** Replace the bot's name, settings, rules, `enabled` and `priority` (the secret is kept unless given). */
  update(botId: number, bot: BotInput): Promise<Bot> {
    return this.http.json({ method: "PUT", path: `/api/bots/${enc(String(botId))}`, body: bot });
  }

  async delete(botId: number): Promise<boolean> {
    const path = `/api/bots/${enc(String(botId))}`;
    const reply: { success: boolean } = await this.http.json({ method: "DELETE", path });
    return reply.success;
  }

  /** The chats where the bot is talking now (paused ones too). */
  conversations(botId: number): Promise<BotConversation[]> {
    return this.http.json({ method: "GET", path: `/api/bots/${enc(String(botId))}/conversations` });
  }

  /** The bot stays quiet in `chatId` (a number or a JID) for `minutes`. */
  async pause(botId: number, chatId: string, minutes: number): Promise<boolean> {
    const path = `/api/bots/${enc(String(botId))}/conversations/pause`;
    const reply: { success: boolean } = await this.http.json({ method: "POST", path, body: { chatId, minutes } });
    return reply.success;
  }

  async resume(botId: number, chatId: string): Promise<boolean> {
    const path = `/api/bots/${enc(String(botId))}/conversations/resume`;
    const reply: { success: boolean } = await this.http.json({ method: "POST", path, body: { chatId } });
    return reply.success;
  }
}
