export { Ponte } from "./client.js";
export type * from "./client.js";
export type { ClientOptions, RetryPolicy } from "./http.js";
export {
  AuthenticationError,
  BadRequestError,
  BondsAccessError,
  ConflictError,
  NotFoundError,
  PermissionDeniedError,
  PonteError,
  RateLimitError,
  ServerError,
  WebhookVerificationError,
  type RateLimit,
} from "./errors.js";
export { verifyWebhook, type WebhookHeaders } from "./webhooks.js";
export type * from "./events.js";
export type { LinkPreview, ListRow, ListSection } from "./lists.js";
export type { ChatActions, ChatFilters, Labels } from "./chatActions.js";
/** The generated OpenAPI types, for operations this layer does not wrap. */
export type { components, operations, paths } from "./schema.js";
