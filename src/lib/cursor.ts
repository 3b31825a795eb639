import { createHmac, timingSafeEqual } from "node:crypto";
import { AppError } from "./errors";

/** Where a page ended: the sort key of its last item. */
export interface Position {
  createdAt: string;
  id: string;
}

export interface CursorCodec {
  encode(list: string, at: Position): string;
  /** The position inside `list`; a cursor that was tampered with or belongs to another list is a 400. */
  decode(list: string, cursor: string): Position;
}

/**
 * Opaque, signed keyset cursors. The signature covers the list name, so a cursor from
 * one form's submissions is refused on another's; the secret lives in the database, so
 * cursors survive restarts and work across processes.
 */
export function createCursorCodec(secret: string): CursorCodec {
  const sign = (payload: string) =>
    Buffer.from(createHmac("sha256", secret).update(payload).digest().subarray(0, 16).toString("base64url"));
  const invalid = () =>
    new AppError("INVALID_CURSOR", "cursor is not valid for this list; use the nextCursor of a previous response");

  return {
    encode(list, at) {
      const payload = Buffer.from(JSON.stringify([at.createdAt, at.id])).toString("base64url");
      return `${payload}.${sign(`${list}|${payload}`)}`;
    },
    decode(list, cursor) {
      const dot = cursor.indexOf(".");
      if (dot <= 0 || cursor.length > 512) throw invalid();
      const payload = cursor.slice(0, dot);
      // Compared as text: base64url decoding ignores a last character's spare bits, so
      // comparing bytes would take some changed cursors as the same one.
      const given = Buffer.from(cursor.slice(dot + 1));
      const expected = sign(`${list}|${payload}`);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalid();
      try {
        const [createdAt, id] = JSON.parse(Buffer.from(payload, "base64url").toString()) as unknown[];
        if (typeof createdAt === "string" && typeof id === "string") return { createdAt, id };
      } catch {}
      throw invalid();
    },
  };
}
