/**
 * The bodies registered webhooks receive, typed by event name from the OpenAPI document's `webhooks`
 * section (generated into src/schema.ts from the server's event contract): narrow on `body.event`.
 *
 *   const body = JSON.parse(raw) as WebhookBody;
 *   if (body.event === "message") body.data.text;   // typed as the message event's data
 */

import type { components, webhooks } from "./schema.js";

/** Every event name a registered webhook can receive (`GET /gateway/event-types`). */
export type EventName = components["schemas"]["WebhookEventName"];

/** The body POSTed for one event, by name: `WebhookBodyOf<"message_ack">`. */
export type WebhookBodyOf<Name extends EventName> = webhooks[Name]["post"]["requestBody"]["content"]["application/json"];

/** Any body a registered webhook receives: a union discriminated by `event`. */
export type WebhookBody = { [Name in EventName]: WebhookBodyOf<Name> }[EventName];

/** The `data` of one event's body. */
export type EventData<Name extends EventName> = WebhookBodyOf<Name>["data"];

export type MessageBody = WebhookBodyOf<"message">;
export type MessageAckBody = WebhookBodyOf<"message_ack">;
export type ConnectedBody = WebhookBodyOf<"connected">;
export type DisconnectedBody = WebhookBodyOf<"disconnected">;
export type QrBody = WebhookBodyOf<"qr">;
export type GroupJoinBody = WebhookBodyOf<"group_join">;
export type GroupLeaveBody = WebhookBodyOf<"group_leave">;
export type GroupUpdateBody = WebhookBodyOf<"group_update">;
export type CallBody = WebhookBodyOf<"call">;
export type PresenceBody = WebhookBodyOf<"presence">;
export type ChatArchiveBody = WebhookBodyOf<"chat_archive">;
export type HealthBody = WebhookBodyOf<"health">;
export type PollVoteBody = WebhookBodyOf<"poll_vote">;
export type MessageEditedBody = WebhookBodyOf<"message_edited">;
export type ChatPinBody = WebhookBodyOf<"chat_pin">;
export type ChatMuteBody = WebhookBodyOf<"chat_mute">;
export type ChatUnreadBody = WebhookBodyOf<"chat_unread">;
export type ContactBlockBody = WebhookBodyOf<"contact_block">;
export type LabelEditBody = WebhookBodyOf<"label_edit">;
export type LabelAssociationBody = WebhookBodyOf<"label_association">;
export type StatusBody = WebhookBodyOf<"status">;
export type WebhookDisabledBody = WebhookBodyOf<"webhook.disabled">;
export type WebhookDeadLetterBody = WebhookBodyOf<"webhook.dead_letter">;
export type WebhookTestBody = WebhookBodyOf<"webhook.test">;
