/**
 * List messages, forwards and link previews: the methods `ponte.messages` gains from them
 * (`sendList`, `forward`, `sendTextWithPreview`), typed by the generated OpenAPI types.
 */

import type { Transport } from "./http.js";
import type { components, operations } from "./schema.js";

type Body<Id extends keyof operations> = operations[Id] extends {
  requestBody?: { content: { "application/json": infer B } };
}
  ? B
  : never;

export type ListSection = components["schemas"]["ListSectionRequest"];
export type ListRow = components["schemas"]["ListRowRequest"];
/** What `linkPreview` takes: `true` (Ponte reads the first link's Open Graph tags) or the preview. */
export type LinkPreview = NonNullable<Body<"messages_send">["linkPreview"]>;
type Sent = components["schemas"]["MessageSent"];

export class ListMessages {
  constructor(protected readonly http: Transport) {}

  /** 1 to 10 sections, at most 10 rows in all, row ids unique; the customer's choice arrives as a
   * `message` of type `list_response` (`data.listResponse.rowId`). */
  sendList(
    sessionId: string,
    to: string,
    text: string,
    buttonText: string,
    sections: readonly ListSection[],
    extra: Pick<Body<"messages_list_send">, "title" | "footer"> = {},
  ): Promise<Sent> {
    const body = { sessionId, to, text, buttonText, sections, ...extra };
    return this.http.json({ method: "POST", path: "/api/messages/list", body });
  }

  /** Forward message `messageId` of `chat` (text, media, location, contacts, poll) to `to`. */
  forward(sessionId: string, to: string, chat: string, messageId: string): Promise<Sent> {
    return this.http.json({ method: "POST", path: "/api/messages/forward", body: { sessionId, to, chat, messageId } });
  }

  /** A text with a link preview: the preview itself, or `true` (the text goes without one if Ponte
   * cannot read the page). */
  sendTextWithPreview(sessionId: string, to: string, text: string, linkPreview: LinkPreview = true): Promise<Sent> {
    return this.http.json({ method: "POST", path: "/api/messages/send", body: { sessionId, to, text, linkPreview } });
  }
}
