/**
 * The resources the Python client has beyond the core ones: contacts, chats and a session's instance
 * interface (addressed by its instance key, no API key), typed by the generated OpenAPI types.
 */

import type { Transport } from "./http.js";
import type { operations } from "./schema.js";

/** The JSON reply of an operation (its 200, 201 or 202), by its OpenAPI operation id. */
export type Reply<Id extends keyof operations> = {
  [S in keyof operations[Id]["responses"]]: S extends 200 | 201 | 202
    ? operations[Id]["responses"][S] extends { content: { "application/json": infer R } }
      ? R
      : never
    : never;
}[keyof operations[Id]["responses"]];
/** The JSON request body of an operation. */
export type BodyOf<Id extends keyof operations> = operations[Id] extends {
  requestBody?: { content: { "application/json": infer B } };
}
  ? B
  : never;

const enc = encodeURIComponent;

export class Contacts {
  constructor(private readonly http: Transport) {}

  /** Which numbers have an account on the messaging app. */
  async check(sessionId: string, numbers: readonly string[]): Promise<Reply<"contacts_check">["results"]> {
    const query = { sessionId, numbers: numbers.join(",") };
    return (await this.http.json<Reply<"contacts_check">>({ method: "GET", path: "/api/contacts/check", query }))
      .results;
  }

  setName(sessionId: string, name: string): Promise<Reply<"contacts_profile_name">> {
    return this.http.json({ method: "PUT", path: "/api/contacts/profile/name", body: { sessionId, name } });
  }

  setStatus(sessionId: string, status: string): Promise<Reply<"contacts_profile_status">> {
    return this.http.json({ method: "PUT", path: "/api/contacts/profile/status", body: { sessionId, status } });
  }

  /** Who the session has seen (push names, contact cards, group participants). */
  list(sessionId: string, page = 1, limit = 20): Promise<Reply<"contacts_list">> {
    return this.http.json({ method: "GET", path: "/api/contacts", query: { sessionId, page, limit } });
  }

  /** The URL of a contact's (or group's) picture; null when hidden or absent. */
  async picture(sessionId: string, jid: string): Promise<string | null> {
    const request = { method: "GET", path: "/api/contacts/picture", query: { sessionId, jid } } as const;
    return (await this.http.json<Reply<"contacts_picture">>(request)).url ?? null;
  }

  /**
   * The linked id (`…@lid`) and phone JID of one contact; `id` is either, or a number. Throws
   * NotFoundError (`LID_NOT_FOUND`) when neither Ponte nor the session's engine knows it.
   */
  lid(sessionId: string, id: string): Promise<Reply<"contacts_lid">> {
    return this.http.json({ method: "GET", path: "/api/contacts/lid", query: { sessionId, id } });
  }
}

export class Chats {
  constructor(private readonly http: Transport) {}

  /**
   * The session's chats, newest message first, with their unread counts; `chat` keeps only that one
   * (either id of a person finds its one chat).
   */
  list(sessionId: string, page = 1, limit = 20, chat?: string): Promise<Reply<"chats_list">> {
    return this.http.json({ method: "GET", path: "/api/chats", query: { sessionId, page, limit, chat } });
  }
}

/** Instance webhooks, addressed by a session's instance key (no API key needed). */
export class Instance {
  constructor(private readonly http: Transport) {}

  config(instanceKey: string): Promise<Reply<"instance_webhook_config_get">> {
    return this.http.json({ method: "GET", path: `/instances/${enc(instanceKey)}/instance`, auth: "none" });
  }

  /** Fields as the API names them: allowWebhook, webhookMessage, webhookFormat... */
  updateConfig(
    instanceKey: string,
    fields: BodyOf<"instance_webhook_config_put">,
  ): Promise<Reply<"instance_webhook_config_put">> {
    const path = `/instances/${enc(instanceKey)}/instance`;
    return this.http.json({ method: "PUT", path, body: fields, auth: "none" });
  }

  async statistics(instanceKey: string): Promise<Reply<"instance_webhook_statistics">["data"]> {
    const path = `/instances/${enc(instanceKey)}/instance/webhook/statistics`;
    return (await this.http.json<Reply<"instance_webhook_statistics">>({ method: "GET", path, auth: "none" }))
      .data;
  }
}
