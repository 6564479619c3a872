/**
 * Channels (WhatsApp's newsletters): `ponte.channels` lists the channels a session owns or follows,
 * creates, follows and unfollows them, and reads a channel's posts. Posting to an owned channel is
 * `ponte.messages.sendText(sessionId, channel.jid, text)` like to any chat.
 */

import type { Reply } from "./directory.js";
import type { Transport } from "./http.js";

export class Channels {
  constructor(private readonly http: Transport) {}

  /** The channels the session owns or follows, owned first. */
  async list(sessionId: string): Promise<Reply<"channels_list">["data"]> {
    const request = { method: "GET", path: "/api/channels", query: { sessionId } } as const;
    return (await this.http.json<Reply<"channels_list">>(request)).data;
  }

  create(sessionId: string, name: string, description = ""): Promise<Reply<"channels_create">> {
    return this.http.json({ method: "POST", path: "/api/channels", body: { sessionId, name, description } });
  }

  /** Follow by `{ jid }` or by `{ invite }` (a code or a https://whatsapp.com/channel/ link). */
  follow(sessionId: string, by: { jid: string } | { invite: string }): Promise<Reply<"channels_follow">> {
    return this.http.json({ method: "POST", path: "/api/channels/follow", body: { sessionId, ...by } });
  }

  unfollow(sessionId: string, jid: string): Promise<Reply<"channels_unfollow">> {
    return this.http.json({ method: "POST", path: "/api/channels/unfollow", body: { sessionId, jid } });
  }

  /** A channel's posts in the history, newest first. */
  messages(sessionId: string, jid: string, page = 1, limit = 20): Promise<Reply<"channels_messages">> {
    const query = { sessionId, jid, page, limit };
    return this.http.json({ method: "GET", path: "/api/channels/messages", query });
  }
}
