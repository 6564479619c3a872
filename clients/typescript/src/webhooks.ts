/** Verifying Ponte's webhook deliveries in a receiver, with node's crypto alone. */

import { createHmac, timingSafeEqual } from "node:crypto";

import { WebhookVerificationError } from "./errors.js";

/** A fetch `Headers`, or node's `IncomingHttpHeaders` (`request.headers` of node:http). */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

const DEFAULT_TOLERANCE_SECONDS = 300;
const STANDARD_PREFIX = "whsec_";
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === "function") return (headers as Headers).get(name) ?? undefined;
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === name) return Array.isArray(value) ? value.join(" ") : value;
  }
  return undefined;
}

/** The HMAC key: a `whsec_<base64>` secret decoded, any other secret as its UTF-8 bytes (as Ponte signs). */
function standardKey(secret: string): Buffer {
  const encoded = secret.slice(STANDARD_PREFIX.length);
  if (secret.startsWith(STANDARD_PREFIX) && encoded && BASE64.test(encoded)) {
    return Buffer.from(encoded, "base64");
  }
  return Buffer.from(secret, "utf8");
}

function same(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/**
 * Check a delivery's signature over the raw body; throw WebhookVerificationError if it is wrong.
 *
 * Standard Webhooks: `webhook-signature` holds space-separated `v1,<base64 HMAC-SHA256 of
 * "id.timestamp.body">` and one must match; `webhook-timestamp` must be within `tolerance` seconds of now
 * (default 300), so a replayed old delivery is refused. Without those headers, `x-webhook-signature`
 * (hex HMAC-SHA256 of the body) is checked. Pass the body exactly as received, before any JSON parsing.
 */
export function verifyWebhook(
  headers: WebhookHeaders,
  body: string | Uint8Array,
  secret: string,
  options: { tolerance?: number; now?: Date } = {},
): void {
  const raw = typeof body === "string" ? Buffer.from(body, "utf8") : Buffer.from(body);
  const signatures = header(headers, "webhook-signature");
  if (signatures === undefined) {
    const given = header(headers, "x-webhook-signature");
    if (!given) throw new WebhookVerificationError("No webhook-signature or x-webhook-signature header.");
    const expected = createHmac("sha256", Buffer.from(secret, "utf8")).update(raw).digest("hex");
    if (!same(given.trim().toLowerCase(), expected)) {
      throw new WebhookVerificationError("x-webhook-signature does not match the body.");
    }
    return;
  }
  const id = header(headers, "webhook-id") ?? "";
  const stamp = header(headers, "webhook-timestamp") ?? "";
  if (!/^\d+$/.test(stamp)) {
    throw new WebhookVerificationError("webhook-timestamp is missing or not a number.");
  }
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  if (Math.abs(now - Number(stamp)) > (options.tolerance ?? DEFAULT_TOLERANCE_SECONDS)) {
    throw new WebhookVerificationError("webhook-timestamp is too old or too far in the future.");
  }
  const expected = createHmac("sha256", standardKey(secret))
    .update(`${id}.${stamp}.`)
    .update(raw)
    .digest("base64");
  for (const candidate of signatures.split(" ")) {
    const [version, signature] = candidate.split(",", 2);
    if (version === "v1" && signature !== undefined && same(signature, expected)) return;
  }
  throw new WebhookVerificationError("webhook-signature does not match the body.");
}
