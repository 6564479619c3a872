/**
 * Sending one request: the key in the header its interface expects, retries that honour Retry-After,
 * error replies thrown as typed errors, and the last rate-limit headers kept for the caller.
 */

import { errorFrom, rateLimitOf, type RateLimit, retryAfterOf } from "./errors.js";

/** How the key travels: `X-API-Key` (messaging, gateway), `Authorization: Bearer` (bonds), or not at all. */
export type Auth = "x-api-key" | "bearer" | "none";
export type QueryValue = string | number | boolean | readonly (string | number)[] | null | undefined;

export interface Request {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  path: string;
  query?: Record<string, QueryValue>;
  body?: unknown;
  auth?: Auth;
}

export interface RetryPolicy {
  /** Retries after the first attempt (default 2). */
  maxRetries: number;
  /** Seconds before the first retry when the server names no Retry-After, doubled each time (0.5). */
  backoff: number;
  /** Never wait longer than this many seconds for one retry (60). */
  maxWait: number;
}

export interface ClientOptions {
  /** Where Ponte answers, e.g. `http://127.0.0.1:8000`. */
  baseUrl: string;
  /** `ponte_<prefix>_<secret>`; without one, bonds answer a preview and the rest 401. */
  apiKey?: string;
  /** Milliseconds before a request is abandoned (default 30000). */
  timeout?: number;
  retry?: Partial<RetryPolicy>;
  /**
   * Keyed bond calls must be 5 seconds apart: with this set, a `rate_limited` bond reply is waited out
   * and the call made again (up to `retry.maxRetries` times) instead of throwing BondsAccessError.
   */
  waitOnRateLimit?: boolean;
  /** Another fetch implementation (default: the global fetch of Node 18+). */
  fetch?: typeof fetch;
}

const RETRIED_STATUSES = new Set([429, 502, 503, 504]);
// Safe to send twice: a retry after a lost reply cannot do the work twice.
const IDEMPOTENT = new Set(["GET", "PUT", "DELETE"]);

export const sleep = (seconds: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, seconds * 1000));

function queryString(query: Record<string, QueryValue> | undefined): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value === null || value === undefined) continue;
    if (Array.isArray(value)) params.set(name, value.join(","));
    else if (typeof value === "boolean") params.set(name, value ? "1" : "0");
    else params.set(name, String(value));
  }
  const text = params.toString();
  return text ? `?${text}` : "";
}

export class Transport {
  /** The rate-limit headers of the last messaging or gateway reply, or null before the first. */
  rateLimit: RateLimit | null = null;
  readonly retry: RetryPolicy;
  readonly waitOnRateLimit: boolean;
  private readonly baseUrl: string;
  private readonly apiKey: string | undefined;
  private readonly timeout: number;
  private readonly fetch: typeof fetch;

  constructor(options: ClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, "");
    this.apiKey = options.apiKey;
    this.timeout = options.timeout ?? 30_000;
    this.retry = { maxRetries: 2, backoff: 0.5, maxWait: 60, ...options.retry };
    this.waitOnRateLimit = options.waitOnRateLimit ?? false;
    this.fetch = options.fetch ?? globalThis.fetch;
  }

  private headers(request: Request): Record<string, string> {
    const headers: Record<string, string> = { Accept: "application/json, text/csv" };
    if (request.body !== undefined) headers["Content-Type"] = "application/json";
    const auth = request.auth ?? "x-api-key";
    if (this.apiKey && auth === "bearer") headers["Authorization"] = `Bearer ${this.apiKey}`;
    if (this.apiKey && auth === "x-api-key") headers["X-API-Key"] = this.apiKey;
    return headers;
  }

  private attempt(request: Request): Promise<Response> {
    return this.fetch(this.baseUrl + request.path + queryString(request.query), {
      method: request.method,
      headers: this.headers(request),
      body: request.body === undefined ? undefined : JSON.stringify(request.body),
      signal: AbortSignal.timeout(this.timeout),
    });
  }

  private shouldRetry(request: Request, attempt: number, response: Response | null): boolean {
    if (attempt >= this.retry.maxRetries) return false;
    if (response === null) return IDEMPOTENT.has(request.method); // the request may not have arrived
    if (response.status === 429) return true; // refused before anything was done: safe for any method
    return RETRIED_STATUSES.has(response.status) && IDEMPOTENT.has(request.method);
  }

  private wait(attempt: number, response: Response | null): number {
    const server = response === null ? null : retryAfterOf(response.headers);
    return Math.min(this.retry.maxWait, server ?? this.retry.backoff * 2 ** attempt);
  }

  /** The successful reply (status < 400); an error reply is thrown as its typed PonteError. */
  async send(request: Request): Promise<Response> {
    for (let attempt = 0; ; attempt++) {
      let response: Response | null = null;
      try {
        response = await this.attempt(request);
      } catch (error) {
        if (!this.shouldRetry(request, attempt, null)) throw error;
      }
      if (response !== null) {
        this.rateLimit = rateLimitOf(response.headers) ?? this.rateLimit;
        if (response.status < 400) return response;
        if (!this.shouldRetry(request, attempt, response)) throw errorFrom(response, await response.text());
        await response.body?.cancel();
      }
      await sleep(this.wait(attempt, response));
    }
  }

  async json<T>(request: Request): Promise<T> {
    return (await (await this.send(request)).json()) as T;
  }
}
