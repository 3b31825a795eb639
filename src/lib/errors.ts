/** The closed list of error codes; the one place each maps to an HTTP status. */
export const ERROR_STATUS = {
  INVALID_PARAMETER: 400,
  INVALID_CURSOR: 400,
  INVALID_QUERY: 400,
  INVALID_BODY: 400,
  VALIDATION_FAILED: 400,
  /** An assignee who is not a member of the form's team. */
  NOT_A_MEMBER: 400,
  CHALLENGE_FAILED: 400,
  EMPTY: 400,
  NO_FILE_UPLOADS: 400,
  FILE_TYPE_NOT_ALLOWED: 400,
  TOO_MANY_FILES: 400,
  FILE_INFECTED: 400,
  TOO_MANY_FIELDS: 400,
  UNAUTHORIZED: 401,
  SECOND_FACTOR_REQUIRED: 401,
  FORBIDDEN: 403,
  KEY_SCOPE: 403,
  ROLE_TOO_LOW: 403,
  /** A note deleted by someone other than who wrote it. */
  NOT_AUTHOR: 403,
  SECOND_FACTOR_ENROLMENT_REQUIRED: 403,
  ORIGIN_NOT_ALLOWED: 403,
  CSRF: 403,
  /** An edit link (editableDays) whose signature does not hold: altered, or never ours. */
  EDIT_LINK_INVALID: 403,
  FORM_CLOSED: 403,
  NOT_FOUND: 404,
  FORM_NOT_FOUND: 404,
  ROUTE_NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  BODY_TOO_SLOW: 408,
  CONFLICT: 409,
  OWNER_EXISTS: 409,
  ALREADY_MEMBER: 409,
  PASSKEYS_UNAVAILABLE: 409,
  /** A form with one response per email, and an address that has answered it. */
  ALREADY_SUBMITTED: 409,
  /** An edit link past its time, of a form that takes no edits any more, or of a submission since deleted. */
  EDIT_LINK_EXPIRED: 410,
  PAYLOAD_TOO_LARGE: 413,
  FILES_TOO_BIG: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  TOO_MANY_CONFIRMATIONS: 429,
  TOO_MANY_INVITATIONS: 429,
  INTERNAL: 500,
  UNAVAILABLE: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** One problem with one field of a submission (codes as Formspree names them). */
export interface FieldError {
  field?: string;
  code: string;
  message: string;
}

/** An error a caller can act on: it carries its code, and through it its HTTP status. */
export class AppError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly headers?: Record<string, string>,
    /** Every problem found, each with its field: answered beside `error` (VALIDATION_FAILED). */
    readonly errors?: FieldError[],
  ) {
    super(message);
    this.name = "AppError";
    this.status = ERROR_STATUS[code];
  }
}
