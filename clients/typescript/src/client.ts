/**
 * The client: `new Ponte({ baseUrl, apiKey })`, one resource per interface. Every reply and request
 * body is typed by the generated OpenAPI types (src/schema.ts); this layer adds the paths, the key's
 * header, the bonds statuses and the typed errors.
 */

import { Bots } from "./bots.js";
import { DeadLetters, Deliveries, type EventType, eventTypes } from "./deliveries.js";
import { ChatActions, Labels } from "./chatActions.js";
import { Chats, Contacts, Instance, type Reply } from "./directory.js";
import { BondsAccessError } from "./errors.js";
import { ListMessages } from "./lists.js";
import type { RateLimit } from "./errors.js";
import { type ClientOptions, type QueryValue, sleep, Transport } from "./http.js";
import type { components, operations } from "./schema.js";
import { Channels } from "./newsletters.js";
import { Status } from "./status.js";

type Schemas = components["schemas"];
/** The JSON request body of an operation, by its OpenAPI operation id. */
type Body<Id extends keyof operations> = operations[Id] extends {
  requestBody?: { content: { "application/json": infer B } };
}
  ? B
  : never;
/** The query parameters of an operation. */
type Query<Id extends keyof operations> = NonNullable<operations[Id]["parameters"]["query"]>;
/** The fields of an operation's body that a method takes as an options object. */
type Options<Id extends keyof operations, Positional extends string> = Omit<Body<Id>, Positional>;

export type Bond = Schemas["Bond"];
export type BondList = Schemas["BondList"];
export type BondStatus = Schemas["BondListStatusEnum"];
/** A session's status (messaging's Session.Status; a test keeps the list in step). */
export type SessionStatus = "disconnected" | "qr" | "connected";
export type Session = Omit<Schemas["SessionOutput"], "status"> & { status: SessionStatus };
/** A bond's product code: the bond list's `product` filter takes these only. */
export type BondProduct = Schemas["ProductEnum"];
export type SessionList = Schemas["SessionList"];
export type Connection = Schemas["Connect"];
export type QrCode = Schemas["QrCode"];
export type PairingCode = Schemas["PairingCode"];
export type SentMessage = Schemas["MessageSent"];
export type MessageList = Schemas["MessageList"];
export type MessageDeleted = Schemas["MessageDeleteOutput"];
export type Reaction = Schemas["MessageReactionOutput"];
export type Group = Schemas["Group"];
export type Webhook = Schemas["WebhookOutput"];
/** The events a webhook subscribes to, and their aliases (webhooks/catalogue.py; a test keeps them in step). */
export type WebhookEvent =
  | "message"
  | "message_ack"
  | "connected"
  | "disconnected"
  | "qr"
  | "group_join"
  | "group_leave"
  | "call"
  | "presence"
  | "chat_archive"
  | "group_update"
  | "health"
  | "poll_vote"
  | "message_edited"
  | "chat_pin"
  | "chat_mute"
  | "chat_unread"
  | "contact_block"
  | "label_edit"
  | "label_association"
  | "status"
  | "messages"
  | "message.received"
  | "message.ack"
  | "connection"
  | "session.connected"
  | "session.disconnected"
  | "session.qr"
  | "poll.vote"
  | "message.edited"
  | "chat.archive"
  | "chat.pin"
  | "chat.mute"
  | "chat.unread"
  | "contact.block"
  | "label.upsert"
  | "label.chat";
export type WebhookStatus = Schemas["WebhookStatusEnum"];
export type * from "./deliveries.js";
export type * from "./bots.js";
export type Success = Schemas["Success"];

type BondQuery = Query<"listBonds">;
/** The bond list's query parameters that are not filters (the methods and the key set them). */
type NotFilters = "format" | "locale" | "bom" | "key";
type ListFilters = "product" | "index" | "bank" | "tax_free" | "fgc";

/**
 * Filters of the bond list: lists are sent comma-separated, booleans as 1/0; the rest (`amount`,
 * `maturity_from`, `rating_min`, `sort`...) as the OpenAPI document types them.
 */
export interface BondFilters extends Omit<BondQuery, NotFilters | ListFilters> {
  /** A value outside the list is a type error (the API would ignore it and list every bond). */
  product?: readonly BondProduct[];
  /** `cdi*`, `cdi+`, `ipca*`, `ipca+`, `selic*`, `selic+`, `pre`. */
  index?: readonly string[];
  bank?: readonly (string | number)[];
  tax_free?: boolean;
  fgc?: boolean;
}

const BOND_OK: readonly string[] = ["ok", "preview"];
// Keyed bond calls must be this far apart (docs/bonds.md, "Statuses").
const BOND_INTERVAL_SECONDS = 5;
const enc = encodeURIComponent;

class Bonds {
  constructor(private readonly http: Transport) {}

  /** Active bonds; without a key, a preview of at most 5 (`response.status === "preview"`). */
  async list(filters: BondFilters = {}): Promise<BondList> {
    return this.waitingOutTheInterval(async () => {
      const reply = await this.http.json<BondList>(this.request(filters, {}));
      const { status, description } = reply.response;
      if (!BOND_OK.includes(status)) throw new BondsAccessError(200, status, description, reply);
      return reply;
    });
  }

  /** The same list as CSV text (`locale: "pt-BR"`: `;`, decimal comma, VERDADEIRO/FALSO). */
  async csv(filters: BondFilters & { locale?: "pt-BR"; bom?: boolean } = {}): Promise<string> {
    const { locale, bom, ...rest } = filters;
    return this.waitingOutTheInterval(async () => {
      const response = await this.http.send(this.request(rest, { format: "csv", locale, bom }));
      const status = response.headers.get("x-ponte-status") ?? "ok";
      const text = await response.text();
      if (!BOND_OK.includes(status)) {
        throw new BondsAccessError(200, status, `The bond list answered ${status}.`, text);
      }
      return text;
    });
  }

  private request(filters: BondFilters, extra: Record<string, QueryValue>) {
    const query: Record<string, QueryValue> = { ...filters, ...extra };
    return { method: "GET", path: "/bonds/api/", query, auth: "bearer" } as const;
  }

  private async waitingOutTheInterval<T>(call: () => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await call();
      } catch (error) {
        const wait = this.http.waitOnRateLimit && attempt < this.http.retry.maxRetries;
        if (!(error instanceof BondsAccessError && error.error === "rate_limited" && wait)) throw error;
        await sleep(BOND_INTERVAL_SECONDS);
      }
    }
  }
}

class Sessions {
  constructor(private readonly http: Transport) {}

  /** A new session; `instanceKey` is in this reply only. */
  create(name: string): Promise<Session> {
    return this.http.json({ method: "POST", path: "/api/sessions", body: { name } });
  }

  list(query: Query<"sessions_list"> = {}): Promise<SessionList> {
    return this.http.json({ method: "GET", path: "/api/sessions", query });
  }

  get(sessionId: string): Promise<Session> {
    return this.http.json({ method: "GET", path: `/api/sessions/${enc(sessionId)}` });
  }

  settings(sessionId: string): Promise<Reply<"sessions_settings">> {
    return this.http.json({ method: "GET", path: `/api/sessions/${enc(sessionId)}/settings` });
  }

  updateSettings(sessionId: string, changes: Body<"sessions_settings_update">): Promise<Reply<"sessions_settings">> {
    return this.http.json({ method: "PUT", path: `/api/sessions/${enc(sessionId)}/settings`, body: changes });
  }

  /** Start connecting: status `qr` with a fresh `qrCode`. */
  connect(sessionId: string): Promise<Connection> {
    return this.http.json({ method: "POST", path: `/api/sessions/${enc(sessionId)}/connect` });
  }

  /** The current QR code; `qrCodeImage` is a PNG data URI. Expired codes are replaced. */
  qrcode(sessionId: string): Promise<QrCode> {
    const path = `/api/sessions/${enc(sessionId)}/qrcode`;
    return this.http.json({ method: "GET", path, query: { format: "base64" } });
  }

  /** Pair by phone number instead of scanning: the code to type on the phone. */
  pairingCode(sessionId: string, phoneNumber: string): Promise<PairingCode> {
    const path = `/api/sessions/${enc(sessionId)}/pairing-code`;
    return this.http.json({ method: "POST", path, body: { phoneNumber } });
  }

  /** Sandbox engine only: play the phone scanning the current QR code (or typing the pairing code). */
  sandboxScan(sessionId: string, options: Body<"sandbox_sessions_scan"> = {}): Promise<Session> {
    const path = `/api/sandbox/sessions/${enc(sessionId)}/scan`;
    return this.http.json({ method: "POST", path, body: options });
  }

  logout(sessionId: string): Promise<Success> {
    return this.http.json({ method: "POST", path: `/api/sessions/${enc(sessionId)}/logout` });
  }

  delete(sessionId: string): Promise<Success> {
    return this.http.json({ method: "DELETE", path: `/api/sessions/${enc(sessionId)}` });
  }
}

class Messages extends ListMessages {
  /** `to`: a number with country code, or a JID. `quoted: { messageId }` replies to a message. */
  sendText(
    sessionId: string,
    to: string,
    text: string,
    options: Options<"messages_send", "sessionId" | "to" | "text"> = {},
  ): Promise<SentMessage> {
    const body = { sessionId, to, text, ...options };
    return this.http.json({ method: "POST", path: "/api/messages/send", body });
  }

  edit(sessionId: string, to: string, messageId: string, text: string): Promise<Reply<"messages_edit">> {
    return this.http.json({ method: "POST", path: "/api/messages/edit", body: { sessionId, to, messageId, text } });
  }

  /** A poll: `selectableCount` 1 for a single choice, up to the options' count. */
  sendPoll(
    sessionId: string,
    to: string,
    name: string,
    options: readonly string[],
    extra: Options<"messages_poll", "sessionId" | "to" | "name" | "options"> = {},
  ): Promise<SentMessage> {
    const body = { sessionId, to, name, options, selectableCount: 1, ...extra };
    return this.http.json({ method: "POST", path: "/api/messages/poll", body });
  }

  pollResults(sessionId: string, messageId: string): Promise<Reply<"messages_poll_results">> {
    const query = { sessionId, messageId };
    return this.http.json({ method: "GET", path: "/api/messages/poll-results", query });
  }

  /** An image, video, audio, voice note, document or sticker, from `url` or `base64`. */
  sendMedia(
    sessionId: string,
    to: string,
    media: Options<"messages_media", "sessionId" | "to">,
  ): Promise<SentMessage> {
    return this.http.json({ method: "POST", path: "/api/messages/media", body: { sessionId, to, ...media } });
  }

  sendLocation(
    sessionId: string,
    to: string,
    latitude: number,
    longitude: number,
    options: Options<"messages_location", "sessionId" | "to" | "latitude" | "longitude"> = {},
  ): Promise<SentMessage> {
    const body = { sessionId, to, latitude, longitude, ...options };
    return this.http.json({ method: "POST", path: "/api/messages/location", body });
  }

  /** React to a message; an empty reaction removes it. */
  react(sessionId: string, to: string, messageId: string, reaction: string): Promise<Reaction> {
    const body = { sessionId, to, messageId, reaction };
    return this.http.json({ method: "POST", path: "/api/messages/reaction", body });
  }

  delete(sessionId: string, remoteJid: string, messageId: string, fromMe = true): Promise<MessageDeleted> {
    const body = { sessionId, remoteJid, messageId, fromMe };
    return this.http.json({ method: "POST", path: "/api/messages/delete", body });
  }

  list(
    sessionId: string,
    query: Omit<Query<"messages_list">, "sessionId"> = {},
  ): Promise<MessageList> {
    return this.http.json({ method: "GET", path: "/api/messages", query: { sessionId, ...query } });
  }
}

class Groups {
  constructor(private readonly http: Transport) {}

  addParticipants(sessionId: string, groupJid: string, participants: readonly string[]): Promise<Reply<"groups_add">> {
    return this.participants("add", sessionId, groupJid, participants);
  }

  removeParticipants(
    sessionId: string,
    groupJid: string,
    participants: readonly string[],
  ): Promise<Reply<"groups_remove">> {
    return this.participants("remove", sessionId, groupJid, participants);
  }

  setSubject(sessionId: string, groupJid: string, subject: string): Promise<Reply<"groups_subject">> {
    return this.http.json({ method: "PUT", path: "/api/groups/subject", body: { sessionId, groupJid, subject } });
  }

  setDescription(sessionId: string, groupJid: string, description: string): Promise<Reply<"groups_description">> {
    const body = { sessionId, groupJid, description };
    return this.http.json({ method: "PUT", path: "/api/groups/description", body });
  }

  /** `announce`: only admins send; `locked`: only admins edit the info (undefined: unchanged). */
  setSettings(
    sessionId: string,
    groupJid: string,
    settings: { announce?: boolean; locked?: boolean },
  ): Promise<Reply<"groups_settings">> {
    const body = { sessionId, groupJid, ...settings };
    return this.http.json({ method: "PUT", path: "/api/groups/settings", body });
  }

  invite(sessionId: string, groupJid: string): Promise<Reply<"groups_invite">> {
    return this.http.json({ method: "GET", path: "/api/groups/invite", query: { sessionId, groupJid } });
  }

  revokeInvite(sessionId: string, groupJid: string): Promise<Reply<"groups_invite_revoke">> {
    return this.http.json({ method: "POST", path: "/api/groups/invite/revoke", body: { sessionId, groupJid } });
  }

  /** Join by invite code or link (NotFoundError `INVITE_NOT_FOUND` when unknown or revoked). */
  join(sessionId: string, code: string): Promise<Reply<"groups_join">> {
    return this.http.json({ method: "POST", path: "/api/groups/join", body: { sessionId, code } });
  }

  private participants<T>(action: string, sessionId: string, groupJid: string, participants: readonly string[]) {
    const body = { sessionId, groupJid, participants };
    return this.http.json<T>({ method: "POST", path: `/api/groups/participants/${action}`, body });
  }

  async create(sessionId: string, subject: string, participants: readonly string[]): Promise<Group> {
    const body = { sessionId, subject, participants };
    const request = { method: "POST", path: "/api/groups", body } as const;
    return (await this.http.json<Schemas["GroupCreateOutput"]>(request)).group;
  }

  async list(sessionId: string): Promise<Group[]> {
    const request = { method: "GET", path: "/api/groups/list", query: { sessionId } } as const;
    return (await this.http.json<Schemas["GroupListOutput"]>(request)).groups;
  }

  leave(sessionId: string, groupJid: string): Promise<Schemas["GroupLeaveOutput"]> {
    return this.http.json({ method: "POST", path: "/api/groups/leave", body: { sessionId, groupJid } });
  }
}

/** Registered webhooks, through the gateway (`/gateway/webhooks`, errors in its `{error}` shape). */
class Webhooks {
  constructor(private readonly http: Transport) {}

  /** `secret` signs each delivery (check it with verifyWebhook); `retryCount` 0–10. */
  create(
    sessionId: string,
    url: string,
    events: readonly WebhookEvent[],
    options: Options<"gateway_webhooks_create", "sessionId" | "url" | "events"> = {},
  ): Promise<Webhook> {
    const body = { sessionId, url, events, ...options };
    return this.http.json({ method: "POST", path: "/gateway/webhooks", body });
  }

  async list(query: Query<"gateway_webhooks_list"> = {}): Promise<Webhook[]> {
    const request = { method: "GET", path: "/gateway/webhooks", query } as const;
    return (await this.http.json<Schemas["WebhookList"]>(request)).data;
  }

  get(webhookId: string): Promise<Webhook> {
    return this.http.json({ method: "GET", path: `/gateway/webhooks/${enc(webhookId)}` });
  }

  update(webhookId: string, changes: Body<"gateway_webhooks_patch">): Promise<Webhook> {
    return this.http.json({ method: "PATCH", path: `/gateway/webhooks/${enc(webhookId)}`, body: changes });
  }

  delete(webhookId: string): Promise<Schemas["WebhookDeleted"]> {
    return this.http.json({ method: "DELETE", path: `/gateway/webhooks/${enc(webhookId)}` });
  }

  /** Every event a webhook can receive, with the JSON Schema of its body and an example. */
  eventTypes(): Promise<EventType[]> {
    return eventTypes(this.http);
  }

  /** A new secret (generated when not given), the old one signing too for the overlap; `secret` is
   * shown in this reply only. */
  rotateSecret(
    webhookId: string,
    options: Body<"gateway_webhooks_secret_rotate"> = {},
  ): Promise<Reply<"gateway_webhooks_secret_rotate">> {
    const path = `/gateway/webhooks/${enc(webhookId)}/secret/rotate`;
    return this.http.json({ method: "POST", path, body: options });
  }

  /** Queue one `webhook.test` event to this webhook: `{ event, webhookId }`. */
  sendTest(webhookId: string): Promise<Reply<"gateway_webhooks_test">> {
    return this.http.json({ method: "POST", path: `/gateway/webhooks/${enc(webhookId)}/test` });
  }

  /** Send the window's deliveries again to the webhook's current URL; how many were queued. */
  async replay(webhookId: string, window: Body<"gateway_webhooks_replay">): Promise<number> {
    const request = { method: "POST", path: `/gateway/webhooks/${enc(webhookId)}/replay`, body: window } as const;
    return (await this.http.json<Reply<"gateway_webhooks_replay">>(request)).queued;
  }
}

export class Ponte {
  readonly bonds: Bonds;
  readonly sessions: Sessions;
  readonly messages: Messages;
  readonly groups: Groups;
  readonly webhooks: Webhooks;
  /** The delivery log: a webhook's deliveries, one delivery's attempts, resends. */
  readonly deliveries: Deliveries;
  readonly deadLetters: DeadLetters;
  readonly contacts: Contacts;
  readonly chats: Chats;
  readonly chatActions: ChatActions;
  readonly labels: Labels;
  readonly instance: Instance;
  /** Bots on a session: create, change, their conversations (pause, resume). */
  readonly bots: Bots;
  /** Status (stories): post, delete, list the own and the contacts' of the last 24 hours. */
  readonly status: Status;
  /** Channels (WhatsApp's newsletters): owned and followed, create, follow, unfollow, posts. */
  readonly channels: Channels;
  private readonly http: Transport;

  constructor(options: ClientOptions) {
    this.http = new Transport(options);
    this.bonds = new Bonds(this.http);
    this.sessions = new Sessions(this.http);
    this.messages = new Messages(this.http);
    this.groups = new Groups(this.http);
    this.webhooks = new Webhooks(this.http);
    this.deliveries = new Deliveries(this.http);
    this.deadLetters = new DeadLetters(this.http);
    this.contacts = new Contacts(this.http);
    this.chats = new Chats(this.http);
    this.chatActions = new ChatActions(this.http);
    this.labels = new Labels(this.http);
    this.status = new Status(this.http);
    this.channels = new Channels(this.http);
    this.instance = new Instance(this.http);
    this.bots = new Bots(this.http);
  }

  /** The rate-limit headers of the last messaging or gateway reply (null before the first). */
  get rateLimit(): RateLimit | null {
    return this.http.rateLimit;
  }
}
