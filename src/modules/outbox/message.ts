/** An email as the outbox's mailer sends it (every kind of mail renders one). */
export interface MailMessage {
  to: string;
  replyTo?: string;
  /** The display name on the sender's address (FORMSVC_MAIL_FROM's). */
  fromName?: string;
  subject: string;
  text: string;
  html: string;
  /** Extra header lines, e.g. Auto-Submitted. */
  headers?: Record<string, string>;
  /** Files it carries, made as it is sent (the outbox keeps none). */
  attachments?: MailAttachment[];
}

export interface MailAttachment {
  filename: string;
  /** Bytes, or a stored file's stream, read as the message is written (a file is never held whole in memory). */
  content: Uint8Array | ReadableStream<Uint8Array>;
  contentType: string;
}

// Anything that reaches a header loses control characters: a form name cannot start a new header.
export const oneLine = (s: string) => s.replace(/[\u0000-\u001f\u007f]+/g, " ").trim();
