/**
 * Chat and contact actions and labels (issue 41): archive, pin, mute, mark unread, block, the chat
 * list filtered by state or label, and WhatsApp Business labels; typed by the generated OpenAPI types.
 */

import { type BodyOf, type Reply } from "./directory.js";
import type { Transport } from "./http.js";

const enc = encodeURIComponent;

/** The chat list's filters (`undefined`: either). */
export interface ChatFilters {
  archived?: boolean;
  pinned?: boolean;
  /** Muted now (`mutedUntil` in the future). */
  muted?: boolean;
  markedUnread?: boolean;
  labelId?: string;
  page?: number;
  limit?: number;
}

export class ChatActions {
  constructor(private readonly http: Transport) {}

  archive(sessionId: string, chatId: string, archived = true): Promise<Reply<"chats_archive">> {
    return this.http.json({ method: "POST", path: "/api/chats/archive", body: { sessionId, chatId, archived } });
  }

  pin(sessionId: string, chatId: string, pinned = true): Promise<Reply<"chats_pin">> {
    return this.http.json({ method: "POST", path: "/api/chats/pin", body: { sessionId, chatId, pinned } });
  }

  /** Mute until `until` (in the future); `null` unmutes. */
  mute(sessionId: string, chatId: string, until: Date | string | null): Promise<Reply<"chats_mute">> {
    const body: BodyOf<"chats_mute"> = {
      sessionId,
      chatId,
      until: until instanceof Date ? until.toISOString() : until,
    };
    return this.http.json({ method: "POST", path: "/api/chats/mute", body });
  }

  markUnread(sessionId: string, chatId: string, unread = true): Promise<Reply<"chats_unread">> {
    return this.http.json({ method: "POST", path: "/api/chats/unread", body: { sessionId, chatId, unread } });
  }

  /** The chat list filtered by state or label. */
  list(sessionId: string, filters: ChatFilters = {}): Promise<Reply<"chats_list">> {
    const { page = 1, limit = 20, ...rest } = filters;
    const query: Record<string, string | number> = { sessionId, page, limit };
    for (const [name, value] of Object.entries(rest)) {
      if (value !== undefined) query[name] = typeof value === "boolean" ? String(value) : value;
    }
    return this.http.json({ method: "GET", path: "/api/chats", query });
  }

  block(sessionId: string, jid: string, blocked = true): Promise<Reply<"contacts_block">> {
    return this.http.json({ method: "POST", path: "/api/contacts/block", body: { sessionId, jid, blocked } });
  }

  blocked(sessionId: string, page = 1, limit = 20): Promise<Reply<"contacts_blocked">> {
    return this.http.json({ method: "GET", path: "/api/contacts/blocked", query: { sessionId, page, limit } });
  }
}

export class Labels {
  constructor(private readonly http: Transport) {}

  list(sessionId: string, page = 1, limit = 20): Promise<Reply<"labels_list">> {
    return this.http.json({ method: "GET", path: "/api/labels", query: { sessionId, page, limit } });
  }

  /** `color`: an index of WhatsApp's label palette, 0 to 19. */
  create(sessionId: string, name: string, color: number): Promise<Reply<"labels_create">> {
    return this.http.json({ method: "POST", path: "/api/labels", body: { sessionId, name, color } });
  }

  update(sessionId: string, labelId: string, changes: BodyOf<"labels_update">): Promise<Reply<"labels_update">> {
    const path = `/api/labels/${enc(labelId)}`;
    return this.http.json({ method: "PUT", path, query: { sessionId }, body: changes });
  }

  delete(sessionId: string, labelId: string): Promise<Reply<"labels_delete">> {
    const path = `/api/labels/${enc(labelId)}`;
    return this.http.json({ method: "DELETE", path, query: { sessionId } });
  }

  /** Put the label on the chat; the chat's label ids after. */
  async addToChat(sessionId: string, chatId: string, labelId: string): Promise<string[]> {
    const body = { sessionId, chatId, labelId, action: "add" as const };
    return (await this.http.json<Reply<"chats_labels">>({ method: "POST", path: "/api/chats/labels", body })).labelIds;
  }

  async removeFromChat(sessionId: string, chatId: string, labelId: string): Promise<string[]> {
    const body = { sessionId, chatId, labelId, action: "remove" as const };
    return (await this.http.json<Reply<"chats_labels">>({ method: "POST", path: "/api/chats/labels", body })).labelIds;
  }
}
