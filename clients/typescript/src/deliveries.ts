/**
 * The gateway's delivery log: a webhook's deliveries, one delivery with its attempts, resends, dead
 * letters, and the event catalogue. Lists are paged (`page`, `limit` up to 100; `meta.totalPages`);
 * `iterate…` walks every page for you.
 */

import type { Transport } from "./http.js";
import type { components, operations } from "./schema.js";

type Schemas = components["schemas"];
type Query<Id extends keyof operations> = NonNullable<operations[Id]["parameters"]["query"]>;

export type DeliveryRow = Schemas["DeliveryRow"];
export type DeliveryDetail = Schemas["DeliveryDetail"];
export type DeliveryAttempt = Schemas["DeliveryAttempt"];
export type DeliveryList = Schemas["DeliveryList"];
export type DeliveryStatus = Schemas["DeliveryStatusEnum"];
export type DeliveryQuery = Query<"gateway_webhooks_deliveries_list">;
export type DeadLetterQuery = Query<"gateway_dead_letters_list">;
export type DeadLetterResend = Schemas["DeadLetterResendRequest"];
export type DeadLettersQueued = Schemas["DeadLettersQueued"];
export type EventType = Schemas["EventType"];

const enc = encodeURIComponent;

/** Every row of a paged list, page after page, until the last one. */
async function* everyRow(
  fetchPage: (page: number) => Promise<DeliveryList>,
  firstPage = 1,
): AsyncGenerator<DeliveryRow> {
  for (let page = firstPage; ; page++) {
    const reply = await fetchPage(page);
    yield* reply.data;
    if (page >= reply.meta.totalPages) return;
  }
}

export class Deliveries {
  constructor(private readonly http: Transport) {}

  /** A webhook's deliveries, newest first: `{ status, event, since, until, page, limit }`. */
  list(webhookId: string, query: DeliveryQuery = {}): Promise<DeliveryList> {
    const path = `/gateway/webhooks/${enc(webhookId)}/deliveries`;
    return this.http.json({ method: "GET", path, query });
  }

  /** Every delivery of a webhook matching `query`, fetching page after page. */
  iterate(webhookId: string, query: Omit<DeliveryQuery, "page"> = {}): AsyncGenerator<DeliveryRow> {
    return everyRow((page) => this.list(webhookId, { ...query, page }));
  }

  /** One delivery with its body and attempts, by id or by its webhook-id (`msg_…`). */
  get(deliveryId: number | string): Promise<DeliveryDetail> {
    return this.http.json({ method: "GET", path: `/gateway/deliveries/${enc(String(deliveryId))}` });
  }

  /** One more attempt of a delivered or dead delivery (202): the webhook's current URL, same webhook-id. */
  resend(deliveryId: number | string): Promise<DeliveryRow> {
    const path = `/gateway/deliveries/${enc(String(deliveryId))}/resend`;
    return this.http.json({ method: "POST", path });
  }
}

export class DeadLetters {
  constructor(private readonly http: Transport) {}

  /** Dead letters, the most recently dead first: `{ sessionId, webhookId, page, limit }`. */
  list(query: DeadLetterQuery = {}): Promise<DeliveryList> {
    return this.http.json({ method: "GET", path: "/gateway/dead-letters", query });
  }

  iterate(query: Omit<DeadLetterQuery, "page"> = {}): AsyncGenerator<DeliveryRow> {
    return everyRow((page) => this.list({ ...query, page }));
  }

  /** `{ ids: [...] }` or `{ webhookId, since }`: how many were queued, and skipped. */
  resend(selection: DeadLetterResend): Promise<DeadLettersQueued> {
    return this.http.json({ method: "POST", path: "/gateway/dead-letters/resend", body: selection });
  }
}

/** The event catalogue: each event's aliases, the JSON Schema of its body, an example. */
export function eventTypes(http: Transport): Promise<EventType[]> {
  return http.json({ method: "GET", path: "/gateway/event-types" });
}
