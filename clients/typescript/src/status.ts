/**
 * Status (stories): `ponte.status` posts text and media statuses, deletes them, and lists the session's
 * own and its contacts' statuses of the last 24 hours, typed by the generated OpenAPI types.
 */

import type { BodyOf, Reply } from "./directory.js";
import type { Transport } from "./http.js";

type Omitted<Id extends "status_text" | "status_media" | "status_delete"> = Omit<BodyOf<Id>, "sessionId">;

export class Status {
  constructor(private readonly http: Transport) {}

  /** A text status: `{ text, backgroundColor: "#RRGGBB", font: 0..5 }`; counts against the daily quota. */
  postText(sessionId: string, status: Omitted<"status_text">): Promise<Reply<"status_text">> {
    return this.http.json({ method: "POST", path: "/api/status/text", body: { sessionId, ...status } });
  }

  /** An image or video status from exactly one of `url` or `base64`, with an optional `caption`. */
  postMedia(sessionId: string, status: Omitted<"status_media">): Promise<Reply<"status_media">> {
    return this.http.json({ method: "POST", path: "/api/status/media", body: { sessionId, ...status } });
  }

  /** Delete one of the session's own statuses of the last 24 hours. */
  delete(sessionId: string, id: string): Promise<Reply<"status_delete">> {
    return this.http.json({ method: "POST", path: "/api/status/delete", body: { sessionId, id } });
  }

  /** The session's own statuses of the last 24 hours, newest first. */
  list(sessionId: string, page = 1, limit = 20): Promise<Reply<"status_list">> {
    return this.http.json({ method: "GET", path: "/api/status", query: { sessionId, page, limit } });
  }

  /** Contacts' statuses the session saw in the last 24 hours, newest first. */
  contacts(sessionId: string, page = 1, limit = 20): Promise<Reply<"status_contacts">> {
    return this.http.json({ method: "GET", path: "/api/status/contacts", query: { sessionId, page, limit } });
  }
}
