import { ValidationError } from "elysia";
import { isDatabaseBusy } from "../db/busy";
import { isDatabaseUnreachable } from "../db/errors";
import { AppError, ERROR_STATUS, type ErrorCode, type FieldError } from "../lib/errors";
import type { Logger } from "../lib/log";

export interface ErrorBody {
  error: string;
  code: ErrorCode;
  errors?: FieldError[];
  requestId?: string;
}

/** A readable sentence for a schema failure: the schema's own message, else where and what. */
function validationMessage(e: ValidationError): string {
  if (typeof e.customError === "string" && e.customError) return e.customError;
  const where = e.valueError?.path?.replace(/^\//, "").replaceAll("/", ".");
  const what = e.valueError?.message ?? "is invalid";
  return where ? `${e.type} ${where}: ${what}` : `${e.type}: ${what}`;
}

/**
 * Turns anything thrown into our JSON error. Unknown errors are logged with their stack
 * and answered as a bare 500: internals never reach the caller.
 */
export function toErrorResponse(
  error: unknown,
  frameworkCode: string | number,
  log: Logger,
  requestId: string | undefined,
) {
  let code: ErrorCode;
  let message: string;
  let headers: Record<string, string> | undefined;
  let errors: FieldError[] | undefined;
  if (error instanceof AppError) {
    ({ code, message, headers, errors } = error);
  } else if (error instanceof ValidationError) {
    code = "INVALID_PARAMETER";
    message = validationMessage(error);
  } else if (frameworkCode === "PARSE") {
    code = "INVALID_BODY";
    message = "request body could not be parsed";
  } else if (isDatabaseBusy(error)) {
    code = "UNAVAILABLE";
    message = "the database is busy with another process's write; retry in a moment";
    headers = { "retry-after": "1" };
  } else if (isDatabaseUnreachable(error)) {
    code = "UNAVAILABLE";
    message = "the database cannot be reached right now; retry in a moment";
    headers = { "retry-after": "1" };
    log.warn("database unreachable", { requestId, error: error instanceof Error ? error.message : String(error) });
  } else if (frameworkCode === "NOT_FOUND") {
    code = "ROUTE_NOT_FOUND";
    message = "no such endpoint; see /docs for the API";
  } else {
    code = "INTERNAL";
    message = "internal server error";
    log.error("unhandled error", {
      requestId,
      error: error instanceof Error ? (error.stack ?? error.message) : String(error),
    });
  }
  const body: ErrorBody = {
    error: message,
    code,
    ...(errors ? { errors } : {}),
    ...(requestId ? { requestId } : {}),
  };
  return { status: ERROR_STATUS[code], body, headers };
}
