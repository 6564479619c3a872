/**
 * Typed errors. Each carries `statusCode`, `error` and `message`, whatever the interface's body shape:
 * messaging `{statusCode, error, message}`, gateway `{error}` (sometimes with `hint`), instance
 * `{status, error, message}`, bonds `response.status` in an HTTP 200 reply.
 */

/** The rate-limit headers of a messaging or gateway reply (errors included). */
export interface RateLimit {
  /** Calls allowed in the window. */
  limit: number;
  /** Calls left in the window. */
  remaining: number;
  /** Unix time (seconds) when the window resets. */
  reset: number;
}

export class PonteError extends Error {
  /** The HTTP status (200 for bond statuses, which the bonds contract answers with HTTP 200). */
  readonly statusCode: number;
  /** The machine-readable code: `SESSION_NOT_FOUND`, `Webhook not found`, `no_subscription`... */
  readonly error: string;
  /** The parsed reply body, when there was one. */
  readonly body: unknown;

  constructor(statusCode: number, error: string, message: string, body?: unknown) {
    super(message);
    this.name = new.target.name;
    this.statusCode = statusCode;
    this.error = error;
    this.body = body;
  }
}

/** 400: invalid input; `message` names the fields. */
export class BadRequestError extends PonteError {}
/** 401: the key is missing, invalid, revoked or expired (or sent in the wrong header: see message). */
export class AuthenticationError extends PonteError {}
/** 403: the key's role, allowed sessions or IP allow-list, or the plan's cap. */
export class PermissionDeniedError extends PonteError {}
/** 404. */
export class NotFoundError extends PonteError {}
/** 409, e.g. SESSION_NOT_CONNECTED. */
export class ConflictError extends PonteError {}
/** 5xx, e.g. 502 ENGINE_UNAVAILABLE. */
export class ServerError extends PonteError {}

/** 429 after the retries ran out; `retryAfter` is the server's Retry-After in seconds. */
export class RateLimitError extends PonteError {
  readonly retryAfter: number | null;

  constructor(statusCode: number, error: string, message: string, body: unknown, retryAfter: number | null) {
    super(statusCode, error, message, body);
    this.retryAfter = retryAfter;
  }
}

/**
 * The bond list answered a status without bonds (HTTP 200, as the bonds contract fixes): `error` is
 * `unauthorized`, `no_subscription`, `payment_issue`, `rate_limited`, `bad_request`...
 */
export class BondsAccessError extends PonteError {}

/** A webhook delivery whose signature or timestamp does not check out. */
export class WebhookVerificationError extends PonteError {
  constructor(message: string) {
    super(400, "INVALID_SIGNATURE", message);
  }
}

const BY_STATUS: Record<number, typeof PonteError> = {
  400: BadRequestError,
  401: AuthenticationError,
  403: PermissionDeniedError,
  404: NotFoundError,
  409: ConflictError,
};

export function retryAfterOf(headers: Headers): number | null {
  const value = headers.get("retry-after");
  const seconds = value === null ? NaN : Number(value);
  return Number.isFinite(seconds) ? Math.max(0, seconds) : null;
}

export function rateLimitOf(headers: Headers): RateLimit | null {
  const [limit, remaining, reset] = ["limit", "remaining", "reset"].map((name) =>
    Number(headers.get(`x-ratelimit-${name}`) ?? NaN),
  );
  if (![limit, remaining, reset].every(Number.isFinite)) return null;
  return { limit: limit!, remaining: remaining!, reset: reset! };
}

/** The typed error for an error reply, reading whichever body shape the interface uses. */
export function errorFrom(response: Response, text: string): PonteError {
  const status = response.status;
  let body: unknown = undefined;
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON (a proxy's HTML page, say): the text is the message.
  }
  let error = response.statusText || String(status);
  let message = text.slice(0, 500);
  if (typeof body === "object" && body !== null && "error" in body) {
    const fields = body as { error: unknown; message?: unknown; hint?: unknown };
    error = String(fields.error);
    message = String(fields.message ?? fields.hint ?? error);
  }
  if (status === 429) return new RateLimitError(status, error, message, body, retryAfterOf(response.headers));
  const Class = BY_STATUS[status] ?? (status >= 500 ? ServerError : PonteError);
  return new Class(status, error, message, body);
}
