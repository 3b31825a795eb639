import { writeSync } from "node:fs";
import { redactAddresses } from "./redact";

export type LogLevel = "debug" | "info" | "warn" | "error" | "silent";
const rank: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

export type LogFields = Record<string, unknown>;
export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  /**
   * An info line whose fields the caller writes as JSON members (`"a":1,"b":"x"`), called only when
   * the line is written: for the line of every request. Nothing in them is redacted.
   */
  infoMembers(msg: string, members: () => string): void;
}

/**
 * Lines written in one event-loop turn go out in one write to stdout: a write per request
 * would cost a quarter of the throughput. Synchronous, so nothing is lost on exit.
 */
export function batchedStdout(fd = 1): (line: string) => void {
  let buffer = "";
  const flush = () => {
    const out = buffer;
    buffer = "";
    if (out) writeSync(fd, out);
  };
  process.once("exit", flush);
  return (line) => {
    if (buffer === "") setImmediate(flush);
    buffer += line;
    if (buffer.length > 1 << 16) flush();
  };
}

/**
 * One JSON object per line. Callers pass only what is safe to print: keys and their
 * query parameters are never handed to the logger, so they cannot leak through it. An `error`
 * field is the exception: it often quotes someone else's words (an SMTP server's reply naming the
 * recipient, a database error), so any address in it is redacted here, once for every caller.
 */
export function createLogger(level: LogLevel, write: (line: string) => void = batchedStdout()): Logger {
  const min = rank[level];
  // Under load many lines share a millisecond: format its timestamp once.
  let lastMs = -1;
  let lastTime = "";
  const time = () => {
    const ms = Date.now();
    if (ms !== lastMs) [lastMs, lastTime] = [ms, new Date(ms).toISOString()];
    return lastTime;
  };
  const at = (lvl: Exclude<LogLevel, "silent">) => {
    const level = `","level":"${lvl}","msg":`;
    return (msg: string, fields?: LogFields) => {
      if (rank[lvl] < min) return;
      // Spliced rather than spread into one object: this runs once per request.
      if (typeof fields?.error === "string" && fields.error.includes("@"))
        fields = { ...fields, error: redactAddresses(fields.error) };
      const rest = fields ? JSON.stringify(fields) : "{}";
      write(`{"time":"${time()}${level}${JSON.stringify(msg)}${rest.length > 2 ? `,${rest.slice(1)}` : "}"}\n`);
    };
  };
  const infoHead = `","level":"info","msg":`;
  const infoMembers = (msg: string, members: () => string) => {
    if (rank.info < min) return;
    const rest = members();
    write(`{"time":"${time()}${infoHead}${JSON.stringify(msg)}${rest ? `,${rest}}` : "}"}\n`);
  };
  return { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error"), infoMembers };
}

export const silentLogger = createLogger("silent", () => {});
